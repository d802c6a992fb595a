/*
 * Every RMA routine of every standard RMA type (tests/gen/typed_lists.h):
 * put/get, p/g, nbi forms, iput/iget, ibput/ibget, ctx forms; then putmem/
 * getmem from 1 B to 4 MiB, the sized routines, and static (data/bss)
 * variables as targets. Each PE writes to its right neighbour.
 */
#include <stdint.h>
#include <string.h>

#include "../gen/typed_lists.h"
#include "dp_test.h"

#define NE  64
#define BIG (4u << 20)

static int me, npes, right, left;
static char *hbuf;    /* symmetric scratch: NE elements of any type */
static long sarr[NE]; /* .bss target */
static int sdata[NE] = {1, 2, 3}; /* .data target */

static inline int val(int pe, int i)
{
    return (pe * 7 + i) % 100 + 1;
}

/*
 * One function per type. Each step: clear the target, barrier, transfer,
 * barrier (or quiet), check.
 */
#define RMA_TYPED(T, N)                                                        \
    static void rma_##N(void)                                                  \
    {                                                                          \
        T *dst = (T *)hbuf, src[NE], loc[NE];                                  \
        for (int i = 0; i < NE; i++)                                           \
            src[i] = (T)val(me, i);                                            \
        memset(dst, 0, sizeof(T) * NE);                                        \
        shmem_barrier_all();                                                   \
        shmem_##N##_put(dst, src, NE, right);                                  \
        shmem_barrier_all();                                                   \
        for (int i = 0; i < NE; i++)                                           \
            CHECK(dst[i] == (T)val(left, i));                                  \
        shmem_##N##_get(loc, dst, NE, right);                                  \
        for (int i = 0; i < NE; i++)                                           \
            CHECK(loc[i] == (T)val(me, i));                                    \
        CHECK(shmem_##N##_g(&dst[5], right) == (T)val(me, 5));                 \
        shmem_barrier_all();                                                   \
        shmem_##N##_p(&dst[1], (T)77, right);                                  \
        shmem_barrier_all();                                                   \
        CHECK(dst[1] == (T)77);                                                \
        memset(dst, 0, sizeof(T) * NE);                                        \
        shmem_barrier_all();                                                   \
        shmem_##N##_put_nbi(dst, src, NE / 2, right);                          \
        shmem_ctx_##N##_put_nbi(SHMEM_CTX_DEFAULT, dst + NE / 2, src + NE / 2, \
                                NE / 2, right);                                \
        shmem_quiet();                                                         \
        shmem_barrier_all();                                                   \
        for (int i = 0; i < NE; i++)                                           \
            CHECK(dst[i] == (T)val(left, i));                                  \
        memset(loc, 0, sizeof(loc));                                           \
        shmem_##N##_get_nbi(loc, dst, NE, right);                              \
        shmem_quiet();                                                         \
        for (int i = 0; i < NE; i++)                                           \
            CHECK(loc[i] == (T)val(me, i));                                    \
        shmem_barrier_all();                                                   \
        memset(dst, 0, sizeof(T) * NE);                                        \
        shmem_barrier_all();                                                   \
        /* dst[2k] = src[k] */                                                 \
        shmem_##N##_iput(dst, src, 2, 1, NE / 2, right);                       \
        shmem_barrier_all();                                                   \
        for (int k = 0; k < NE / 2; k++)                                       \
            CHECK(dst[2 * k] == (T)val(left, k) && dst[2 * k + 1] == 0);       \
        /* loc[k] = dst[2k] of right = src[k] of me */                         \
        shmem_ctx_##N##_iget(SHMEM_CTX_DEFAULT, loc, dst, 1, 2, NE / 2,        \
                             right);                                           \
        for (int k = 0; k < NE / 2; k++)                                       \
            CHECK(loc[k] == (T)val(me, k));                                    \
        shmem_barrier_all();                                                   \
        memset(dst, 0, sizeof(T) * NE);                                        \
        shmem_barrier_all();                                                   \
        /* blocks of 2: dst[4b + j] = src[3b + j] */                           \
        shmem_##N##_ibput(dst, src, 4, 3, 2, NE / 4, right);                   \
        shmem_barrier_all();                                                   \
        for (int b = 0; b < NE / 4; b++)                                       \
            for (int j = 0; j < 4; j++)                                        \
                CHECK(dst[4 * b + j] ==                                        \
                      (j < 2 ? (T)val(left, 3 * b + j) : (T)0));               \
        memset(loc, 0, sizeof(loc));                                           \
        /* loc[3b + j] = dst[4b + j] of right = src[3b + j] of me */           \
        shmem_##N##_ibget(loc, dst, 3, 4, 2, NE / 4, right);                   \
        for (int b = 0; b < NE / 4; b++)                                       \
            for (int j = 0; j < 2; j++)                                        \
                CHECK(loc[3 * b + j] == (T)val(me, 3 * b + j));                \
        shmem_barrier_all();                                                   \
    }
WEFT_TYPES_RMA(RMA_TYPED)

static void rma_all_types(void)
{
#define RMA_CALL(T, N) rma_##N();
    WEFT_TYPES_RMA(RMA_CALL)
#undef RMA_CALL
}

/* putmem/getmem of many sizes into a big heap buffer. */
static void rma_sizes(void)
{
    static const size_t sizes[] = {1,  2,   3,    7,     8,        9,
                                   64, 100, 4096, 65539, 1u << 20, BIG};
    unsigned char *big = shmem_malloc(BIG), *src = malloc(BIG),
                  *back = malloc(BIG);

    CHECK(big && src && back);
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s], off = n < 64 ? 3 : 0;

        for (size_t i = 0; i < n; i++)
            src[i] = (unsigned char)(i * 13 + me + s);
        memset(big, 0, BIG);
        shmem_barrier_all();
        if (n + off > BIG)
            off = 0;
        shmem_putmem(big + off, src, n, right);
        shmem_barrier_all();
        for (size_t i = 0; i < n; i++)
            if (big[off + i] != (unsigned char)(i * 13 + left + s)) {
                CHECK(!"putmem data");
                break;
            }
        CHECK(off == 0 || big[off - 1] == 0);
        CHECK(off + n >= BIG || big[off + n] == 0);
        memset(back, 0, n);
        shmem_getmem(back, big + off, n, right);
        CHECK(memcmp(back, src, n) == 0);
        shmem_barrier_all();
    }
    shmem_free(big);
    free(src);
    free(back);
}

/* The sized routines and static targets. */
static void rma_sized_and_static(void)
{
    long src[NE], loc[NE];
    int isrc[NE];

    for (int i = 0; i < NE; i++)
        src[i] = val(me, i), isrc[i] = -val(me, i);
    shmem_barrier_all();
    shmem_put64(sarr, src, NE, right);
    shmem_put32(sdata, isrc, NE, right);
    shmem_barrier_all();
    for (int i = 0; i < NE; i++)
        CHECK(sarr[i] == val(left, i) && sdata[i] == -val(left, i));
    shmem_get128(loc, sarr, NE / 2, right);
    for (int i = 0; i < NE; i++)
        CHECK(loc[i] == val(me, i));
    CHECK(shmem_long_g(&sarr[3], right) == val(me, 3));
    shmem_barrier_all();
    shmem_long_p(&sarr[0], -5, right);
    shmem_iput32(sdata, isrc, 2, 1, NE / 2, right);
    shmem_quiet();
    shmem_barrier_all();
    CHECK(sarr[0] == -5);
    for (int k = 0; k < NE / 2; k++)
        CHECK(sdata[2 * k] == -val(left, k));
    shmem_barrier_all();
    /* self as target */
    shmem_long_p(&sarr[1], 4242, me);
    CHECK(sarr[1] == 4242 && shmem_long_g(&sarr[1], me) == 4242);
    shmem_barrier_all();
}

/* A context of a team numbers PEs within the team: team PE k of the team
 * {1, 2, ..., n-1} is world PE k + 1. */
static void rma_team_ctx(void)
{
    shmem_team_t team = SHMEM_TEAM_INVALID;
    shmem_ctx_t ctx;
    static long got[2];

    got[0] = got[1] = -1;
    if (npes < 2)
        return;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, npes - 1, NULL, 0, &team);
    shmem_barrier_all();
    if (team != SHMEM_TEAM_INVALID) {
        int tme = shmem_team_my_pe(team), tn = shmem_team_n_pes(team);
        long v = me;

        CHECK(shmem_team_create_ctx(team, 0, &ctx) == 0);
        shmem_ctx_long_put(ctx, &got[0], &v, 1, (tme + 1) % tn);
        shmem_ctx_quiet(ctx);
        shmem_ctx_destroy(ctx);
    }
    shmem_barrier_all();
    if (me > 0) {
        int from = me == 1 ? npes - 1 : me - 1; /* world PE of team left */
        CHECK(got[0] == from);
    } else {
        CHECK(got[0] == -1);
    }
    if (team != SHMEM_TEAM_INVALID)
        shmem_team_destroy(team);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    hbuf = shmem_malloc(NE * 16);
    CHECK(hbuf != NULL);
    rma_all_types();
    rma_sizes();
    rma_sized_and_static();
    rma_team_ctx();
    shmem_free(hbuf);
    return check_pes_end("dp_rma");
}
