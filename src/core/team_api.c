/*
 * Teams: the predefined world and shared teams, strided and 2-D splits,
 * queries, translation and destruction (OpenSHMEM 1.6 section "Team
 * Management Routines").
 *
 * Resources. A team needs a slot (its symmetric collective state) that all
 * of its members agree on. Each PE keeps a mask of the slots it uses; a
 * split AND-reduces the free masks over the parent team, so every parent
 * PE computes the same lowest common free slot from the same data. The
 * teams of one split (the x-teams or the y-teams of a 2-D split) are
 * disjoint and share one slot number.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/core_decl.h"
#include "boot/boot.h"
#include "core/coll/coll.h"
#include "core/coll/nbc.h"
#include "core/ctx.h"
#include "core/init.h"
#include "core/init_seq.h"
#include "core/state.h"
#include "services/error.h"

struct shmem_impl_team shmem_impl_team_world;
struct shmem_impl_team shmem_impl_team_shared;
shmem_team_t const shmem_impl_team_world_handle = &shmem_impl_team_world;
shmem_team_t const shmem_impl_team_shared_handle = &shmem_impl_team_shared;
int shmi_teams_ready;

/* Bit s set: slot s is used by a team this PE belongs to. */
static uint64_t shmi_slots_used;

/* Teams destroyed by the program, linked by dead_next: kept (small: the
 * member arrays are freed) so that a later use of a handle is an error
 * naming the routine; freed by shmem_finalize. */
static struct shmem_impl_team *shmi_teams_dead;

int shmi_team_check(const char *routine, shmem_team_t team)
{
    if (team == SHMEM_TEAM_INVALID)
        return 1;
    if (team->destroyed)
        SHMI_FATAL("%s: team %p was destroyed (shmem_team_destroy) and "
                   "cannot be used again",
                   routine, (void *)team);
    return 0;
}

int shmi_team_translate_to_world(shmem_team_t team, int pe)
{
    if (team == SHMEM_TEAM_INVALID || pe < 0 || pe >= team->n_pes)
        return -1;
    return shmi_team_world_pe(team, pe);
}

int shmi_team_translate_from_world(shmem_team_t team, int wpe)
{
    if (team == SHMEM_TEAM_INVALID || wpe < 0)
        return -1;
    if (team->pes != NULL) {
        for (int i = 0; i < team->n_pes; i++)
            if (team->pes[i] == wpe)
                return i;
        return -1;
    }
    if (team->stride == 0)
        return wpe == team->start ? 0 : -1;
    long d = (long)wpe - team->start;
    if (d % team->stride != 0)
        return -1;
    long i = d / team->stride;
    return (i >= 0 && i < team->n_pes) ? (int)i : -1;
}

struct shmem_impl_team *shmi_coll_team(const char *routine, shmem_team_t team)
{
    /* Before shmem_init and after shmem_finalize the predefined teams hold
     * no PEs (or stale ones): every team routine checks here first. */
    shmi_require_init(routine);
    if (shmi_team_check(routine, team)) {
        SHMI_LOG(SHMI_LOG_INFO, "team", "%s: SHMEM_TEAM_INVALID", routine);
        return NULL;
    }
    return team;
}

static void shmi_team_set_config(struct shmem_impl_team *t,
                                 const shmem_team_config_t *config, long mask)
{
    memset(&t->config, 0, sizeof(t->config));
    t->config_mask = 0;
    if (config != NULL && (mask & SHMEM_TEAM_NUM_CONTEXTS)) {
        t->config.num_contexts = config->num_contexts;
        t->config_mask = SHMEM_TEAM_NUM_CONTEXTS;
    }
}

/* The shared team: the PEs of this node, strided in the world when they are
 * evenly spaced (the common block and cyclic placements). */
static int shmi_team_shared_init(struct shmem_impl_team *t)
{
    const shmi_boot_info_t *b = &shmi_state.boot;
    int n = b->local_size;
    int stride = n > 1 ? b->local_pes[1] - b->local_pes[0] : 1;
    int even = 1;

    for (int i = 1; i < n; i++)
        if (b->local_pes[i] - b->local_pes[i - 1] != stride)
            even = 0;
    memset(t, 0, sizeof(*t));
    t->n_pes = n;
    t->my_pe = b->local_rank;
    t->start = b->local_pes[0];
    t->stride = stride;
    if (!even) {
        t->pes = malloc((size_t)n * sizeof(int));
        if (t->pes == NULL)
            return SHMI_ENOMEM;
        memcpy(t->pes, b->local_pes, (size_t)n * sizeof(int));
    }
    t->slot = SHMI_TEAM_SLOT_SHARED;
    t->predefined = 1;
    return 0;
}

int shmi_teams_init(void)
{
    struct shmem_impl_team *w = &shmem_impl_team_world;
    int ret;

    ret = shmi_coll_state_init();
    if (ret != 0)
        return ret;
    memset(w, 0, sizeof(*w));
    w->n_pes = shmi_n_pes_fast();
    w->my_pe = shmi_my_pe_fast();
    w->stride = 1;
    w->slot = SHMI_TEAM_SLOT_WORLD;
    w->predefined = 1;
    ret = shmi_team_shared_init(&shmem_impl_team_shared);
    if (ret == 0)
        ret = shmi_team_topo_init(w);
    if (ret == 0)
        ret = shmi_team_topo_init(&shmem_impl_team_shared);
    if (ret != 0)
        return ret;
    for (int s = 0; s <= SHMI_TEAM_SLOT_ACTIVE_SET; s++)
        shmi_coll_slot_reset(s);
    shmi_slots_used = (1u << SHMI_TEAM_SLOT_WORLD) |
                      (1u << SHMI_TEAM_SLOT_SHARED) |
                      (1u << SHMI_TEAM_SLOT_ACTIVE_SET);
    /* No PE may raise a flag in a slot before its owner has zeroed it. */
    ret = shmi_boot_fence();
    if (ret != 0)
        return ret;
    shmi_teams_ready = 1;
    return 0;
}

void shmi_teams_finalize(void)
{
    shmi_teams_ready = 0;
    shmi_coll_state_finalize();
    shmi_team_topo_fini(&shmem_impl_team_world);
    shmi_team_topo_fini(&shmem_impl_team_shared);
    free(shmem_impl_team_shared.pes);
    shmem_impl_team_shared.pes = NULL;
    while (shmi_teams_dead) {
        struct shmem_impl_team *t = shmi_teams_dead;

        shmi_teams_dead = t->dead_next;
        free(t);
    }
}

/* The queries keep the specification's -1 for SHMEM_TEAM_INVALID; any
 * other handle needs the library's teams, so a call outside its lifetime
 * is fatal rather than a made-up 0. */
int shmi_team_my_pe(shmem_team_t team)
{
    shmi_require_init("shmem_team_my_pe");
    return shmi_team_check("shmem_team_my_pe", team) ? -1 : team->my_pe;
}

int shmi_team_n_pes(shmem_team_t team)
{
    shmi_require_init("shmem_team_n_pes");
    return shmi_team_check("shmem_team_n_pes", team) ? -1 : team->n_pes;
}

int shmi_team_get_config(shmem_team_t team, long config_mask,
                         shmem_team_config_t *config)
{
    shmi_require_init("shmem_team_get_config");
    if (shmi_team_check("shmem_team_get_config", team) || config == NULL)
        return -1;
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = team->config.num_contexts;
    return 0;
}

int shmi_team_translate_pe(shmem_team_t src_team, int src_pe,
                           shmem_team_t dest_team)
{
    int wpe;

    shmi_require_init("shmem_team_translate_pe");
    if (shmi_team_check("shmem_team_translate_pe", src_team) ||
        shmi_team_check("shmem_team_translate_pe", dest_team))
        return -1;
    wpe = shmi_team_translate_to_world(src_team, src_pe);
    if (wpe < 0)
        return -1;
    return shmi_team_translate_from_world(dest_team, wpe);
}

/*
 * Agrees on `count` slots free on every PE of parent (collective over
 * parent). Fills slots[] and returns 0, or SHMI_ENOMEM on every PE alike.
 */
static int shmi_team_agree_slots(struct shmem_impl_team *parent, int count,
                                 int *slots)
{
    uint64_t free_mask = ~shmi_slots_used;
    uint64_t common = 0;
    int found = 0;

    if (SHMI_TEAM_SLOTS < 64)
        free_mask &= ((uint64_t)1 << SHMI_TEAM_SLOTS) - 1;
    shmi_coll_reduce(parent, &common, &free_mask, 1, SHMI_DT_UINT64,
                     SHMI_OP_AND);
    for (int s = 0; s < SHMI_TEAM_SLOTS && found < count; s++)
        if (common & ((uint64_t)1 << s))
            slots[found++] = s;
    return found == count ? 0 : SHMI_ENOMEM;
}

/* Builds this PE's handle of the team (start, stride, size) of parent
 * (parent PE numbers); NULL when out of memory. */
static struct shmem_impl_team *shmi_team_make(struct shmem_impl_team *parent,
                                              int start, int stride, int size,
                                              int my_index, int slot)
{
    struct shmem_impl_team *t = calloc(1, sizeof(*t));

    if (t == NULL)
        return NULL;
    t->n_pes = size;
    t->my_pe = my_index;
    t->slot = slot;
    if (parent->pes == NULL) {
        t->start = parent->start + start * parent->stride;
        t->stride = size == 1 ? 1 : stride * parent->stride;
    } else {
        t->pes = malloc((size_t)size * sizeof(int));
        if (t->pes == NULL)
            goto free_team;
        for (int i = 0; i < size; i++)
            t->pes[i] = parent->pes[start + i * stride];
    }
    if (shmi_team_topo_init(t) != 0)
        goto free_pes;
    return t;

free_pes:
    free(t->pes);
free_team:
    free(t);
    return NULL;
}

/* Index of parent PE p in (start, stride, size), or -1. */
static int shmi_team_index(int p, int start, int stride, int size)
{
    if (stride == 0)
        return p == start ? 0 : -1;
    long d = (long)p - start;
    if (d % stride != 0 || d / stride < 0 || d / stride >= size)
        return -1;
    return (int)(d / stride);
}

static int shmi_team_triplet_valid(int n, int start, int stride, int size)
{
    long last;

    if (size <= 0 || start < 0 || start >= n)
        return 0;
    if (stride == 0)
        return size == 1;
    last = (long)start + (long)stride * (size - 1);
    return last >= 0 && last < n;
}

int shmi_team_split_strided(shmem_team_t parent_team, int start, int stride,
                            int size, const shmem_team_config_t *config,
                            long config_mask, shmem_team_t *new_team)
{
    struct shmem_impl_team *p = parent_team;
    struct shmem_impl_team *t = NULL;
    int slot, idx, ret = 0;

    shmi_require_init("shmem_team_split_strided");
    if (new_team == NULL)
        return -1;
    *new_team = SHMEM_TEAM_INVALID;
    if (shmi_team_check("shmem_team_split_strided", p))
        return -1;
    if (!shmi_team_triplet_valid(p->n_pes, start, stride, size)) {
        /* Every PE of the parent finds the same; one message is enough. */
        if (p->my_pe == 0)
            SHMI_LOG(SHMI_LOG_WARN, "team",
                     "shmem_team_split_strided: invalid triplet (start %d, "
                     "stride %d, size %d) for a parent team of %d PEs",
                     start, stride, size, p->n_pes);
        return -1;
    }
    shmi_coll_enter("shmem_team_split_strided", p);
    if (shmi_team_agree_slots(p, 1, &slot) != 0) {
        shmi_coll_leave();
        SHMI_LOG(SHMI_LOG_WARN, "team",
                 "shmem_team_split_strided: no free team slot (%d in use)",
                 SHMI_TEAM_SLOTS);
        return -1;
    }
    idx = shmi_team_index(p->my_pe, start, stride, size);
    if (idx >= 0) {
        t = shmi_team_make(p, start, stride, size, idx, slot);
        if (t == NULL)
            SHMI_FATAL("out of memory creating a team");
        shmi_team_set_config(t, config, config_mask);
        shmi_slots_used |= (uint64_t)1 << slot;
        shmi_coll_slot_reset(slot);
    }
    /* Members zeroed the slot before any member can signal into it. */
    shmi_coll_barrier(p);
    shmi_coll_leave();
    *new_team = t;
    return ret;
}

int shmi_team_split_2d(shmem_team_t parent_team, int xrange,
                       const shmem_team_config_t *xaxis_config, long xaxis_mask,
                       shmem_team_t *xaxis_team,
                       const shmem_team_config_t *yaxis_config, long yaxis_mask,
                       shmem_team_t *yaxis_team)
{
    struct shmem_impl_team *p = parent_team;
    struct shmem_impl_team *x, *y;
    int slots[2], n, me, xs, ys;

    shmi_require_init("shmem_team_split_2d");
    if (xaxis_team == NULL || yaxis_team == NULL)
        return -1;
    *xaxis_team = SHMEM_TEAM_INVALID;
    *yaxis_team = SHMEM_TEAM_INVALID;
    if (shmi_team_check("shmem_team_split_2d", p) || xrange <= 0)
        return -1;
    n = p->n_pes;
    me = p->my_pe;
    if (xrange > n)
        xrange = n;
    shmi_coll_enter("shmem_team_split_2d", p);
    if (shmi_team_agree_slots(p, 2, slots) != 0) {
        shmi_coll_leave();
        SHMI_LOG(SHMI_LOG_WARN, "team",
                 "shmem_team_split_2d: no two free team slots");
        return -1;
    }
    xs = me - me % xrange;
    ys = me % xrange;
    x = shmi_team_make(p, xs, 1, xrange < n - xs ? xrange : n - xs, me % xrange,
                       slots[0]);
    y = shmi_team_make(p, ys, xrange, (n - ys + xrange - 1) / xrange,
                       me / xrange, slots[1]);
    if (x == NULL || y == NULL)
        SHMI_FATAL("out of memory creating a team");
    shmi_team_set_config(x, xaxis_config, xaxis_mask);
    shmi_team_set_config(y, yaxis_config, yaxis_mask);
    shmi_slots_used |= ((uint64_t)1 << slots[0]) | ((uint64_t)1 << slots[1]);
    shmi_coll_slot_reset(slots[0]);
    shmi_coll_slot_reset(slots[1]);
    shmi_coll_barrier(p);
    shmi_coll_leave();
    *xaxis_team = x;
    *yaxis_team = y;
    return 0;
}

void shmi_team_destroy(shmem_team_t team)
{
    shmi_require_init("shmem_team_destroy");
    if (team == SHMEM_TEAM_INVALID)
        return;
    if (team->destroyed)
        SHMI_FATAL("shmem_team_destroy: team %p was already destroyed (a "
                   "team may be destroyed once)",
                   (void *)team);
    if (team->predefined) {
        SHMI_LOG(SHMI_LOG_WARN, "team",
                 "shmem_team_destroy: a predefined team cannot be destroyed");
        return;
    }
    /* The team's nonblocking collectives run to their end first
     * (docs/nonblocking-collectives.md): every member posted them before
     * destroying the team, as for any collective on it. */
    shmi_nbc_team_end(team);
    /* Every member finished the team's last collective: all traffic to this
     * PE in that slot has been taken, so the slot can be handed out again. */
    shmi_slots_used &= ~((uint64_t)1 << team->slot);
    shmi_team_topo_fini(team);
    free(team->pes);
    team->pes = NULL;
    team->n_pes = 0;
    team->destroyed = 1;
    team->dead_next = shmi_teams_dead;
    shmi_teams_dead = team;
}

int shmi_team_ctx_acquire(shmem_team_t team)
{
    if (team == SHMEM_TEAM_INVALID)
        return -1;
    __atomic_add_fetch(&team->n_ctx, 1, __ATOMIC_RELAXED);
    return 0;
}

void shmi_team_ctx_release(shmem_team_t team)
{
    if (team != SHMEM_TEAM_INVALID)
        __atomic_sub_fetch(&team->n_ctx, 1, __ATOMIC_RELAXED);
}

int shmi_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    shmi_require_init("shmem_team_create_ctx");
    if (ctx == NULL)
        return -1;
    if (shmi_team_check("shmem_team_create_ctx", team)) {
        *ctx = SHMEM_CTX_INVALID;
        return -1;
    }
    return shmi_ctx_new(team, options, ctx) == 0 ? 0 : -1;
}

int shmi_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    shmi_require_init("shmem_ctx_get_team");
    if (team == NULL)
        return -1;
    if (ctx == SHMEM_CTX_INVALID) {
        *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    if (ctx->destroyed)
        shmi_ctx_bad_destroyed("shmem_ctx_get_team", ctx);
    *team = ctx->team;
    return 0;
}
