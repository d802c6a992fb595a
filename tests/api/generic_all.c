/*
 * Every C11 type-generic interface of shmem.h, called with a value of every
 * type its class allows (tests/gen/typed_lists.h), in the plain and, where the
 * specification has one, the context form.  Compile-only: it must build with
 * gcc -std=c11 -Wall -Wextra -Werror -pedantic.  Where the routine returns a
 * value, a static assertion checks that the selection returns TYPE, which
 * fails when a selection picks another type's routine.
 * tests/api/check_generics_covered.sh checks that no generic is missing here.
 */
#include <shmem.h>
#include <shmemx.h>

#include "typed_lists.h"

/* The generic call `e` has type T (the call is not evaluated). */
#define RETURNS(e, T) _Static_assert(_Generic((e), T: 1, default: 0), #e)

static uint64_t sig;
static long psync[SHMEM_SYNC_SIZE];

#define RMA(T, N)                                                             \
    void rma_##N(shmem_ctx_t ctx);                                            \
    void rma_##N(shmem_ctx_t ctx)                                             \
    {                                                                         \
        static T d[8], s[8];                                                  \
        const T *cs = s;                                                      \
        T v = s[0];                                                           \
        shmem_put(d, s, 1, 0);                                                \
        shmem_put(ctx, d, s, 1, 0);                                           \
        shmem_get(d, s, 1, 0);                                                \
        shmem_get(ctx, d, s, 1, 0);                                           \
        shmem_put_nbi(d, s, 1, 0);                                            \
        shmem_put_nbi(ctx, d, s, 1, 0);                                       \
        shmem_get_nbi(d, s, 1, 0);                                            \
        shmem_get_nbi(ctx, d, s, 1, 0);                                       \
        shmem_p(d, v, 0);                                                     \
        shmem_p(ctx, d, v, 0);                                                \
        v = shmem_g(s, 0);                                                    \
        v = shmem_g(ctx, cs, 0);                                              \
        RETURNS(shmem_g(cs, 0), T);                                           \
        RETURNS(shmem_g(ctx, s, 0), T);                                       \
        shmem_iput(d, s, 1, 1, 2, 0);                                         \
        shmem_iput(ctx, d, s, 1, 1, 2, 0);                                    \
        shmem_iget(d, s, 1, 1, 2, 0);                                         \
        shmem_iget(ctx, d, s, 1, 1, 2, 0);                                    \
        shmem_ibput(d, s, 2, 2, 1, 2, 0);                                     \
        shmem_ibput(ctx, d, s, 2, 2, 1, 2, 0);                                \
        shmem_ibget(d, s, 2, 2, 1, 2, 0);                                     \
        shmem_ibget(ctx, d, s, 2, 2, 1, 2, 0);                                \
        shmem_put_signal(d, s, 1, &sig, 1, SHMEM_SIGNAL_SET, 0);              \
        shmem_put_signal(ctx, d, s, 1, &sig, 1, SHMEM_SIGNAL_ADD, 0);         \
        shmem_put_signal_nbi(d, s, 1, &sig, 1, SHMEM_SIGNAL_SET, 0);          \
        shmem_put_signal_nbi(ctx, d, s, 1, &sig, 1, SHMEM_SIGNAL_ADD, 0);     \
        RETURNS(shmem_broadcast(SHMEM_TEAM_WORLD, d, s, 1, 0), int);          \
        (void)shmem_broadcast(SHMEM_TEAM_WORLD, d, s, 1, 0);                  \
        (void)shmem_collect(SHMEM_TEAM_WORLD, d, s, 1);                       \
        (void)shmem_fcollect(SHMEM_TEAM_WORLD, d, s, 1);                      \
        (void)shmem_alltoall(SHMEM_TEAM_WORLD, d, s, 1);                      \
        (void)shmem_alltoalls(SHMEM_TEAM_WORLD, d, s, 1, 1, 1);               \
        d[0] = v;                                                             \
    }
WEFT_TYPES_RMA(RMA)

#define AMO_EXT(T, N)                                                         \
    void amo_ext_##N(shmem_ctx_t ctx);                                        \
    void amo_ext_##N(shmem_ctx_t ctx)                                         \
    {                                                                         \
        static T d;                                                           \
        const T *cd = &d;                                                     \
        T v = 1, f;                                                           \
        f = shmem_atomic_fetch(&d, 0);                                        \
        f = shmem_atomic_fetch(ctx, cd, 0);                                   \
        RETURNS(shmem_atomic_fetch(cd, 0), T);                                \
        RETURNS(shmem_atomic_fetch(ctx, &d, 0), T);                           \
        shmem_atomic_set(&d, v, 0);                                           \
        shmem_atomic_set(ctx, &d, v, 0);                                      \
        f = shmem_atomic_swap(&d, v, 0);                                      \
        f = shmem_atomic_swap(ctx, &d, f, 0);                                 \
        RETURNS(shmem_atomic_swap(&d, v, 0), T);                              \
        RETURNS(shmem_atomic_swap(ctx, &d, v, 0), T);                         \
        shmem_atomic_fetch_nbi(&f, &d, 0);                                    \
        shmem_atomic_fetch_nbi(ctx, &f, cd, 0);                               \
        shmem_atomic_swap_nbi(&f, &d, v, 0);                                  \
        shmem_atomic_swap_nbi(ctx, &f, &d, v, 0);                             \
        d = f;                                                                \
    }
WEFT_TYPES_AMO_EXT(AMO_EXT)

#define AMO_STD(T, N)                                                         \
    void amo_std_##N(shmem_ctx_t ctx);                                        \
    void amo_std_##N(shmem_ctx_t ctx)                                         \
    {                                                                         \
        static T d;                                                           \
        T v = 1, f;                                                           \
        f = shmem_atomic_compare_swap(&d, v, v, 0);                           \
        f = shmem_atomic_compare_swap(ctx, &d, f, v, 0);                      \
        RETURNS(shmem_atomic_compare_swap(&d, v, v, 0), T);                   \
        RETURNS(shmem_atomic_compare_swap(ctx, &d, v, v, 0), T);              \
        f = shmem_atomic_fetch_inc(&d, 0);                                    \
        f = shmem_atomic_fetch_inc(ctx, &d, 0);                               \
        RETURNS(shmem_atomic_fetch_inc(&d, 0), T);                            \
        RETURNS(shmem_atomic_fetch_inc(ctx, &d, 0), T);                       \
        shmem_atomic_inc(&d, 0);                                              \
        shmem_atomic_inc(ctx, &d, 0);                                         \
        f = shmem_atomic_fetch_add(&d, v, 0);                                 \
        f = shmem_atomic_fetch_add(ctx, &d, f, 0);                            \
        RETURNS(shmem_atomic_fetch_add(&d, v, 0), T);                         \
        RETURNS(shmem_atomic_fetch_add(ctx, &d, v, 0), T);                    \
        shmem_atomic_add(&d, v, 0);                                           \
        shmem_atomic_add(ctx, &d, v, 0);                                      \
        shmem_atomic_compare_swap_nbi(&f, &d, v, v, 0);                       \
        shmem_atomic_compare_swap_nbi(ctx, &f, &d, v, v, 0);                  \
        shmem_atomic_fetch_inc_nbi(&f, &d, 0);                                \
        shmem_atomic_fetch_inc_nbi(ctx, &f, &d, 0);                           \
        shmem_atomic_fetch_add_nbi(&f, &d, v, 0);                             \
        shmem_atomic_fetch_add_nbi(ctx, &f, &d, v, 0);                        \
        d = f;                                                                \
    }
WEFT_TYPES_AMO_STD(AMO_STD)

#define AMO_BIT_OP(op, T)                                                     \
    f = shmem_atomic_fetch_##op(&d, v, 0);                                    \
    f = shmem_atomic_fetch_##op(ctx, &d, f, 0);                               \
    RETURNS(shmem_atomic_fetch_##op(&d, v, 0), T);                            \
    RETURNS(shmem_atomic_fetch_##op(ctx, &d, v, 0), T);                       \
    shmem_atomic_##op(&d, v, 0);                                              \
    shmem_atomic_##op(ctx, &d, v, 0);                                         \
    shmem_atomic_fetch_##op##_nbi(&f, &d, v, 0);                              \
    shmem_atomic_fetch_##op##_nbi(ctx, &f, &d, v, 0);
#define AMO_BIT(T, N)                                                         \
    void amo_bit_##N(shmem_ctx_t ctx);                                        \
    void amo_bit_##N(shmem_ctx_t ctx)                                         \
    {                                                                         \
        static T d;                                                           \
        T v = 1, f;                                                           \
        AMO_BIT_OP(and, T)                                                    \
        AMO_BIT_OP(or, T)                                                     \
        AMO_BIT_OP(xor, T)                                                    \
        d = f;                                                                \
    }
WEFT_TYPES_AMO_BIT(AMO_BIT)

/* Deprecated (1.4) generic names. */
#define AMO_DEP_EXT(T, N)                                                     \
    void amo_dep_ext_##N(void);                                               \
    void amo_dep_ext_##N(void)                                                \
    {                                                                         \
        static T d;                                                           \
        T v = 1, f;                                                           \
        f = shmem_fetch(&d, 0);                                               \
        RETURNS(shmem_fetch(&d, 0), T);                                       \
        shmem_set(&d, f, 0);                                                  \
        f = shmem_swap(&d, v, 0);                                             \
        RETURNS(shmem_swap(&d, v, 0), T);                                     \
        d = f;                                                                \
    }
WEFT_TYPES_AMO_DEP_EXT(AMO_DEP_EXT)

#define AMO_DEP_STD(T, N)                                                     \
    void amo_dep_std_##N(void);                                               \
    void amo_dep_std_##N(void)                                                \
    {                                                                         \
        static T d;                                                           \
        T v = 1, f;                                                           \
        f = shmem_cswap(&d, v, v, 0);                                         \
        RETURNS(shmem_cswap(&d, v, v, 0), T);                                 \
        f = shmem_finc(&d, 0);                                                \
        RETURNS(shmem_finc(&d, 0), T);                                        \
        shmem_inc(&d, 0);                                                     \
        f = shmem_fadd(&d, f, 0);                                             \
        RETURNS(shmem_fadd(&d, v, 0), T);                                     \
        shmem_add(&d, v, 0);                                                  \
        d = f;                                                                \
    }
WEFT_TYPES_AMO_DEP_STD(AMO_DEP_STD)

#define SYNC_ONE(T, N)                                                        \
    void sync_one_##N(void);                                                  \
    void sync_one_##N(void)                                                   \
    {                                                                         \
        static T iv;                                                          \
        T v = 1;                                                              \
        shmem_wait_until(&iv, SHMEM_CMP_EQ, v);                               \
        RETURNS(shmem_test(&iv, SHMEM_CMP_NE, v), int);                       \
        iv = (T)shmem_test(&iv, SHMEM_CMP_NE, v);                             \
    }
WEFT_TYPES_SYNC(SYNC_ONE)
WEFT_TYPES_SYNC_DEP(SYNC_ONE)

#define SYNC(T, N)                                                            \
    void sync_##N(void);                                                      \
    void sync_##N(void)                                                       \
    {                                                                         \
        static T iv[4];                                                       \
        const T vals[4] = {1, 2, 3, 4};                                       \
        T v = 1;                                                              \
        size_t idx[4], n;                                                     \
        int st[4] = {0, 0, 1, 0}, t;                                          \
        shmem_wait_until_all(iv, 4, st, SHMEM_CMP_GE, v);                     \
        n = shmem_wait_until_any(iv, 4, st, SHMEM_CMP_GE, v);                 \
        n = shmem_wait_until_some(iv, 4, idx, st, SHMEM_CMP_GE, v);           \
        shmem_wait_until_all_vector(iv, 4, st, SHMEM_CMP_GE, vals);           \
        n = shmem_wait_until_any_vector(iv, 4, st, SHMEM_CMP_GE, vals);       \
        n = shmem_wait_until_some_vector(iv, 4, idx, NULL, SHMEM_CMP_GE, vals); \
        t = shmem_test_all(iv, 4, st, SHMEM_CMP_LT, v);                       \
        n = shmem_test_any(iv, 4, st, SHMEM_CMP_LT, v);                       \
        n = shmem_test_some(iv, 4, idx, st, SHMEM_CMP_LT, v);                 \
        t = shmem_test_all_vector(iv, 4, st, SHMEM_CMP_LE, vals);             \
        n = shmem_test_any_vector(iv, 4, st, SHMEM_CMP_LE, vals);             \
        n = shmem_test_some_vector(iv, 4, idx, st, SHMEM_CMP_LE, vals);       \
        RETURNS(shmem_wait_until_any(iv, 4, st, SHMEM_CMP_GE, v), size_t);    \
        RETURNS(shmem_wait_until_some(iv, 4, idx, st, SHMEM_CMP_GE, v), size_t); \
        RETURNS(shmem_wait_until_any_vector(iv, 4, st, SHMEM_CMP_GE, vals), size_t); \
        RETURNS(shmem_wait_until_some_vector(iv, 4, idx, st, SHMEM_CMP_GE, vals), size_t); \
        RETURNS(shmem_test_all(iv, 4, st, SHMEM_CMP_LT, v), int);             \
        RETURNS(shmem_test_any(iv, 4, st, SHMEM_CMP_LT, v), size_t);          \
        RETURNS(shmem_test_some(iv, 4, idx, st, SHMEM_CMP_LT, v), size_t);    \
        RETURNS(shmem_test_all_vector(iv, 4, st, SHMEM_CMP_LE, vals), int);   \
        RETURNS(shmem_test_any_vector(iv, 4, st, SHMEM_CMP_LE, vals), size_t); \
        RETURNS(shmem_test_some_vector(iv, 4, idx, st, SHMEM_CMP_LE, vals), size_t); \
        iv[0] = (T)(n + (size_t)t);                                           \
    }
WEFT_TYPES_SYNC(SYNC)

#define REDUCE_BIT(T, N)                                                      \
    void reduce_bit_##N(shmem_team_t team);                                   \
    void reduce_bit_##N(shmem_team_t team)                                    \
    {                                                                         \
        static T d[2], s[2];                                                  \
        RETURNS(shmem_and_reduce(team, d, s, 2), int);                        \
        (void)shmem_and_reduce(team, d, s, 2);                                \
        (void)shmem_or_reduce(team, d, s, 2);                                 \
        (void)shmem_xor_reduce(team, d, s, 2);                                \
    }
WEFT_TYPES_REDUCE_BIT(REDUCE_BIT)

#define REDUCE_MINMAX(T, N)                                                   \
    void reduce_minmax_##N(shmem_team_t team);                                \
    void reduce_minmax_##N(shmem_team_t team)                                 \
    {                                                                         \
        static T d[2], s[2];                                                  \
        RETURNS(shmem_max_reduce(team, d, s, 2), int);                        \
        (void)shmem_max_reduce(team, d, s, 2);                                \
        (void)shmem_min_reduce(team, d, s, 2);                                \
    }
WEFT_TYPES_REDUCE_MINMAX(REDUCE_MINMAX)

#define REDUCE_ARITH(T, N)                                                    \
    void reduce_arith_##N(shmem_team_t team);                                 \
    void reduce_arith_##N(shmem_team_t team)                                  \
    {                                                                         \
        static T d[2], s[2];                                                  \
        RETURNS(shmem_sum_reduce(team, d, s, 2), int);                        \
        (void)shmem_sum_reduce(team, d, s, 2);                                \
        (void)shmem_prod_reduce(team, d, s, 2);                               \
        (void)shmem_sum_inscan(team, d, s, 2);                                \
        (void)shmem_sum_exscan(team, d, s, 2);                                \
    }
WEFT_TYPES_REDUCE_ARITH(REDUCE_ARITH)

void untyped(shmem_ctx_t ctx);
void untyped(shmem_ctx_t ctx)
{
    shmem_signal_add(&sig, 1, 0);
    shmem_signal_add(ctx, &sig, 1, 0);
    shmem_signal_set(&sig, 1, 0);
    shmem_signal_set(ctx, &sig, 1, 0);
    RETURNS(shmem_sync(SHMEM_TEAM_WORLD), int);
    (void)shmem_sync(SHMEM_TEAM_SHARED);
    shmem_sync(0, 0, shmem_n_pes(), psync);
    (void)shmemx_malloc_device(8);
}
