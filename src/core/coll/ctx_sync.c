/*
 * shmi_coll_ctx_sync (coll.h): a linear barrier on the slot's ctx_bar word.
 * Linear because its users (barriers and collectives enqueued on device
 * streams) run on teams of the PEs sharing a node's GPUs, where n - 1
 * atomics per PE cost less than the rounds of a dissemination barrier
 * over a context that cannot share the team's round flags.
 */
#include "config.h"

#include "core/coll/coll.h"
#include "core/dataplane.h"
#include "core/team/team.h"

/* Arrivals this PE has waited for on each slot so far. */
static uint64_t ctx_bar_seen[SHMI_TEAM_SLOTS];

void shmi_coll_ctx_sync_reset(int slot)
{
    __atomic_store_n(&ctx_bar_seen[slot], 0, __ATOMIC_RELAXED);
}

void shmi_coll_ctx_sync(const char *routine, struct shmem_impl_team *t,
                        shmem_ctx_t ctx)
{
    uint64_t *word = &shmi_coll_slot(t->slot)->ctx_bar;
    uint64_t one = 1, want;
    size_t off;
    int seg;

    if (t->n_pes == 1)
        return;
    seg = shmi_eng_seg_at(routine, word, sizeof(*word), &off);
    /* Everything this context did before is complete first. */
    shmi_eng_quiet(routine, ctx, -1);
    want = __atomic_add_fetch(&ctx_bar_seen[t->slot], (uint64_t)t->n_pes - 1,
                              __ATOMIC_RELAXED);
    for (int i = 1; i < t->n_pes; i++) {
        int pe = shmi_team_world_pe(t, (t->my_pe + i) % t->n_pes);

        shmi_eng_amo(routine, ctx, pe, seg, off, SHMI_AMO_ADD, SHMI_DT_UINT64,
                     &one, NULL, NULL, 0);
    }
    shmi_eng_quiet(routine, ctx, -1);
    shmi_wait(routine, SHMI_WAIT_ONE, SHMI_DT_UINT64, word, 1, NULL,
              SHMEM_CMP_GE, &want, 0, NULL, 1);
}
