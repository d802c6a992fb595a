/*
 * Data collectives on several teams (world, stride 2, stride 3, the rows of
 * a 2-D split): broadcast from every root, fcollect, collect with different
 * sizes per PE (some zero), alltoall and alltoalls with strides, in sizes
 * from one element to hundreds of kilobytes; then the deprecated active-set
 * forms with a pSync reused after a barrier, which must come back as
 * SHMEM_SYNC_VALUE. Every element is checked against its formula.
 */
#include <stdint.h>
#include <string.h>

#include "tests/common/check_pes.h"
#include "../gen/typed_lists.h"

#define MAXCNT 8192 /* elements per PE block */
#define MAXPES 8

static int *src, *dst;
static long psync[SHMEM_COLLECT_SYNC_SIZE];
static long psync_bc[SHMEM_BCAST_SYNC_SIZE];
static long psync_a2a[SHMEM_ALLTOALL_SYNC_SIZE];

static int val(int pe, int i, int round)
{
    return pe * 1000003 + i * 7 + round;
}

static void fill(int *p, size_t n, int v)
{
    for (size_t i = 0; i < n; i++)
        p[i] = v;
}

static const int sizes[] = {1, 13, 1000, MAXCNT};
#define NSIZES (int)(sizeof(sizes) / sizeof(sizes[0]))

static void check_bcast(shmem_team_t t, int round)
{
    int tme = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);

    for (int s = 0; s < NSIZES; s++) {
        int cnt = sizes[s] * (s == NSIZES - 1 ? 4 : 1);
        for (int root = 0; root < tn; root++) {
            for (int i = 0; i < cnt; i++)
                src[i] = val(tme, i, round);
            fill(dst, cnt, -1);
            shmem_team_sync(t);
            CHECK(shmem_int_broadcast(t, dst, src, cnt, root) == 0);
            for (int i = 0; i < cnt; i++)
                CHECK(dst[i] == val(root, i, round));
            shmem_team_sync(t);
        }
    }
    CHECK(shmem_int_broadcast(t, dst, src, 1, tn) != 0);
}

static void check_fcollect_collect(shmem_team_t t, int round)
{
    int tme = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);

    for (int s = 0; s < NSIZES; s++) {
        int cnt = sizes[s];
        for (int i = 0; i < cnt; i++)
            src[i] = val(tme, i, round);
        fill(dst, (size_t)cnt * tn, -1);
        shmem_team_sync(t);
        CHECK(shmem_int_fcollect(t, dst, src, cnt) == 0);
        for (int p = 0; p < tn; p++)
            for (int i = 0; i < cnt; i++)
                CHECK(dst[p * cnt + i] == val(p, i, round));
        shmem_team_sync(t);
        /* collect: PE p gives (cnt + 3 p) % (cnt + 1) elements, some 0. */
        int mine = (cnt + 3 * tme) % (cnt + 1), total = 0;
        for (int p = 0; p < tn; p++)
            total += (cnt + 3 * p) % (cnt + 1);
        fill(dst, (size_t)total + 1, -1);
        shmem_team_sync(t);
        CHECK(shmem_int_collect(t, dst, src, mine) == 0);
        int at = 0;
        for (int p = 0; p < tn; p++) {
            int c = (cnt + 3 * p) % (cnt + 1);
            for (int i = 0; i < c; i++)
                CHECK(dst[at + i] == val(p, i, round));
            at += c;
        }
        CHECK(dst[total] == -1);
        shmem_team_sync(t);
    }
}

static void check_alltoall(shmem_team_t t, int round)
{
    int tme = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);

    for (int s = 0; s < NSIZES; s++) {
        int cnt = sizes[s];
        for (int i = 0; i < cnt * tn; i++)
            src[i] = val(tme, i, round);
        fill(dst, (size_t)cnt * tn, -1);
        shmem_team_sync(t);
        CHECK(shmem_int_alltoall(t, dst, src, cnt) == 0);
        for (int p = 0; p < tn; p++)
            for (int i = 0; i < cnt; i++)
                CHECK(dst[p * cnt + i] == val(p, tme * cnt + i, round));
        shmem_team_sync(t);
    }
    /* alltoalls: dst stride 2, src stride 3, 1..200 elements. */
    for (int cnt = 1; cnt <= 200; cnt *= 14) {
        const int ds = 2, ss = 3;
        for (int i = 0; i < cnt * tn * ss; i++)
            src[i] = val(tme, i, round);
        fill(dst, (size_t)cnt * tn * ds, -1);
        shmem_team_sync(t);
        CHECK(shmem_int_alltoalls(t, dst, src, ds, ss, cnt) == 0);
        for (int p = 0; p < tn; p++)
            for (int i = 0; i < cnt; i++) {
                CHECK(dst[(p * cnt + i) * ds] ==
                      val(p, (tme * cnt + i) * ss, round));
                CHECK(dst[(p * cnt + i) * ds + 1] == -1);
            }
        shmem_team_sync(t);
    }
}

static void check_team(shmem_team_t t, int round)
{
    if (t == SHMEM_TEAM_INVALID)
        return;
    check_bcast(t, round);
    check_fcollect_collect(t, round);
    check_alltoall(t, round);
}

/* Every typed form once, on team t: element j of PE p is (T)(p * 8 + j). */
#define GEN_TYPED(T, N)                                                        \
    static void typed_##N(shmem_team_t t)                                      \
    {                                                                          \
        int me = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);                \
        T *s = (T *)src, *d = (T *)dst;                                        \
        for (int j = 0; j < 3 * tn; j++)                                       \
            s[j] = (T)(me * 8 + j % 8);                                        \
        shmem_team_sync(t);                                                    \
        CHECK(shmem_##N##_broadcast(t, d, s, 3, tn - 1) == 0);                 \
        for (int j = 0; j < 3; j++)                                            \
            CHECK(d[j] == (T)((tn - 1) * 8 + j));                              \
        shmem_team_sync(t);                                                    \
        CHECK(shmem_##N##_fcollect(t, d, s, 2) == 0);                          \
        for (int p = 0; p < tn; p++)                                           \
            CHECK(d[2 * p] == (T)(p * 8) && d[2 * p + 1] == (T)(p * 8 + 1));   \
        shmem_team_sync(t);                                                    \
        CHECK(shmem_##N##_collect(t, d, s, 1) == 0);                           \
        for (int p = 0; p < tn; p++)                                           \
            CHECK(d[p] == (T)(p * 8));                                         \
        shmem_team_sync(t);                                                    \
        CHECK(shmem_##N##_alltoall(t, d, s, 1) == 0);                          \
        for (int p = 0; p < tn; p++)                                           \
            CHECK(d[p] == (T)(p * 8 + me % 8));                                \
        shmem_team_sync(t);                                                    \
        CHECK(shmem_##N##_alltoalls(t, d, s, 1, 2, 1) == 0);                   \
        for (int p = 0; p < tn; p++)                                           \
            CHECK(d[p] == (T)(p * 8 + (2 * me) % 8));                          \
        shmem_team_sync(t);                                                    \
    }
WEFT_TYPES_RMA(GEN_TYPED)

static void check_typed(shmem_team_t t)
{
#define CALL_TYPED(T, N) typed_##N(t);
    WEFT_TYPES_RMA(CALL_TYPED)
}

/* The deprecated forms over the active set (0, log_stride, size). */
static void check_active_set(int log_stride, int size, int round)
{
    int me = shmem_my_pe(), ame = me >> log_stride;
    int cnt = 37;

    if ((me & ((1 << log_stride) - 1)) != 0 || ame >= size)
        return;
    for (int root = 0; root < size; root++) {
        for (int i = 0; i < cnt; i++)
            src[i] = val(ame, i, round);
        fill(dst, cnt, -1);
        shmem_barrier(0, log_stride, size, psync);
        shmem_broadcast32(dst, src, cnt, root, 0, log_stride, size, psync_bc);
        for (int i = 0; i < cnt; i++)
            CHECK(dst[i] == (ame == root ? -1 : val(root, i, round)));
    }
    for (int i = 0; i < cnt; i++)
        src[i] = val(ame, i, round);
    fill(dst, (size_t)cnt * size + 1, -1);
    shmem_barrier(0, log_stride, size, psync);
    shmem_fcollect32(dst, src, cnt, 0, log_stride, size, psync_a2a);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < cnt; i++)
            CHECK(dst[p * cnt + i] == val(p, i, round));
    fill(dst, (size_t)cnt * size + 1, -1);
    shmem_barrier(0, log_stride, size, psync);
    shmem_collect32(dst, src, ame + 1, 0, log_stride, size, psync_a2a);
    for (int p = 0, at = 0; p < size; at += p + 1, p++)
        for (int i = 0; i <= p; i++)
            CHECK(dst[at + i] == val(p, i, round));
    for (int i = 0; i < cnt * size; i++)
        src[i] = val(ame, i, round);
    shmem_barrier(0, log_stride, size, psync);
    shmem_alltoall32(dst, src, cnt, 0, log_stride, size, psync_a2a);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < cnt; i++)
            CHECK(dst[p * cnt + i] == val(p, ame * cnt + i, round));
    shmem_barrier(0, log_stride, size, psync);
    shmem_alltoalls64(dst, src, 1, 1, cnt / 2, 0, log_stride, size, psync_a2a);
    const int64_t *d64 = (const int64_t *)dst, *s64 = (const int64_t *)src;
    int64_t mine[MAXCNT / 2];
    memcpy(mine, s64, sizeof(int64_t) * (cnt / 2) * size);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < cnt / 2; i++) {
            /* PE p sent its elements p'th block: recompute its source. */
            int e0 = 2 * (ame * (cnt / 2) + i);
            int32_t pair[2] = {val(p, e0, round), val(p, e0 + 1, round)};
            int64_t expect;
            memcpy(&expect, pair, sizeof(expect));
            CHECK(d64[p * (cnt / 2) + i] == expect);
        }
    (void)mine;
    shmem_barrier(0, log_stride, size, psync);
    for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; i++)
        CHECK(psync[i] == SHMEM_SYNC_VALUE && psync_bc[i] == SHMEM_SYNC_VALUE &&
              psync_a2a[i] == SHMEM_SYNC_VALUE);
}

int main(void)
{
    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    int me = shmem_my_pe(), n = shmem_n_pes();

    if (n > MAXPES) {
        if (me == 0)
            printf("coll_data: needs at most %d PEs\n", MAXPES);
        shmem_finalize();
        return 77;
    }
    src = shmem_malloc(sizeof(int) * MAXCNT * 4 * MAXPES);
    dst = shmem_malloc(sizeof(int) * MAXCNT * 4 * MAXPES);
    for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; i++)
        psync[i] = psync_bc[i] = psync_a2a[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();

    check_team(SHMEM_TEAM_WORLD, 1);
    check_typed(SHMEM_TEAM_WORLD);
    for (int st = 2; st <= 3; st++) {
        shmem_team_t t;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, st, (n + st - 1) / st,
                                 NULL, 0, &t);
        check_team(t, st);
        if (t != SHMEM_TEAM_INVALID)
            shmem_team_destroy(t);
        shmem_barrier_all();
    }
    shmem_team_t x, y;
    shmem_team_split_2d(SHMEM_TEAM_WORLD, 3, NULL, 0, &x, NULL, 0, &y);
    check_team(x, 4);
    check_team(y, 5);
    shmem_team_destroy(x);
    shmem_team_destroy(y);
    shmem_barrier_all();

    check_active_set(0, n, 6);
    shmem_barrier_all();
    check_active_set(1, (n + 1) / 2, 7);
    shmem_barrier_all();
    shmem_free(src);
    shmem_free(dst);
    return check_pes_end("coll_data");
}
