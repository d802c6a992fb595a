/*
 * Barriers and syncs: shmem_barrier_all, shmem_sync_all, shmem_team_sync and
 * the deprecated active-set shmem_barrier / shmem_sync.
 *
 * Algorithm: dissemination. In round k every PE tells the PE 2^k ahead of
 * it that it has arrived, and waits to hear it from the PE 2^k behind;
 * ceil(log2 n) rounds, one message and one wait per round.
 *
 * What a round writes is not a count but the barrier's number j (1, 2, ...
 * per team slot: all members number their dissemination barriers alike),
 * set in the word bar_word[j % 2][k] of the PE ahead, which waits until
 * its own word reads >= j. A word has one writer (the PE 2^k behind, fixed
 * for the team), so a set needs no atomic, and over a fabric it is one
 * write that nothing acknowledges (route.h, word): a delivered atomic add
 * costs tcp;ofi_rxm a request, a response and the work of both CPUs on
 * them. The writes of one PE may land in any order, and that is safe: the
 * write of barrier j lands after that of j - 2 into the same word, because
 * the writer begins barrier j only once everyone has entered barrier
 * j - 1, so the reader has finished j - 2, whose wait saw the j - 2 write.
 * And an early arrival (the writer already in barrier j + 1 while the
 * reader still waits in j) goes to the other word, so it is not lost.
 * Active sets count arrivals in bar[k] instead: their temporary teams
 * share one slot whatever their members, so members need not have
 * numbered as many barriers on it.
 */
#include "config.h"

#include "boot/boot.h"
#include "core/coll/coll.h"
#include "core/init.h"
#include "core/state.h"
#include "services/error.h"

/*
 * Flat (SHMEM_BARRIER_ALGORITHM=flat): team PE 0 counts n-1 arrivals in
 * bar[0] and releases everyone through bar[1]; 2 steps, O(n) at PE 0. An
 * arrival that belongs to the next barrier comes from a PE already released
 * from this one, so counting it early is harmless.
 */
static void shmi_coll_barrier_flat(struct shmem_impl_team *t,
                                   shmi_coll_slot_t *s)
{
    if (t->my_pe != 0) {
        shmi_coll_flag_add(&s->bar[0], shmi_team_world_pe(t, 0));
        shmi_coll_flag_take_from(&s->bar[1], 1, shmi_team_world_pe(t, 0));
        return;
    }
    shmi_coll_flag_take(&s->bar[0], (uint64_t)t->n_pes - 1);
    for (int i = 1; i < t->n_pes; i++)
        shmi_coll_flag_add(&s->bar[1], shmi_team_world_pe(t, i));
}

/* Dissemination among the m PEs pe_of(0..m-1), me being index i. */
static void shmi_coll_dissem(const struct shmem_impl_team *t,
                             shmi_coll_slot_t *s, const int *members, int m,
                             int i)
{
    int counting = t->slot == SHMI_TEAM_SLOT_ACTIVE_SET;
    uint64_t j = counting ? 0 : shmi_coll_bar_next(t->slot);
    uint64_t *word = s->bar_word[j % 2];

    for (int k = 0, d = 1; d < m; k++, d <<= 1) {
        int to = shmi_team_world_pe(t, members ? members[(i + d) % m]
                                               : (i + d) % m);
        int from = shmi_team_world_pe(t, members ? members[(i - d % m + m) % m]
                                                 : (i - d % m + m) % m);

        if (counting) {
            shmi_coll_flag_add(&s->bar[k], to);
            shmi_coll_flag_take_from(&s->bar[k], 1, from);
        } else {
            shmi_coll_word_set(&word[k], j, to);
            shmi_coll_word_wait(&word[k], j, from);
        }
    }
}

/*
 * Two-level: the members of a node report to their leader (counting flag
 * bar[ROUNDS-2] of the leader), the leaders run a dissemination among
 * themselves, and each leader releases its node (bar[ROUNDS-1]). Off-node
 * messages: ceil(log2(nodes)) per leader instead of ceil(log2(n)) per PE.
 */
static void shmi_coll_barrier_twolevel(struct shmem_impl_team *t,
                                       shmi_coll_slot_t *s)
{
    const shmi_team_topo_t *o = &t->topo;
    uint64_t *in = &s->bar[SHMI_COLL_ROUNDS - 2];
    uint64_t *out = &s->bar[SHMI_COLL_ROUNDS - 1];

    if (o->leader_idx < 0) {
        shmi_coll_flag_add(in, shmi_team_world_pe(t, o->my_leader));
        shmi_coll_flag_take_from(out, 1, shmi_team_world_pe(t, o->my_leader));
        return;
    }
    shmi_coll_flag_take(in, (uint64_t)o->n_local - 1);
    shmi_coll_dissem(t, s, o->leaders, o->n_leaders, o->leader_idx);
    for (int i = 0; i < o->n_local - 1; i++)
        shmi_coll_flag_add(out, shmi_team_world_pe(t, o->local[i]));
}

/*
 * Auto: two-level when the team spans several nodes and some node holds
 * several of its PEs, and also when the job crowds its cores
 * (shmi_coll_algo.crowded, alike on every PE), even on one node. Crowded,
 * a barrier costs what the scheduler takes to run each PE as often as the
 * algorithm needs it: dissemination needs every PE once per round, one
 * round after another (log2 n wake-ups each, n log2 n in all), a gather
 * within the node twice (arrive, be released: 2n in all), while the
 * leader's O(n) flags cost it microseconds. With a core per PE the rounds
 * run in parallel and dissemination's log2 n steps are the shorter path.
 */
static shmi_barrier_alg_t
shmi_coll_barrier_pick(const struct shmem_impl_team *t)
{
    shmi_barrier_alg_t a = shmi_coll_algo.barrier;
    int spread = t->topo.leaders != NULL && t->topo.n_leaders > 1 &&
                 t->topo.n_leaders < t->n_pes;
    int crowded = t->topo.leaders != NULL && shmi_coll_algo.crowded &&
                  t->topo.n_leaders < t->n_pes;

    if (a == SHMI_BARRIER_TWOLEVEL)
        return t->topo.leaders != NULL ? SHMI_BARRIER_TWOLEVEL
                                       : SHMI_BARRIER_DISSEMINATION;
    if (a == SHMI_BARRIER_AUTO)
        return spread || crowded ? SHMI_BARRIER_TWOLEVEL
                                 : SHMI_BARRIER_DISSEMINATION;
    return a;
}

void shmi_coll_barrier(struct shmem_impl_team *t)
{
    shmi_coll_slot_t *s = shmi_coll_slot(t->slot);

    if (t->n_pes == 1)
        return;
    switch (shmi_coll_barrier_pick(t)) {
    case SHMI_BARRIER_FLAT: shmi_coll_barrier_flat(t, s); break;
    case SHMI_BARRIER_TWOLEVEL: shmi_coll_barrier_twolevel(t, s); break;
    default: shmi_coll_dissem(t, s, NULL, t->n_pes, t->my_pe); break;
    }
}

void shmi_team_sync_internal(struct shmem_impl_team *team)
{
    shmi_coll_barrier(team);
}

/* Before the teams exist (inside shmem_init) the bootstrap's fence is the
 * only barrier there is; it is correct, only slower. */
static void shmi_barrier_world(void)
{
    int ret;

    if (shmi_teams_ready) {
        shmi_coll_barrier(&shmem_impl_team_world);
        return;
    }
    ret = shmi_boot_fence();
    if (ret != 0)
        SHMI_FATAL("bootstrap fence failed in barrier: %s", shmi_strerror(ret));
}

void shmi_barrier_all(void)
{
    shmi_require_init("shmem_barrier_all");
    shmi_eng_quiet("shmem_barrier_all", SHMEM_CTX_DEFAULT, -1);
    shmi_coll_enter("shmem_barrier_all", &shmem_impl_team_world);
    shmi_barrier_world();
    shmi_coll_leave();
}

void shmi_sync_all(void)
{
    shmi_require_init("shmem_sync_all");
    shmi_coll_enter("shmem_sync_all", &shmem_impl_team_world);
    shmi_barrier_world();
    shmi_coll_leave();
}

int shmi_team_sync(shmem_team_t team)
{
    struct shmem_impl_team *t = shmi_coll_team("shmem_team_sync", team);

    if (t == NULL)
        return -1;
    shmi_coll_enter("shmem_team_sync", t);
    shmi_coll_barrier(t);
    shmi_coll_leave();
    return 0;
}

/*
 * Active sets: the flags are the user's pSync words. With enough words the
 * dissemination rounds each get one; with fewer, PE 0 of the set counts the
 * arrivals in pSync[0] and releases the others (flat, O(n) at the root).
 */
void shmi_coll_as_sync(const struct shmem_impl_team *t, long *pSync)
{
    uint64_t *f = (uint64_t *)pSync;
    int n = t->n_pes;
    int me = t->my_pe;

    if (shmi_coll_log2_ceil(n) <= SHMEM_BARRIER_SYNC_SIZE) {
        for (int k = 0, d = 1; d < n; k++, d <<= 1) {
            shmi_coll_flag_add(&f[k], shmi_team_world_pe(t, (me + d) % n));
            shmi_coll_flag_take_from(&f[k], 1,
                                     shmi_team_world_pe(t, (me - d + n) % n));
        }
        return;
    }
    if (me != 0) {
        shmi_coll_flag_add(&f[0], shmi_team_world_pe(t, 0));
        shmi_coll_flag_take(&f[0], 1);
        return;
    }
    shmi_coll_flag_take(&f[0], (uint64_t)n - 1);
    for (int i = 1; i < n; i++)
        shmi_coll_flag_add(&f[0], shmi_team_world_pe(t, i));
}

void shmi_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    struct shmem_impl_team t;

    if (shmi_coll_active_set("shmem_barrier", PE_start, logPE_stride, PE_size,
                             &t) != 0)
        SHMI_FATAL("shmem_barrier: invalid active set");
    shmi_coll_check_psync("shmem_barrier", pSync);
    shmi_eng_quiet("shmem_barrier", SHMEM_CTX_DEFAULT, -1);
    shmi_coll_enter("shmem_barrier", &t);
    shmi_coll_as_sync(&t, pSync);
    shmi_coll_leave();
}

void shmi_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    struct shmem_impl_team t;

    if (shmi_coll_active_set("shmem_sync", PE_start, logPE_stride, PE_size,
                             &t) != 0)
        SHMI_FATAL("shmem_sync: invalid active set");
    shmi_coll_check_psync("shmem_sync", pSync);
    shmi_coll_enter("shmem_sync", &t);
    shmi_coll_as_sync(&t, pSync);
    shmi_coll_leave();
}
