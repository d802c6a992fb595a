/*
 * Broadcast: binomial tree rooted at the root, data pushed straight into the
 * children's dest with a put-with-signal; ceil(log2 n) steps.
 *
 * A broadcast root depends on nobody, so without care it could run any
 * number of broadcasts ahead of a slow PE, and a later broadcast's signal
 * (from a different parent, when the root differs) could be taken for the
 * earlier one's. A sync on entry bounds that: no PE sends broadcast e's data
 * before every member has entered broadcast e, i.e. taken all of e-1's.
 *
 * Large messages (SHMEM_COLL_LARGE and up, or SHMEM_BCAST_ALGORITHM=pull)
 * are pulled by every PE from the root's source instead; a team that spans
 * several nodes uses a two-level tree (node leaders, then node members).
 * dest and src may be in the device heap: data moves between PEs by the
 * core's put/get and locally by shmi_coll_copy, never by a host load.
 */
#include "config.h"

#include "core/coll/coll.h"
#include "core/segment.h"

/*
 * Sends what this PE holds (buf) to its children in the binomial tree over
 * n members rooted at member root, this PE being member (vrank + root) % n.
 * Member i is team PE members[i], or i when members is NULL.
 */
static void shmi_bcast_forward(struct shmem_impl_team *t, const int *members,
                               int n, void *dest, const void *buf,
                               size_t nbytes, int root, int vrank,
                               uint64_t *flag)
{
    int low = vrank ? (vrank & -vrank) : shmi_coll_pow2_floor(n) * 2;

    /* Farthest child first: its subtree is the largest. */
    for (int d = low >> 1; d >= 1; d >>= 1) {
        int child = (vrank + d + root) % n;

        if (vrank + d >= n)
            continue;
        shmi_coll_put_signal(
            dest, buf, nbytes, flag,
            shmi_team_world_pe(t, members ? members[child] : child));
    }
}

/*
 * root_dest: 1 when the root's own dest receives the data too (team form);
 * the active-set form leaves the root's dest alone.
 */
static void shmi_bcast_tree(struct shmem_impl_team *t, void *dest,
                            const void *src, size_t nbytes, int root,
                            int root_dest)
{
    shmi_coll_slot_t *s = shmi_coll_slot(t->slot);
    uint64_t *flag = &s->sig[0][SHMI_SIG_BCAST][0];
    int n = t->n_pes;
    int vrank = (t->my_pe - root + n) % n;

    if (vrank == 0) {
        if (root_dest)
            shmi_coll_copy(dest, src, nbytes);
        shmi_bcast_forward(t, NULL, n, dest, src, nbytes, root, 0, flag);
        return;
    }
    shmi_coll_flag_take(flag, 1);
    shmi_bcast_forward(t, NULL, n, dest, dest, nbytes, root, vrank, flag);
}

static int shmi_bcast_leader_index(const shmi_team_topo_t *o, int pe)
{
    for (int i = 0; i < o->n_leaders; i++)
        if (o->leaders[i] == pe)
            return i;
    return 0;
}

/*
 * Two-level: the root hands the data to its node's leader, a binomial tree
 * among the node leaders carries it between nodes (one copy per node), and
 * each leader pushes it to the other members of its node. Each flag still
 * has one sender per broadcast: [2] root to leader, [0] the leader tree,
 * [3] leader to node members.
 */
static void shmi_bcast_twolevel(struct shmem_impl_team *t, void *dest,
                                const void *src, size_t nbytes, int root,
                                int root_dest)
{
    const shmi_team_topo_t *o = &t->topo;
    uint64_t *f = shmi_coll_slot(t->slot)->sig[0][SHMI_SIG_BCAST];
    int me = t->my_pe, rl = o->leader_of[root], L = o->n_leaders;
    const void *buf = me == root ? src : dest;

    if (me == root && root_dest)
        shmi_coll_copy(dest, src, nbytes);
    if (me == root && rl != root)
        shmi_coll_put_signal(dest, src, nbytes, &f[2],
                             shmi_team_world_pe(t, rl));
    if (o->leader_idx < 0) {
        if (me != root)
            shmi_coll_flag_take(&f[3], 1);
        return;
    }
    int ri = shmi_bcast_leader_index(o, rl);
    int vrank = (o->leader_idx - ri + L) % L;
    if (me == rl && rl != root)
        shmi_coll_flag_take(&f[2], 1);
    else if (vrank != 0)
        shmi_coll_flag_take(&f[0], 1);
    shmi_bcast_forward(t, o->leaders, L, dest, buf, nbytes, ri, vrank, &f[0]);
    for (int i = 0; i < o->n_local - 1; i++)
        if (o->local[i] != root)
            shmi_coll_put_signal(dest, buf, nbytes, &f[3],
                                 shmi_team_world_pe(t, o->local[i]));
}

/*
 * Pull: every PE reads the root's (symmetric) source at once, then tells
 * the root it is done, so that the root returns only when its source may be
 * reused. One step of n-1 parallel copies: on a node, where a get is a
 * memcpy from the root's mapping, this beats log2(n) store-and-forward hops
 * for large messages.
 */
static void shmi_bcast_pull(struct shmem_impl_team *t, void *dest,
                            const void *src, size_t nbytes, int root,
                            int root_dest)
{
    uint64_t *done = &shmi_coll_slot(t->slot)->sig[0][SHMI_SIG_BCAST][1];
    int wroot = shmi_team_world_pe(t, root);

    if (t->my_pe != root) {
        size_t off;
        int seg = shmi_coll_at(src, nbytes, &off);

        shmi_eng_get("shmem_broadcast", shmi_coll_ctx(), wroot, seg, off,
                     dest, nbytes, 0);
        shmi_coll_flag_add(done, wroot);
        return;
    }
    if (root_dest)
        shmi_coll_copy(dest, src, nbytes);
    shmi_coll_flag_take(done, (uint64_t)t->n_pes - 1);
}

/* The algorithm of this call (never SHMI_BCAST_AUTO). */
static shmi_bcast_alg_t shmi_bcast_pick(const struct shmem_impl_team *t,
                                        const void *src, size_t nbytes)
{
    const shmi_team_topo_t *o = &t->topo;
    shmi_bcast_alg_t a = shmi_coll_algo.bcast;
    size_t off;

    if (o->leaders == NULL && a == SHMI_BCAST_TWOLEVEL)
        return SHMI_BCAST_TREE; /* active sets have no node grouping */
    if (a != SHMI_BCAST_AUTO)
        return a == SHMI_BCAST_PULL && shmi_seg_lookup(src, nbytes, &off) < 0
                   ? SHMI_BCAST_TREE
                   : a;
    if (nbytes >= shmi_coll_algo.large &&
        shmi_seg_lookup(src, nbytes, &off) >= 0)
        return SHMI_BCAST_PULL;
    if (o->leaders != NULL && o->n_leaders > 1 && o->n_leaders < t->n_pes)
        return SHMI_BCAST_TWOLEVEL;
    return SHMI_BCAST_TREE;
}

static void shmi_bcast_run(struct shmem_impl_team *t, void *dest,
                           const void *src, size_t nbytes, int root,
                           int root_dest)
{
    switch (shmi_bcast_pick(t, src, nbytes)) {
    case SHMI_BCAST_PULL:
        shmi_bcast_pull(t, dest, src, nbytes, root, root_dest);
        break;
    case SHMI_BCAST_TWOLEVEL:
        shmi_bcast_twolevel(t, dest, src, nbytes, root, root_dest);
        break;
    default: shmi_bcast_tree(t, dest, src, nbytes, root, root_dest); break;
    }
}

void shmi_coll_broadcast(struct shmem_impl_team *t, void *dest, const void *src,
                         size_t nbytes, int root)
{
    if (t->n_pes == 1) {
        shmi_coll_copy(dest, src, nbytes);
        return;
    }
    shmi_coll_barrier(t);
    shmi_bcast_run(t, dest, src, nbytes, root, 1);
}

/* Active-set form: the caller already synchronised the set. */
void shmi_coll_broadcast_as(struct shmem_impl_team *t, void *dest,
                            const void *src, size_t nbytes, int root)
{
    if (t->n_pes == 1)
        return;
    shmi_bcast_run(t, dest, src, nbytes, root, 0);
}
