/*
 * Teams: struct shmem_impl_team behind shmem_team_t, and what the team and
 * collective code exports to the rest of the core.
 *
 * SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED are the addresses of
 * shmem_impl_team_world and shmem_impl_team_shared; SHMEM_TEAM_INVALID is
 * NULL. A team handle exists only on the PEs that are members of the team.
 *
 * Every team owns one "slot": an index into symmetric per-team collective
 * state (struct shmi_coll_slot, src/core/coll/coll.h) that all members
 * agree on when the team is created. Slot 0 is the world team, slot 1 the
 * shared team, slot 2 is used by the deprecated active-set routines; the
 * others are handed out deterministically at team creation.
 */
#ifndef SHMI_TEAM_H
#define SHMI_TEAM_H

#include <stdint.h>

#include "shmem.h"

/*
 * The team's members grouped by node, for the two-level (hierarchical)
 * algorithms: each node's lowest team PE is its leader. Filled at creation
 * by team_topo.c; the arrays are owned by the team.
 */
typedef struct shmi_team_topo {
    int n_leaders;  /* nodes the team spans */
    int *leaders;   /* team PE of each node's leader, ascending */
    int my_leader;  /* team PE of the leader of this PE's node */
    int leader_idx; /* this PE's index in leaders[], -1 when not a leader */
    int n_local;    /* members on this PE's node, itself included */
    int *local;     /* leaders only: the n_local - 1 other members of the
                       node (team PEs); NULL otherwise */
    int *node;      /* the n_local members of this PE's node, ascending
                       (node[0] is the leader) */
    int node_idx;   /* this PE's index in node[] */
    int *leader_of; /* n_pes entries: team PE of the leader of each team
                       PE's node */
} shmi_team_topo_t;

struct shmem_impl_team {
    int n_pes;  /* number of member PEs */
    int my_pe;  /* this PE's number in the team, 0..n_pes-1 */
    int start;  /* world PE of team PE 0 when strided (pes == NULL) */
    int stride; /* world PE of team PE i is start + i * stride (pes == NULL) */
    int *pes;   /* world PE of every team PE when the team is not strided in
                   the world (descendants of SHMEM_TEAM_SHARED); NULL else */
    int slot;   /* index of the team's symmetric collective state */
    uint64_t op_count[4];       /* collectives run on this team so far, per flag
                             family of src/core/coll/coll.h (the same on all
                             members: they call the team's collectives in
                             the same order); picks the buffer parity */
    shmi_team_topo_t topo;      /* the team's members grouped by node */
    shmem_team_config_t config; /* configuration asked for at creation */
    long config_mask;           /* which fields of config were given */
    int n_ctx;                  /* contexts currently created on the team */
    int predefined;             /* world or shared: never destroyed */
    int destroyed;              /* 1 after shmem_team_destroy: the handle is
                                   kept until shmem_finalize so that a later
                                   use is an error naming the routine */
    struct shmem_impl_team *dead_next; /* list of destroyed teams (team_api.c) */
    /* The team's lane of nonblocking collectives (src/core/coll/nbc.h),
     * NULL until one is posted on the team, and how many posted ones have
     * not run to their end yet (atomic): a blocking collective on the team
     * waits for them first. */
    struct shmi_nbc_lane *nb_lane;
    unsigned long nb_inflight;
};

extern struct shmem_impl_team shmem_impl_team_world;
extern struct shmem_impl_team shmem_impl_team_shared;

/* Number of team slots (including the three reserved ones). */
#define SHMI_TEAM_SLOTS           32
#define SHMI_TEAM_SLOT_WORLD      0
#define SHMI_TEAM_SLOT_SHARED     1
#define SHMI_TEAM_SLOT_ACTIVE_SET 2

/* World PE number of team PE pe; -1 when pe is outside 0..n_pes-1 or team is
 * SHMEM_TEAM_INVALID. Used by shmem_team_ptr and the collectives. */
int shmi_team_translate_to_world(shmem_team_t team, int pe);

/* Team PE number of world PE wpe in team, or -1 when not a member. */
int shmi_team_translate_from_world(shmem_team_t team, int wpe);

/* World PE of team PE pe, for pe known to be valid (hot path). */
static inline int shmi_team_world_pe(const struct shmem_impl_team *t, int pe)
{
    return t->pes ? t->pes[pe] : t->start + pe * t->stride;
}

/* Barrier over team without the quiet (shmem_team_sync semantics); team must
 * be valid. Used by team creation and by the collectives. */
void shmi_team_sync_internal(struct shmem_impl_team *team);

/* Groups team's members by node (team_topo.c); 0 or SHMI_ENOMEM. The node
 * of a world PE is shmi_state.boot.node_of_pe[], or, when
 * SHMEM_COLL_NODE_PES=k > 0 (for tests), consecutive blocks of k PEs. */
int shmi_team_topo_init(struct shmem_impl_team *team);
void shmi_team_topo_fini(struct shmem_impl_team *team);

/* Fatal, naming routine, when team was destroyed (shmem_team_destroy);
 * returns 1 when team is SHMEM_TEAM_INVALID, 0 for a usable team. */
int shmi_team_check(const char *routine, shmem_team_t team);

/* Called by shmi_ctx_new/ctx destroy to account contexts per team against
 * the team's num_contexts configuration: 0, or nonzero when the team has no
 * more contexts to give. */
int shmi_team_ctx_acquire(shmem_team_t team);
void shmi_team_ctx_release(shmem_team_t team);

/* 1 after shmi_teams_init succeeded (collectives may run on the fabric);
 * before that shmi_barrier_all falls back to the bootstrap's fence. */
extern int shmi_teams_ready;

#endif /* SHMI_TEAM_H */
