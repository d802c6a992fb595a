/*
 * Reductions and scans over every type and operator of the specification's
 * tables, checked element by element against a serial computation:
 *   team forms (shmem_TYPE_OP_reduce) on the world and on the even PEs, in
 *   sizes that span several internal chunks, and in place (dest == source);
 *   sum inscan / exscan;
 *   the deprecated shmem_TYPE_OP_to_all on two active sets with pWrk and a
 *   pSync reused after a barrier (it must come back as SHMEM_SYNC_VALUE).
 * Values are small integers, so sums and products are exact in every type.
 */
#include <complex.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tests/common/check_pes.h"
#include "../gen/typed_lists.h"

#define NMAX 600
static const int counts[] = {1, 5, NMAX};
#define NCOUNTS 3

static void *sbuf, *dbuf, *wrk;
static long psync_a[SHMEM_REDUCE_SYNC_SIZE], psync_b[SHMEM_REDUCE_SYNC_SIZE];

/* Element i of PE p for each operator family. */
static int v_sum(int p, int i)
{
    return (p + i) % 5 + 1;
}
static int v_prod(int p, int i, int n)
{
    return i % n == p ? 2 : 1;
}
static int v_minmax(int p, int i)
{
    return (p * 7 + i) % 11;
}
static int v_bit(int p, int i)
{
    return (1 << ((p + i) % 7)) | (i & 1);
}

/* PE p of a team of tn members (world PE start + p * stride). */
#define GEN_ARITH(T, N)                                                        \
    static void test_arith_##N(shmem_team_t t, int in_place)                   \
    {                                                                          \
        int tme = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);               \
        T *s = sbuf, *d = in_place ? sbuf : dbuf;                              \
        for (int c = 0; c < NCOUNTS; c++) {                                    \
            int cnt = counts[c];                                               \
            for (int i = 0; i < cnt; i++)                                      \
                s[i] = (T)v_sum(tme, i);                                       \
            CHECK(shmem_##N##_sum_reduce(t, d, s, cnt) == 0);                  \
            for (int i = 0; i < cnt; i++) {                                    \
                T e = 0;                                                       \
                for (int p = 0; p < tn; p++)                                   \
                    e += (T)v_sum(p, i);                                       \
                CHECK(d[i] == e);                                              \
            }                                                                  \
            for (int i = 0; i < cnt; i++)                                      \
                s[i] = (T)v_prod(tme, i, tn);                                  \
            CHECK(shmem_##N##_prod_reduce(t, d, s, cnt) == 0);                 \
            for (int i = 0; i < cnt; i++)                                      \
                CHECK(d[i] == (T)(i % tn < tn ? 2 : 1));                       \
            for (int i = 0; i < cnt; i++)                                      \
                s[i] = (T)v_sum(tme, i);                                       \
            T *o = dbuf;                                                       \
            CHECK(shmem_##N##_sum_inscan(t, o, s, cnt) == 0);                  \
            for (int i = 0; i < cnt; i++) {                                    \
                T e = 0;                                                       \
                for (int p = 0; p <= tme; p++)                                 \
                    e += (T)v_sum(p, i);                                       \
                CHECK(o[i] == e);                                              \
            }                                                                  \
            CHECK(shmem_##N##_sum_exscan(t, o, s, cnt) == 0);                  \
            for (int i = 0; i < cnt && tme > 0; i++) {                         \
                T e = 0;                                                       \
                for (int p = 0; p < tme; p++)                                  \
                    e += (T)v_sum(p, i);                                       \
                CHECK(o[i] == e);                                              \
            }                                                                  \
            shmem_team_sync(t);                                                \
        }                                                                      \
    }
WEFT_TYPES_REDUCE_ARITH(GEN_ARITH)

#define GEN_MINMAX(T, N)                                                       \
    static void test_minmax_##N(shmem_team_t t)                                \
    {                                                                          \
        int tme = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);               \
        T *s = sbuf, *d = dbuf;                                                \
        for (int c = 0; c < NCOUNTS; c++) {                                    \
            int cnt = counts[c];                                               \
            for (int i = 0; i < cnt; i++)                                      \
                s[i] = (T)v_minmax(tme, i);                                    \
            CHECK(shmem_##N##_min_reduce(t, d, s, cnt) == 0);                  \
            for (int i = 0; i < cnt; i++) {                                    \
                T e = (T)v_minmax(0, i);                                       \
                for (int p = 1; p < tn; p++)                                   \
                    if ((T)v_minmax(p, i) < e)                                 \
                        e = (T)v_minmax(p, i);                                 \
                CHECK(d[i] == e);                                              \
            }                                                                  \
            CHECK(shmem_##N##_max_reduce(t, d, s, cnt) == 0);                  \
            for (int i = 0; i < cnt; i++) {                                    \
                T e = (T)v_minmax(0, i);                                       \
                for (int p = 1; p < tn; p++)                                   \
                    if ((T)v_minmax(p, i) > e)                                 \
                        e = (T)v_minmax(p, i);                                 \
                CHECK(d[i] == e);                                              \
            }                                                                  \
        }                                                                      \
    }
WEFT_TYPES_REDUCE_MINMAX(GEN_MINMAX)

#define GEN_BIT(T, N)                                                          \
    static void test_bit_##N(shmem_team_t t)                                   \
    {                                                                          \
        int tme = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);               \
        T *s = sbuf, *d = dbuf;                                                \
        for (int c = 0; c < NCOUNTS; c++) {                                    \
            int cnt = counts[c];                                               \
            for (int i = 0; i < cnt; i++)                                      \
                s[i] = (T)v_bit(tme, i);                                       \
            CHECK(shmem_##N##_and_reduce(t, d, s, cnt) == 0);                  \
            for (int i = 0; i < cnt; i++) {                                    \
                T e = (T) ~(T)0;                                               \
                for (int p = 0; p < tn; p++)                                   \
                    e &= (T)v_bit(p, i);                                       \
                CHECK(d[i] == e);                                              \
            }                                                                  \
            CHECK(shmem_##N##_or_reduce(t, d, s, cnt) == 0);                   \
            for (int i = 0; i < cnt; i++) {                                    \
                T e = 0;                                                       \
                for (int p = 0; p < tn; p++)                                   \
                    e |= (T)v_bit(p, i);                                       \
                CHECK(d[i] == e);                                              \
            }                                                                  \
            CHECK(shmem_##N##_xor_reduce(t, d, s, cnt) == 0);                  \
            for (int i = 0; i < cnt; i++) {                                    \
                T e = 0;                                                       \
                for (int p = 0; p < tn; p++)                                   \
                    e ^= (T)v_bit(p, i);                                       \
                CHECK(d[i] == e);                                              \
            }                                                                  \
        }                                                                      \
    }
WEFT_TYPES_REDUCE_BIT(GEN_BIT)

/* Deprecated forms on the active set (0, ls, size): sum and max/and. */
#define GEN_TO_ALL_ARITH(T, N)                                                 \
    static void test_to_all_arith_##N(int ls, int size, long *ps)              \
    {                                                                          \
        int ame = shmem_my_pe() >> ls;                                         \
        T *s = sbuf, *d = dbuf;                                                \
        for (int i = 0; i < NMAX; i++)                                         \
            s[i] = (T)v_sum(ame, i);                                           \
        shmem_##N##_sum_to_all(d, s, NMAX, 0, ls, size, (T *)wrk, ps);         \
        for (int i = 0; i < NMAX; i++) {                                       \
            T e = 0;                                                           \
            for (int p = 0; p < size; p++)                                     \
                e += (T)v_sum(p, i);                                           \
            CHECK(d[i] == e);                                                  \
        }                                                                      \
        shmem_barrier(0, ls, size, psync_b);                                   \
        for (int i = 0; i < NMAX; i++)                                         \
            s[i] = (T)v_prod(ame, i, size);                                    \
        shmem_##N##_prod_to_all(d, s, NMAX, 0, ls, size, (T *)wrk, ps);        \
        for (int i = 0; i < NMAX; i++)                                         \
            CHECK(d[i] == (T)2);                                               \
        shmem_barrier(0, ls, size, psync_b);                                   \
    }
WEFT_TYPES_TO_ALL_ARITH(GEN_TO_ALL_ARITH)

#define GEN_TO_ALL_MINMAX(T, N)                                                \
    static void test_to_all_minmax_##N(int ls, int size, long *ps)             \
    {                                                                          \
        int ame = shmem_my_pe() >> ls;                                         \
        T *s = sbuf, *d = dbuf;                                                \
        for (int i = 0; i < NMAX; i++)                                         \
            s[i] = (T)v_minmax(ame, i);                                        \
        shmem_##N##_max_to_all(d, s, NMAX, 0, ls, size, (T *)wrk, ps);         \
        for (int i = 0; i < NMAX; i++) {                                       \
            T e = (T)v_minmax(0, i);                                           \
            for (int p = 1; p < size; p++)                                     \
                if ((T)v_minmax(p, i) > e)                                     \
                    e = (T)v_minmax(p, i);                                     \
            CHECK(d[i] == e);                                                  \
        }                                                                      \
        shmem_barrier(0, ls, size, psync_b);                                   \
        shmem_##N##_min_to_all(d, s, NMAX, 0, ls, size, (T *)wrk, ps);         \
        for (int i = 0; i < NMAX; i++) {                                       \
            T e = (T)v_minmax(0, i);                                           \
            for (int p = 1; p < size; p++)                                     \
                if ((T)v_minmax(p, i) < e)                                     \
                    e = (T)v_minmax(p, i);                                     \
            CHECK(d[i] == e);                                                  \
        }                                                                      \
        shmem_barrier(0, ls, size, psync_b);                                   \
    }
WEFT_TYPES_TO_ALL_MINMAX(GEN_TO_ALL_MINMAX)

#define GEN_TO_ALL_BIT(T, N)                                                   \
    static void test_to_all_bit_##N(int ls, int size, long *ps)                \
    {                                                                          \
        int ame = shmem_my_pe() >> ls;                                         \
        T *s = sbuf, *d = dbuf;                                                \
        for (int i = 0; i < NMAX; i++)                                         \
            s[i] = (T)v_bit(ame, i);                                           \
        shmem_##N##_xor_to_all(d, s, NMAX, 0, ls, size, (T *)wrk, ps);         \
        for (int i = 0; i < NMAX; i++) {                                       \
            T e = 0;                                                           \
            for (int p = 0; p < size; p++)                                     \
                e ^= (T)v_bit(p, i);                                           \
            CHECK(d[i] == e);                                                  \
        }                                                                      \
        shmem_barrier(0, ls, size, psync_b);                                   \
    }
WEFT_TYPES_TO_ALL_BIT(GEN_TO_ALL_BIT)

static void run_team(shmem_team_t t)
{
    if (t == SHMEM_TEAM_INVALID)
        return;
#define CALL_ARITH(T, N) test_arith_##N(t, 0);
    WEFT_TYPES_REDUCE_ARITH(CALL_ARITH)
#define CALL_MINMAX(T, N) test_minmax_##N(t);
    WEFT_TYPES_REDUCE_MINMAX(CALL_MINMAX)
#define CALL_BIT(T, N) test_bit_##N(t);
    WEFT_TYPES_REDUCE_BIT(CALL_BIT)
    /* In place: dest == source. */
    test_arith_double(t, 1);
    test_arith_int(t, 1);
}

static void run_active_set(int ls, int size)
{
    if ((shmem_my_pe() & ((1 << ls) - 1)) != 0 || (shmem_my_pe() >> ls) >= size)
        return;
        /* The same pSync again right after a barrier, as the spec permits. */
#define CALL_TA_ARITH(T, N) test_to_all_arith_##N(ls, size, psync_a);
    WEFT_TYPES_TO_ALL_ARITH(CALL_TA_ARITH)
#define CALL_TA_MINMAX(T, N) test_to_all_minmax_##N(ls, size, psync_a);
    WEFT_TYPES_TO_ALL_MINMAX(CALL_TA_MINMAX)
#define CALL_TA_BIT(T, N) test_to_all_bit_##N(ls, size, psync_a);
    WEFT_TYPES_TO_ALL_BIT(CALL_TA_BIT)
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        CHECK(psync_a[i] == SHMEM_SYNC_VALUE && psync_b[i] == SHMEM_SYNC_VALUE);
}

int main(void)
{
    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    int n = shmem_n_pes();
    size_t bytes = NMAX * sizeof(long double _Complex);
    shmem_team_t even;

    sbuf = shmem_malloc(bytes);
    dbuf = shmem_malloc(bytes);
    wrk = shmem_malloc(bytes);
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync_a[i] = psync_b[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();

    run_team(SHMEM_TEAM_WORLD);
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0,
                             &even);
    run_team(even);
    if (even != SHMEM_TEAM_INVALID)
        shmem_team_destroy(even);
    shmem_barrier_all();
    run_active_set(0, n);
    shmem_barrier_all();
    run_active_set(1, (n + 1) / 2);
    shmem_barrier_all();
    shmem_free(sbuf);
    shmem_free(dbuf);
    shmem_free(wrk);
    return check_pes_end("coll_reduce");
}
