/*
 * Runs the generated typed wrappers (src/api/gen/) against a stand-in core
 * that records each call, and checks what every wrapper passes down: the
 * public routine name, the context, byte counts and element sizes, the
 * datatype tag, the atomic, wait and reduction kinds, and that values come
 * back (g, fetching atomics, team collectives' return codes).  Built and run
 * by tests/api/wrappers.sh; needs no network and no launcher.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmem.h"
#include "core/core_api.h"
#include "core/core_decl.h"
#include "typed_lists.h"

struct shmem_impl_ctx {
    int id;
};
struct shmem_impl_team {
    int id;
};
struct shmem_impl_ctx shmem_impl_ctx_default;
struct shmem_impl_team shmem_impl_team_world, shmem_impl_team_shared;
shmem_ctx_t const shmem_impl_ctx_default_handle = &shmem_impl_ctx_default;
shmem_team_t const shmem_impl_team_world_handle = &shmem_impl_team_world;
shmem_team_t const shmem_impl_team_shared_handle = &shmem_impl_team_shared;

/* The last call into the stand-in core. */
static struct {
    const char *routine;
    shmem_ctx_t ctx;
    shmem_team_t team;
    void *dest;
    const void *src;
    size_t nbytes, nelems, elem_size, bsize, nblocks;
    ptrdiff_t dst, sst;
    int pe, nbi, blocking, values_vector, exclusive, root, sig_op;
    int amo_op, op, kind, cmp;
    shmi_dtype_t dt;
    const void *operand, *compare, *values;
    void *fetched;
    size_t *indices;
    const int *status;
    uint64_t *sig_addr;
    uint64_t signal;
    /* Copies taken during the call: operands may live on the wrapper's
     * stack, which is gone once it returns. */
    _Alignas(16) unsigned char src_copy[32];
    _Alignas(16) unsigned char operand_copy[32];
    _Alignas(16) unsigned char compare_copy[32];
    _Alignas(16) unsigned char value_copy[32];
} last;
static int failures, checks;

#define EXPECT(cond)                                                          \
    do {                                                                      \
        checks++;                                                             \
        if (!(cond)) {                                                        \
            fprintf(stderr, "line %d: %s: %s\n", __LINE__, last.routine,     \
                    #cond);                                                   \
            failures++;                                                       \
        }                                                                     \
    } while (0)

static void reset(void)
{
    memset(&last, 0, sizeof last);
    last.routine = "(no call)";
}

/* ---- stand-in core: records, and does local copies where values return -- */

static void rec_rma(const char *r, shmem_ctx_t ctx, void *d, const void *s,
                    size_t n, int pe, int nbi)
{
    last.routine = r, last.ctx = ctx, last.dest = d, last.src = s;
    last.nbytes = n, last.pe = pe, last.nbi = nbi;
    if (s && n <= sizeof last.src_copy)
        memcpy(last.src_copy, s, n);
}
void shmi_put(const char *r, shmem_ctx_t ctx, void *d, const void *s,
              size_t n, int pe)
{
    rec_rma(r, ctx, d, s, n, pe, 0);
}
void shmi_put_nbi(const char *r, shmem_ctx_t ctx, void *d, const void *s,
                  size_t n, int pe)
{
    rec_rma(r, ctx, d, s, n, pe, 1);
}
void shmi_get(const char *r, shmem_ctx_t ctx, void *d, const void *s,
              size_t n, int pe)
{
    rec_rma(r, ctx, d, s, n, pe, 0);
    memcpy(d, s, n); /* so that shmem_g returns the source value */
}
void shmi_p(const char *r, shmem_ctx_t ctx, void *d, uint64_t bits, size_t n,
            int pe)
{
    rec_rma(r, ctx, d, &bits, n, pe, 0); /* the value is in src_copy */
}
uint64_t shmi_g(const char *r, shmem_ctx_t ctx, const void *s, size_t n,
                int pe)
{
    uint64_t bits = 0;

    rec_rma(r, ctx, NULL, s, n, pe, 0);
    memcpy(&bits, s, n); /* so that shmem_g returns the source value */
    return bits;
}
void shmi_get_nbi(const char *r, shmem_ctx_t ctx, void *d, const void *s,
                  size_t n, int pe)
{
    rec_rma(r, ctx, d, s, n, pe, 1);
}
static void rec_strided(const char *r, shmem_ctx_t ctx, void *d, const void *s,
                        ptrdiff_t dst, ptrdiff_t sst, size_t es, int pe)
{
    rec_rma(r, ctx, d, s, 0, pe, 0);
    last.dst = dst, last.sst = sst, last.elem_size = es;
}
void shmi_iput(const char *r, shmem_ctx_t ctx, void *d, const void *s,
               ptrdiff_t dst, ptrdiff_t sst, size_t n, size_t es, int pe)
{
    rec_strided(r, ctx, d, s, dst, sst, es, pe);
    last.nelems = n;
}
void shmi_iget(const char *r, shmem_ctx_t ctx, void *d, const void *s,
               ptrdiff_t dst, ptrdiff_t sst, size_t n, size_t es, int pe)
{
    shmi_iput(r, ctx, d, s, dst, sst, n, es, pe);
}
void shmi_ibput(const char *r, shmem_ctx_t ctx, void *d, const void *s,
                ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,
                size_t es, int pe)
{
    rec_strided(r, ctx, d, s, dst, sst, es, pe);
    last.bsize = bsize, last.nblocks = nblocks;
}
void shmi_ibget(const char *r, shmem_ctx_t ctx, void *d, const void *s,
                ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,
                size_t es, int pe)
{
    shmi_ibput(r, ctx, d, s, dst, sst, bsize, nblocks, es, pe);
}
static void rec_amo(const char *r, shmem_ctx_t ctx, shmi_amo_op_t op,
                    shmi_dtype_t dt, void *d, const void *operand,
                    const void *compare, void *fetched, int pe, int nbi)
{
    last.routine = r, last.ctx = ctx, last.amo_op = op, last.dt = dt;
    last.dest = d, last.operand = operand, last.compare = compare;
    last.fetched = fetched, last.pe = pe, last.nbi = nbi;
    if (operand)
        memcpy(last.operand_copy, operand, shmi_dtype_size(dt));
    if (compare)
        memcpy(last.compare_copy, compare, shmi_dtype_size(dt));
    if (fetched)
        memcpy(fetched, d, shmi_dtype_size(dt)); /* old value comes back */
}
void shmi_amo(const char *r, shmem_ctx_t ctx, shmi_amo_op_t op,
              shmi_dtype_t dt, void *d, const void *operand,
              const void *compare, void *fetched, int pe)
{
    rec_amo(r, ctx, op, dt, d, operand, compare, fetched, pe, 0);
}
void shmi_amo_nbi(const char *r, shmem_ctx_t ctx, shmi_amo_op_t op,
                  shmi_dtype_t dt, void *d, const void *operand,
                  const void *compare, void *fetched, int pe)
{
    rec_amo(r, ctx, op, dt, d, operand, compare, fetched, pe, 1);
}
void shmi_put_signal(const char *r, shmem_ctx_t ctx, void *d, const void *s,
                     size_t n, uint64_t *sig_addr, uint64_t signal, int sig_op,
                     int pe, int nbi)
{
    rec_rma(r, ctx, d, s, n, pe, nbi);
    last.sig_addr = sig_addr, last.signal = signal, last.sig_op = sig_op;
}
size_t shmi_wait(const char *r, shmi_wait_kind_t kind, shmi_dtype_t dt,
                 volatile void *ivars, size_t nelems, const int *status,
                 int cmp, const void *values, int values_vector,
                 size_t *indices, int blocking)
{
    last.routine = r, last.kind = kind, last.dt = dt;
    last.dest = (void *)ivars, last.nelems = nelems, last.status = status;
    last.cmp = cmp, last.values = values, last.values_vector = values_vector;
    last.indices = indices, last.blocking = blocking;
    memcpy(last.value_copy, values, shmi_dtype_size(dt));
    return 3;
}
static int rec_team(const char *r, shmem_team_t team, void *d, const void *s)
{
    last.routine = r, last.team = team, last.dest = d, last.src = s;
    return 5;
}
int shmi_team_reduce(const char *r, shmem_team_t team, void *d, const void *s,
                     size_t n, shmi_dtype_t dt, shmi_op_t op)
{
    last.nelems = n, last.dt = dt, last.op = op;
    return rec_team(r, team, d, s);
}
int shmi_team_scan(const char *r, shmem_team_t team, void *d, const void *s,
                   size_t n, shmi_dtype_t dt, shmi_op_t op, int exclusive)
{
    last.exclusive = exclusive;
    return shmi_team_reduce(r, team, d, s, n, dt, op);
}
int shmi_team_broadcast(const char *r, shmem_team_t team, void *d,
                        const void *s, size_t n, int root)
{
    last.nbytes = n, last.root = root;
    return rec_team(r, team, d, s);
}
int shmi_team_collect(const char *r, shmem_team_t team, void *d, const void *s,
                      size_t n)
{
    last.nbytes = n;
    return rec_team(r, team, d, s);
}
int shmi_team_fcollect(const char *r, shmem_team_t team, void *d,
                       const void *s, size_t n)
{
    return shmi_team_collect(r, team, d, s, n);
}
int shmi_team_alltoall(const char *r, shmem_team_t team, void *d,
                       const void *s, size_t n)
{
    return shmi_team_collect(r, team, d, s, n);
}
int shmi_team_alltoalls(const char *r, shmem_team_t team, void *d,
                        const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n,
                        size_t es)
{
    last.dst = dst, last.sst = sst, last.nelems = n, last.elem_size = es;
    return rec_team(r, team, d, s);
}
void shmi_as_reduce(const char *r, void *d, const void *s, int n, int start,
                    int log_stride, int size, void *pwrk, long *psync,
                    shmi_dtype_t dt, shmi_op_t op)
{
    (void)start, (void)log_stride, (void)size, (void)pwrk, (void)psync;
    rec_team(r, NULL, d, s);
    last.nelems = (size_t)n, last.dt = dt, last.op = op;
}
/* Not exercised here: the active-set data movers and the untyped core. */
void shmi_as_broadcast(const char *r, void *d, const void *s, size_t n,
                       int root, int start, int ls, int size, long *p)
{
    (void)d, (void)s, (void)n, (void)root, (void)start, (void)ls, (void)size;
    (void)p, (void)r;
}
void shmi_as_collect(const char *r, void *d, const void *s, size_t n,
                     int start, int ls, int size, long *p)
{
    (void)d, (void)s, (void)n, (void)start, (void)ls, (void)size, (void)p;
    (void)r;
}
void shmi_as_fcollect(const char *r, void *d, const void *s, size_t n,
                      int start, int ls, int size, long *p)
{
    shmi_as_collect(r, d, s, n, start, ls, size, p);
}
void shmi_as_alltoall(const char *r, void *d, const void *s, size_t n,
                      int start, int ls, int size, long *p)
{
    shmi_as_collect(r, d, s, n, start, ls, size, p);
}
void shmi_as_alltoalls(const char *r, void *d, const void *s, ptrdiff_t dst,
                       ptrdiff_t sst, size_t n, size_t es, int start, int ls,
                       int size, long *p)
{
    (void)dst, (void)sst, (void)es;
    shmi_as_collect(r, d, s, n, start, ls, size, p);
}
uint64_t shmi_signal_fetch(const uint64_t *sig_addr) { return *sig_addr; }
uint64_t shmi_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t v)
{
    (void)cmp, (void)v;
    return *sig_addr;
}
void shmi_barrier_all(void) {}
void shmi_sync_all(void) {}
int shmi_team_sync(shmem_team_t team) { return team == NULL; }
void shmi_barrier(int start, int ls, int size, long *p)
{
    (void)start, (void)ls, (void)size, (void)p;
}
void shmi_sync(int start, int ls, int size, long *p)
{
    shmi_barrier(start, ls, size, p);
}

/* ---- checks, one function per type class ------------------------------ */

static struct shmem_impl_ctx other_ctx;
#define CTX (&other_ctx)
#define TEAM SHMEM_TEAM_SHARED
#define NAMED(n) (strcmp(last.routine, (n)) == 0)
/* The operand, compare value, wait value and source the core saw, as a T
 * (compared as values: long double has padding bytes). */
#define OPERAND(T) (*(const T *)(const void *)last.operand_copy)
#define COMPARE(T) (*(const T *)(const void *)last.compare_copy)
#define VALUE(T) (*(const T *)(const void *)last.value_copy)
#define SRC(T) (*(const T *)(const void *)last.src_copy)
/* The tag the wrapper passed names TYPENAME N and has the size of T. */
#define TAGGED(T, N)                                                          \
    (strcmp(shmi_dtype_table[last.dt].name, #N) == 0 &&                       \
     shmi_dtype_size(last.dt) == sizeof(T))

#define RMA(T, N)                                                             \
    {                                                                         \
        static T d[8], s[8] = {7};                                            \
        reset();                                                              \
        shmem_##N##_put(d, s, 3, 1);                                          \
        EXPECT(NAMED("shmem_" #N "_put") && last.ctx == SHMEM_CTX_DEFAULT);   \
        EXPECT(last.nbytes == 3 * sizeof(T) && last.pe == 1 && !last.nbi);    \
        EXPECT(last.dest == d && last.src == s);                              \
        shmem_ctx_##N##_get_nbi(CTX, d, s, 2, 0);                             \
        EXPECT(NAMED("shmem_ctx_" #N "_get_nbi") && last.ctx == CTX);         \
        EXPECT(last.nbytes == 2 * sizeof(T) && last.nbi == 1);                \
        shmem_ctx_##N##_p(CTX, d, s[0], 2);                                   \
        EXPECT(NAMED("shmem_ctx_" #N "_p") && last.nbytes == sizeof(T));      \
        EXPECT(SRC(T) == s[0] && last.pe == 2);      \
        EXPECT(shmem_##N##_g(s, 1) == s[0] && NAMED("shmem_" #N "_g"));       \
        shmem_##N##_iput(d, s, 2, 3, 4, 1);                                   \
        EXPECT(NAMED("shmem_" #N "_iput") && last.elem_size == sizeof(T));    \
        EXPECT(last.dst == 2 && last.sst == 3 && last.nelems == 4);           \
        shmem_ctx_##N##_ibget(CTX, d, s, 2, 3, 4, 5, 1);                      \
        EXPECT(NAMED("shmem_ctx_" #N "_ibget") && last.ctx == CTX);           \
        EXPECT(last.bsize == 4 && last.nblocks == 5 &&                        \
               last.elem_size == sizeof(T));                                  \
        shmem_ctx_##N##_put_signal_nbi(CTX, d, s, 2, &sig, 9,                 \
                                       SHMEM_SIGNAL_ADD, 1);                  \
        EXPECT(NAMED("shmem_ctx_" #N "_put_signal_nbi") && last.nbi == 1);    \
        EXPECT(last.nbytes == 2 * sizeof(T) && last.sig_addr == &sig);        \
        EXPECT(last.signal == 9 && last.sig_op == SHMEM_SIGNAL_ADD);          \
        EXPECT(shmem_##N##_alltoalls(TEAM, d, s, 2, 3, 4) == 5);              \
        EXPECT(last.team == TEAM && last.elem_size == sizeof(T));             \
        EXPECT(shmem_##N##_broadcast(TEAM, d, s, 3, 1) == 5);                 \
        EXPECT(NAMED("shmem_" #N "_broadcast"));                              \
        EXPECT(last.nbytes == 3 * sizeof(T) && last.root == 1);               \
    }

#define AMO_EXT(T, N)                                                         \
    {                                                                         \
        static T d = 5, f;                                                    \
        reset();                                                              \
        EXPECT(shmem_##N##_atomic_fetch(&d, 1) == 5);                         \
        EXPECT(last.amo_op == SHMI_AMO_FETCH && TAGGED(T, N));                \
        shmem_ctx_##N##_atomic_set(CTX, &d, 6, 0);                            \
        EXPECT(last.amo_op == SHMI_AMO_SET && last.ctx == CTX);               \
        EXPECT(OPERAND(T) == 6 && last.fetched == NULL);        \
        EXPECT(shmem_##N##_atomic_swap(&d, 8, 0) == 5);                       \
        EXPECT(last.amo_op == SHMI_AMO_SWAP && OPERAND(T) == 8); \
        shmem_ctx_##N##_atomic_swap_nbi(CTX, &f, &d, 4, 1);                   \
        EXPECT(NAMED("shmem_ctx_" #N "_atomic_swap_nbi") && last.nbi == 1);   \
        EXPECT(last.fetched == &f && last.dest == &d && TAGGED(T, N));        \
    }

#define AMO_STD(T, N)                                                         \
    {                                                                         \
        static T d = 5, f;                                                    \
        reset();                                                              \
        EXPECT(shmem_##N##_atomic_compare_swap(&d, 5, 9, 1) == 5);            \
        EXPECT(last.amo_op == SHMI_AMO_CSWAP && TAGGED(T, N));                \
        EXPECT(COMPARE(T) == 5 && OPERAND(T) == 9); \
        EXPECT(shmem_ctx_##N##_atomic_fetch_inc(CTX, &d, 0) == 5);            \
        EXPECT(last.amo_op == SHMI_AMO_FETCH_INC && last.operand == NULL);    \
        shmem_##N##_atomic_add(&d, 2, 0);                                     \
        EXPECT(last.amo_op == SHMI_AMO_ADD && OPERAND(T) == 2); \
        shmem_##N##_atomic_fetch_add_nbi(&f, &d, 3, 0);                       \
        EXPECT(last.amo_op == SHMI_AMO_FETCH_ADD && last.fetched == &f);      \
        EXPECT(last.nbi == 1 && NAMED("shmem_" #N "_atomic_fetch_add_nbi"));  \
    }

#define AMO_BIT(T, N)                                                         \
    {                                                                         \
        static T d = 5, f;                                                    \
        reset();                                                              \
        EXPECT(shmem_##N##_atomic_fetch_xor(&d, 1, 0) == 5);                  \
        EXPECT(last.amo_op == SHMI_AMO_FETCH_XOR && TAGGED(T, N));            \
        shmem_ctx_##N##_atomic_or(CTX, &d, 4, 0);                             \
        EXPECT(last.amo_op == SHMI_AMO_OR && OPERAND(T) == 4);  \
        shmem_##N##_atomic_fetch_and_nbi(&f, &d, 3, 0);                       \
        EXPECT(last.amo_op == SHMI_AMO_FETCH_AND && last.fetched == &f);      \
    }

#define AMO_DEP_STD(T, N)                                                     \
    {                                                                         \
        static T d = 5;                                                       \
        reset();                                                              \
        EXPECT(shmem_##N##_fadd(&d, 2, 1) == 5 && NAMED("shmem_" #N "_fadd")); \
        EXPECT(last.amo_op == SHMI_AMO_FETCH_ADD && TAGGED(T, N));            \
        EXPECT(last.ctx == SHMEM_CTX_DEFAULT);                                \
    }

#define SYNC(T, N)                                                            \
    {                                                                         \
        static T iv[4];                                                       \
        const T vals[4] = {1, 2, 3, 4};                                       \
        size_t idx[4];                                                        \
        int st[4] = {0};                                                      \
        reset();                                                              \
        shmem_##N##_wait_until(iv, SHMEM_CMP_GE, 3);                          \
        EXPECT(last.kind == SHMI_WAIT_ONE && last.blocking && TAGGED(T, N));  \
        EXPECT(last.nelems == 1 && last.cmp == SHMEM_CMP_GE);                 \
        EXPECT(VALUE(T) == 3 && !last.values_vector);          \
        EXPECT(shmem_##N##_test_some_vector(iv, 4, idx, st, SHMEM_CMP_LT,     \
                                            vals) == 3);                      \
        EXPECT(last.kind == SHMI_WAIT_SOME && !last.blocking);                \
        EXPECT(last.values == vals && last.values_vector && last.indices == idx); \
        EXPECT(last.status == st && last.nelems == 4);                        \
        EXPECT(shmem_##N##_wait_until_any(iv, 4, NULL, SHMEM_CMP_EQ, 1) == 3); \
        EXPECT(last.kind == SHMI_WAIT_ANY && last.blocking);                  \
        EXPECT(shmem_##N##_test_all(iv, 4, st, SHMEM_CMP_EQ, 1) == 3);        \
        EXPECT(last.kind == SHMI_WAIT_ALL && !last.blocking);                 \
    }

#define REDUCE(T, N, OP, TAG)                                                 \
    EXPECT(shmem_##N##_##OP##_reduce(TEAM, d, s, 2) == 5);                    \
    EXPECT(last.op == TAG && TAGGED(T, N) && last.nelems == 2);               \
    EXPECT(NAMED("shmem_" #N "_" #OP "_reduce") && last.team == TEAM);
#define REDUCE_BIT(T, N)                                                      \
    {                                                                         \
        static T d[2], s[2];                                                  \
        REDUCE(T, N, and, SHMI_OP_AND)                                        \
        REDUCE(T, N, or, SHMI_OP_OR)                                          \
        REDUCE(T, N, xor, SHMI_OP_XOR)                                        \
    }
#define REDUCE_MINMAX(T, N)                                                   \
    {                                                                         \
        static T d[2], s[2];                                                  \
        REDUCE(T, N, max, SHMI_OP_MAX)                                        \
        REDUCE(T, N, min, SHMI_OP_MIN)                                        \
    }
#define REDUCE_ARITH(T, N)                                                    \
    {                                                                         \
        static T d[2], s[2];                                                  \
        REDUCE(T, N, sum, SHMI_OP_SUM)                                        \
        REDUCE(T, N, prod, SHMI_OP_PROD)                                      \
        EXPECT(shmem_##N##_sum_exscan(TEAM, d, s, 2) == 5);                   \
        EXPECT(last.op == SHMI_OP_SUM && last.exclusive == 1);                \
        EXPECT(shmem_##N##_sum_inscan(TEAM, d, s, 2) == 5);                   \
        EXPECT(last.exclusive == 0 && TAGGED(T, N));                          \
    }
#define TO_ALL_ARITH(T, N)                                                    \
    {                                                                         \
        static T d[2], s[2], w[SHMEM_REDUCE_MIN_WRKDATA_SIZE];                \
        static long ps[SHMEM_REDUCE_SYNC_SIZE];                               \
        shmem_##N##_prod_to_all(d, s, 2, 0, 0, 1, w, ps);                     \
        EXPECT(NAMED("shmem_" #N "_prod_to_all") && last.op == SHMI_OP_PROD); \
        EXPECT(TAGGED(T, N) && last.nelems == 2);                             \
    }

static uint64_t sig;

static void check_sized(void)
{
    static char d[64], s[64];
    reset();
    shmem_put64(d, s, 3, 1);
    EXPECT(NAMED("shmem_put64") && last.nbytes == 24);
    shmem_ctx_put128_nbi(CTX, d, s, 2, 1);
    EXPECT(NAMED("shmem_ctx_put128_nbi") && last.nbytes == 32 && last.nbi);
    shmem_getmem(d, s, 5, 0);
    EXPECT(NAMED("shmem_getmem") && last.nbytes == 5);
    shmem_iget16(d, s, 2, 2, 3, 0);
    EXPECT(NAMED("shmem_iget16") && last.elem_size == 2 && last.nelems == 3);
    shmem_ibput32(d, s, 1, 1, 2, 2, 0);
    EXPECT(NAMED("shmem_ibput32") && last.elem_size == 4 && last.bsize == 2);
    shmem_putmem_signal(d, s, 7, &sig, 1, SHMEM_SIGNAL_SET, 0);
    EXPECT(NAMED("shmem_putmem_signal") && last.nbytes == 7 && !last.nbi);
    shmem_ctx_put8_signal_nbi(CTX, d, s, 7, &sig, 1, SHMEM_SIGNAL_SET, 0);
    EXPECT(NAMED("shmem_ctx_put8_signal_nbi") && last.nbytes == 7);
    EXPECT(shmem_alltoallsmem(TEAM, d, s, 1, 1, 4) == 5);
    EXPECT(NAMED("shmem_alltoallsmem") && last.elem_size == 1);
    EXPECT(shmem_fcollectmem(TEAM, d, s, 6) == 5 && last.nbytes == 6);
    shmem_signal_add(&sig, 4, 1);
    EXPECT(NAMED("shmem_signal_add") && last.amo_op == SHMI_AMO_ADD);
    EXPECT(last.dt == SHMI_DT_UINT64 && OPERAND(uint64_t) == 4);
    shmem_ctx_signal_set(CTX, &sig, 4, 1);
    EXPECT(last.amo_op == SHMI_AMO_SET && last.ctx == CTX);
    static long flag;
    shmem_wait(&flag, 3);
    EXPECT(NAMED("shmem_wait") && last.cmp == SHMEM_CMP_NE);
}

int main(void)
{
    WEFT_TYPES_RMA(RMA)
    WEFT_TYPES_AMO_EXT(AMO_EXT)
    WEFT_TYPES_AMO_STD(AMO_STD)
    WEFT_TYPES_AMO_BIT(AMO_BIT)
    WEFT_TYPES_AMO_DEP_STD(AMO_DEP_STD)
    WEFT_TYPES_SYNC(SYNC)
    WEFT_TYPES_REDUCE_BIT(REDUCE_BIT)
    WEFT_TYPES_REDUCE_MINMAX(REDUCE_MINMAX)
    WEFT_TYPES_REDUCE_ARITH(REDUCE_ARITH)
    WEFT_TYPES_TO_ALL_ARITH(TO_ALL_ARITH)
    check_sized();
    printf("%d checks, %d failed\n", checks, failures);
    return failures != 0;
}
