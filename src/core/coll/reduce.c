/*
 * Reductions (all-reduce: every member gets the result) and prefix scans.
 *
 * Reduction: recursive doubling in chunks of SHMI_COLL_CHUNK bytes (a chunk
 * of at most SHMI_COLL_TAGGED bytes travels in tagged rounds, see
 * shmi_reduce_chunk). In round
 * k each PE sends its partial result to the PE whose number differs in bit k
 * and combines what it receives; after log2(p) rounds all p PEs hold the
 * same value, bit for bit, because each combination a op b is computed on
 * both sides of a symmetric tree and the operators are commutative. With a
 * team size n that is not a power of two p, PE p+i first folds its data into
 * PE i and gets the result back at the end (2 extra steps for those).
 * Nothing is written to the user's dest by other PEs, so dest and src need
 * not be symmetric here (the team creation code relies on this). Large
 * arrays go to the sliced algorithm (reduce_slices.c), through a symmetric
 * copy when they are not symmetric themselves; a team
 * that spans several nodes reduces inside each node first (two-level).
 * dest and src may be device memory: the chunks are copied to and from the
 * host buffers through the device back end (shmi_coll_copy), and the
 * sliced algorithm moves them with the core's get/put.
 *
 * Scan: Hillis-Steele over the team order, ceil(log2 n) rounds: in round k
 * PE i sends its running partial to PE i+2^k. PE 0 never waits for anyone,
 * so each chunk starts with a sync that keeps it from running ahead into
 * buffers still being read.
 */
#include "config.h"

#include <string.h>

#include "core/coll/coll.h"
#include "core/heap/heap.h"
#include "core/segment.h"

typedef struct shmi_reduce_step {
    struct shmem_impl_team *t;
    shmi_coll_slot_t *s;
    int par;       /* buffer parity of this chunk */
    int kind;      /* SHMI_SIG_REDUCE or SHMI_SIG_SCAN */
    size_t nbytes; /* bytes in this chunk */
    uint64_t tag;  /* tagged rounds: the chunk's number; 0: counting flags */
    size_t span;   /* tagged rounds: bytes of each buffer written */
} shmi_reduce_step_t;

/* Sends nbytes of buf into round r's buffer on team PE to. */
static void shmi_step_send(const shmi_reduce_step_t *st, int r, const void *buf,
                           int to)
{
    int wpe = shmi_team_world_pe(st->t, to);

    if (st->tag) {
        shmi_coll_tagged_send(&st->s->tagged[st->tag % 2][r], buf, st->nbytes,
                              st->span, st->tag, wpe);
        return;
    }
    shmi_coll_put_signal(st->s->buf[st->par][r], buf, st->nbytes,
                         &st->s->sig[st->par][st->kind][r], wpe);
}

/* Waits for round r's data; returns where it is. */
static const void *shmi_step_recv(const shmi_reduce_step_t *st, int r)
{
    if (st->tag)
        return shmi_coll_tagged_wait(&st->s->tagged[st->tag % 2][r],
                                     st->span, st->tag);
    shmi_coll_flag_take(&st->s->sig[st->par][st->kind][r], 1);
    return st->s->buf[st->par][r];
}

typedef struct shmi_reduce_arg {
    unsigned char *acc; /* this PE's partial result, in and out */
    size_t cnt;         /* elements in the chunk */
    shmi_dtype_t dt;
    shmi_op_t op;
} shmi_reduce_arg_t;

/* Member i of a group: team PE mem[i], or i when mem is NULL. */
static int shmi_member(const int *mem, int i)
{
    return mem ? mem[i] : i;
}

/* Recursive doubling among the n members mem (this PE is member me), on
 * rounds rbase.. and the fold buffers. */
static void shmi_reduce_doubling(const shmi_reduce_step_t *st, const int *mem,
                                 int n, int me, int rbase,
                                 const shmi_reduce_arg_t *a)
{
    int p = shmi_coll_pow2_floor(n);

    if (me >= p) {
        shmi_step_send(st, SHMI_COLL_FOLD_IN, a->acc, shmi_member(mem, me - p));
        memcpy(a->acc, shmi_step_recv(st, SHMI_COLL_FOLD_OUT), st->nbytes);
        return;
    }
    if (me + p < n)
        shmi_reduce_apply(a->op, a->dt, a->acc,
                          shmi_step_recv(st, SHMI_COLL_FOLD_IN), a->cnt);
    for (int k = 0, d = 1; d < p; k++, d <<= 1) {
        shmi_step_send(st, rbase + k, a->acc, shmi_member(mem, me ^ d));
        shmi_reduce_apply(a->op, a->dt, a->acc, shmi_step_recv(st, rbase + k),
                          a->cnt);
    }
    if (me + p < n)
        shmi_step_send(st, SHMI_COLL_FOLD_OUT, a->acc,
                       shmi_member(mem, me + p));
}

/* Rounds of the node phase of the two-level reduction; the leaders' phase
 * uses the next ones, then the fold buffers. */
#define SHMI_REDUCE_NODE_ROUNDS 11

/*
 * Two-level: a binomial-tree reduction to the leader inside each node
 * (round k carries the child at distance 2^k), recursive doubling among the
 * node leaders, and the result sent back down the node's tree (in the
 * FOLD_OUT buffer, which only leaders use in the leaders' phase). Only the
 * leaders' phase crosses nodes.
 */
static void shmi_reduce_twolevel(const shmi_reduce_step_t *st,
                                 const shmi_team_topo_t *o,
                                 const shmi_reduce_arg_t *a)
{
    int i = o->node_idx, m = o->n_local;
    int low = i ? (i & -i) : shmi_coll_pow2_floor(m) * 2;
    int k = 0, d;

    for (d = 1; d < low && i + d < m; d <<= 1, k++)
        shmi_reduce_apply(a->op, a->dt, a->acc, shmi_step_recv(st, k), a->cnt);
    if (i != 0) {
        shmi_step_send(st, shmi_coll_log2_ceil(low), a->acc, o->node[i - low]);
        memcpy(a->acc, shmi_step_recv(st, SHMI_COLL_FOLD_OUT), st->nbytes);
    } else {
        shmi_reduce_doubling(st, o->leaders, o->n_leaders, o->leader_idx,
                             SHMI_REDUCE_NODE_ROUNDS, a);
    }
    for (d = 1; d < low && i + d < m; d <<= 1)
        shmi_step_send(st, SHMI_COLL_FOLD_OUT, a->acc, o->node[i + d]);
}

/* 1 when the two-level reduction fits the team's shape and the rounds.
 * Auto takes it across nodes, and on one node too when the job crowds its
 * cores (shmi_coll_algo.crowded, alike on every PE): as for the barrier
 * (barrier.c), the tree wakes half the PEs (its leaves) twice, to send
 * and to take the result, where recursive doubling needs every PE in each
 * of its log2 n rounds in turn. */
static int shmi_reduce_use_twolevel(const struct shmem_impl_team *t)
{
    const shmi_team_topo_t *o = &t->topo;
    int fits = o->node != NULL &&
               (o->n_leaders > 1 || shmi_coll_algo.crowded) &&
               o->n_local <= (1 << (SHMI_REDUCE_NODE_ROUNDS - 1)) &&
               shmi_coll_log2_ceil(o->n_leaders) <=
                   SHMI_COLL_FOLD_IN - SHMI_REDUCE_NODE_ROUNDS;

    if (!fits || shmi_coll_algo.reduce == SHMI_REDUCE_DOUBLING)
        return 0;
    return shmi_coll_algo.reduce == SHMI_REDUCE_TWOLEVEL ||
           o->n_leaders < t->n_pes;
}

/* A chunk of at most SHMI_COLL_TAGGED bytes goes in tagged rounds: its
 * data and the reduction's number in one write, one wait for the number
 * (coll.h, shmi_coll_tagged_t), where counting flags take the data and a
 * signal that the target must be told of. The number follows the same
 * argument as the barrier's (barrier.c): every member numbers the tagged
 * reductions of a slot alike (their sizes agree), a reduction depends on
 * every member, so the write of number j into buffer [j % 2] lands only
 * after the reader has taken j - 2 there. Active sets keep the counting
 * flags: their temporary teams share a slot whatever their members. */
static void shmi_reduce_chunk(struct shmem_impl_team *t, unsigned char *acc,
                              size_t cnt, shmi_dtype_t dt, shmi_op_t op)
{
    shmi_reduce_step_t st = {t, shmi_coll_slot(t->slot), 0, SHMI_SIG_REDUCE,
                             cnt * shmi_dtype_size(dt), 0, 0};
    shmi_reduce_arg_t a = {acc, cnt, dt, op};

    if (st.nbytes <= SHMI_COLL_TAGGED &&
        t->slot != SHMI_TEAM_SLOT_ACTIVE_SET) {
        st.tag = shmi_coll_tag_next(t->slot);
        st.span = shmi_coll_tagged_span(st.nbytes, shmi_dtype_size(dt));
    } else {
        st.par = shmi_coll_begin(t, SHMI_SIG_REDUCE);
    }
    if (shmi_reduce_use_twolevel(t))
        shmi_reduce_twolevel(&st, &t->topo, &a);
    else
        shmi_reduce_doubling(&st, NULL, t->n_pes, t->my_pe, 0, &a);
}

/* The sliced algorithm pays two syncs: 0 when not chosen, 1 on the
 * user's arrays (both symmetric), 2 through a symmetric copy (internal
 * callers pass private arrays, always below the threshold; a program that
 * passes large private ones is not conforming, but gets the same speed). */
static int shmi_reduce_use_slices(void *dest, const void *src, size_t nbytes)
{
    shmi_reduce_alg_t a = shmi_coll_algo.reduce;
    size_t off;

    if (a == SHMI_REDUCE_DOUBLING || a == SHMI_REDUCE_TWOLEVEL || nbytes == 0)
        return 0;
    if (a == SHMI_REDUCE_AUTO && nbytes < shmi_coll_algo.large)
        return 0;
    if (shmi_seg_lookup(dest, nbytes, &off) >= 0 &&
        shmi_seg_lookup(src, nbytes, &off) >= 0)
        return 1;
    return 2;
}

/* Slices through a symmetric copy of src; 0, or -1 when the heap has no
 * room (alike on every PE: the same sequence of allocations everywhere). */
static int shmi_reduce_slices_copy(struct shmem_impl_team *t, void *dest,
                                   const void *src, size_t nelems,
                                   shmi_dtype_t dt, shmi_op_t op)
{
    size_t nbytes = nelems * shmi_dtype_size(dt);
    void *tmp = shmi_heap_alloc(nbytes, 64);

    if (tmp == NULL)
        return -1;
    shmi_coll_copy(tmp, src, nbytes);
    shmi_coll_reduce_slices(t, tmp, tmp, nelems, dt, op);
    shmi_coll_copy(dest, tmp, nbytes);
    shmi_heap_free("shmem_reduce", tmp);
    return 0;
}

void shmi_coll_reduce(struct shmem_impl_team *t, void *dest, const void *src,
                      size_t nelems, shmi_dtype_t dt, shmi_op_t op)
{
    size_t esz = shmi_dtype_size(dt);
    size_t per = SHMI_COLL_CHUNK / esz;
    unsigned char acc[SHMI_COLL_CHUNK] __attribute__((aligned(16)));

    int dev;

    if (t->n_pes == 1) {
        shmi_coll_copy(dest, src, nelems * esz);
        return;
    }
    if (shmi_coll_reduce_device_ok(dest, src, nelems * esz, dt, op)) {
        shmi_coll_reduce_device(shmi_coll_routine(), shmi_coll_exec_self(), t,
                                dest, src, nelems, dt, op);
        return;
    }
    switch (shmi_reduce_use_slices(dest, src, nelems * esz)) {
    case 1:
        shmi_coll_reduce_slices(t, dest, src, nelems, dt, op);
        return;
    case 2:
        if (shmi_reduce_slices_copy(t, dest, src, nelems, dt, op) == 0)
            return;
        break;
    default: break;
    }
    dev = shmi_coll_device(dest, src, nelems * esz);
    for (size_t at = 0; at < nelems; at += per) {
        size_t cnt = nelems - at < per ? nelems - at : per;

        shmi_coll_copy_piece(dev, acc, (const char *)src + at * esz, cnt * esz);
        shmi_reduce_chunk(t, acc, cnt, dt, op);
        shmi_coll_copy_piece(dev, (char *)dest + at * esz, acc, cnt * esz);
    }
}

/*
 * One chunk of the scan. incl holds this PE's data on entry and its
 * inclusive prefix on return; excl receives the exclusive prefix (PE 0: the
 * operator's identity).
 */
static void shmi_scan_chunk(struct shmem_impl_team *t, unsigned char *incl,
                            unsigned char *excl, size_t cnt, shmi_dtype_t dt,
                            shmi_op_t op)
{
    shmi_reduce_step_t st = {t, shmi_coll_slot(t->slot), 0, SHMI_SIG_SCAN,
                             cnt * shmi_dtype_size(dt), 0, 0};
    int n = t->n_pes, me = t->my_pe;
    int have_excl = 0;

    st.par = shmi_coll_begin(t, SHMI_SIG_SCAN);
    shmi_coll_barrier(t);
    for (int k = 0, d = 1; d < n; k++, d <<= 1) {
        const void *in;

        if (me + d < n)
            shmi_step_send(&st, k, incl, me + d);
        if (me - d < 0)
            continue;
        in = shmi_step_recv(&st, k);
        /* in covers PEs [me-2d+1, me-d], incl covers [me-d+1, me]. */
        if (have_excl) {
            shmi_reduce_apply(op, dt, excl, in, cnt);
        } else {
            memcpy(excl, in, st.nbytes);
            have_excl = 1;
        }
        shmi_reduce_apply(op, dt, incl, in, cnt);
    }
    if (!have_excl)
        shmi_reduce_identity(op, dt, excl, cnt);
}

void shmi_coll_scan(struct shmem_impl_team *t, void *dest, const void *src,
                    size_t nelems, shmi_dtype_t dt, shmi_op_t op, int exclusive)
{
    size_t esz = shmi_dtype_size(dt);
    size_t per = SHMI_COLL_CHUNK / esz;
    unsigned char incl[SHMI_COLL_CHUNK] __attribute__((aligned(16)));
    unsigned char excl[SHMI_COLL_CHUNK] __attribute__((aligned(16)));
    int dev = shmi_coll_device(dest, src, nelems * esz);

    for (size_t at = 0; at < nelems; at += per) {
        size_t cnt = nelems - at < per ? nelems - at : per;

        shmi_coll_copy_piece(dev, incl, (const char *)src + at * esz,
                             cnt * esz);
        shmi_scan_chunk(t, incl, excl, cnt, dt, op);
        shmi_coll_copy_piece(dev, (char *)dest + at * esz,
                             exclusive ? excl : incl, cnt * esz);
    }
}
