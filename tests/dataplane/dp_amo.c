/*
 * Every atomic of every type class (standard, extended, bitwise; blocking,
 * nbi and ctx forms) on the right neighbour's word, then contention: every
 * PE increments one counter on every PE, heap and static, 10,000 times in
 * all; no update may be lost.
 */
#include <stdint.h>
#include <string.h>

#include "../gen/typed_lists.h"
#include "dp_test.h"

#define NINC 10000

static int me, npes, right, left;
static char *hbuf;

/* The standard class: fetch_inc, inc, fetch_add, add, compare_swap. */
#define AMO_STD(T, N)                                                          \
    static void amo_std_##N(void)                                              \
    {                                                                          \
        T *w = (T *)hbuf, f = 0;                                               \
        *w = (T)10;                                                            \
        shmem_barrier_all();                                                   \
        CHECK(shmem_##N##_atomic_fetch_inc(w, right) == (T)10);                \
        shmem_##N##_atomic_inc(w, right);                                      \
        CHECK(shmem_##N##_atomic_fetch_add(w, (T)5, right) == (T)12);          \
        shmem_##N##_atomic_add(w, (T)3, right);                                \
        CHECK(shmem_##N##_atomic_compare_swap(w, (T)1, (T)2, right) == (T)20); \
        CHECK(shmem_##N##_atomic_compare_swap(w, (T)20, (T)30, right) ==       \
              (T)20);                                                          \
        shmem_##N##_atomic_fetch_inc_nbi(&f, w, right);                        \
        shmem_quiet();                                                         \
        CHECK(f == (T)30);                                                     \
        shmem_ctx_##N##_atomic_fetch_add_nbi(SHMEM_CTX_DEFAULT, &f, w, (T)4,   \
                                             right);                           \
        shmem_quiet();                                                         \
        CHECK(f == (T)31);                                                     \
        shmem_##N##_atomic_compare_swap_nbi(&f, w, (T)35, (T)40, right);       \
        shmem_quiet();                                                         \
        CHECK(f == (T)35);                                                     \
        shmem_barrier_all();                                                   \
        CHECK(*w == (T)40);                                                    \
        shmem_barrier_all();                                                   \
    }
WEFT_TYPES_AMO_STD(AMO_STD)

/* The extended class: fetch, set, swap (floating types included). */
#define AMO_EXT(T, N)                                                          \
    static void amo_ext_##N(void)                                              \
    {                                                                          \
        T *w = (T *)hbuf, f = 0;                                               \
        *w = (T)0;                                                             \
        shmem_barrier_all();                                                   \
        shmem_##N##_atomic_set(w, (T)(left + 1), left);                        \
        shmem_barrier_all();                                                   \
        CHECK(shmem_##N##_atomic_fetch(w, me) == (T)(me + 1));                 \
        shmem_barrier_all();                                                   \
        CHECK(shmem_##N##_atomic_fetch(w, right) == (T)(right + 1));           \
        CHECK(shmem_##N##_atomic_swap(w, (T)9, right) == (T)(right + 1));      \
        shmem_##N##_atomic_swap_nbi(&f, w, (T)11, right);                      \
        shmem_quiet();                                                         \
        CHECK(f == (T)9);                                                      \
        shmem_##N##_atomic_fetch_nbi(&f, w, right);                            \
        shmem_quiet();                                                         \
        CHECK(f == (T)11);                                                     \
        shmem_ctx_##N##_atomic_set(SHMEM_CTX_DEFAULT, w, (T)3, right);         \
        shmem_quiet();                                                         \
        CHECK(shmem_ctx_##N##_atomic_fetch(SHMEM_CTX_DEFAULT, w, right) ==     \
              (T)3);                                                           \
        shmem_barrier_all();                                                   \
    }
WEFT_TYPES_AMO_EXT(AMO_EXT)

/* The bitwise class: and, or, xor, with and without fetch, nbi. */
#define AMO_BIT(T, N)                                                          \
    static void amo_bit_##N(void)                                              \
    {                                                                          \
        T *w = (T *)hbuf, f = 0, g = 0;                                        \
        *w = (T)0xF0;                                                          \
        shmem_barrier_all();                                                   \
        CHECK(shmem_##N##_atomic_fetch_and(w, (T)0x3C, right) == (T)0xF0);     \
        CHECK(shmem_##N##_atomic_fetch_or(w, (T)0x03, right) == (T)0x30);      \
        CHECK(shmem_##N##_atomic_fetch_xor(w, (T)0xFF, right) == (T)0x33);     \
        shmem_##N##_atomic_and(w, (T)0x0F, right);                             \
        shmem_##N##_atomic_or(w, (T)0x100, right);                             \
        shmem_##N##_atomic_xor(w, (T)0x1, right);                              \
        shmem_##N##_atomic_fetch_xor_nbi(&f, w, (T)0, right);                  \
        shmem_quiet();                                                         \
        CHECK(f == (T)0x10D);                                                  \
        shmem_##N##_atomic_fetch_and_nbi(&f, w, (T)0xFF, right);               \
        shmem_fence();                                                         \
        shmem_##N##_atomic_fetch_or_nbi(&g, w, (T)0, right);                   \
        shmem_quiet();                                                         \
        CHECK(f == (T)0x10D && g == (T)0x0D);                                  \
        shmem_barrier_all();                                                   \
    }
WEFT_TYPES_AMO_BIT(AMO_BIT)

/* Contention: NINC increments per target split among all PEs, through
 * different routines (inc, add, fetch_inc, fetch_add, cswap loop). */
static long hcount_static;
static int32_t icount_static;

static void amo_contention(void)
{
    long *hc = shmem_calloc(1, sizeof(long));
    uint64_t *uc = shmem_calloc(1, sizeof(uint64_t));
    int per = NINC / npes, rest = NINC % npes;
    int mine = per + (me < rest);
    long last = -1;

    hcount_static = 0;
    icount_static = 0;
    shmem_barrier_all();
    for (int t = 0; t < npes; t++) {
        for (int i = 0; i < mine; i++) {
            switch (i % 5) {
            case 0: shmem_long_atomic_inc(hc, t); break;
            case 1: shmem_long_atomic_add(hc, 1, t); break;
            case 2: {
                long v = shmem_long_atomic_fetch_inc(hc, t);
                CHECK(v >= 0 && v < NINC);
                break;
            }
            case 3: shmem_long_atomic_fetch_add(hc, 1, t); break;
            default: {
                long old = shmem_long_atomic_fetch(hc, t), seen;
                while ((seen = shmem_long_atomic_compare_swap(hc, old, old + 1,
                                                              t)) != old)
                    old = seen;
                break;
            }
            }
            shmem_uint64_atomic_add(uc, 3, t);
            shmem_long_atomic_inc(&hcount_static, t);
            last = shmem_int32_atomic_fetch_add(&icount_static, 2, t);
        }
    }
    CHECK(last >= 0);
    shmem_quiet();
    shmem_barrier_all();
    CHECK(*hc == NINC);
    CHECK(*uc == 3u * NINC);
    CHECK(hcount_static == NINC);
    CHECK(icount_static == 2 * NINC);
    if (*hc != NINC || hcount_static != NINC)
        fprintf(stderr, "PE %d: counters %ld %ld, expected %d\n", me, *hc,
                hcount_static, NINC);
    shmem_barrier_all();
    shmem_free(hc);
    shmem_free(uc);
}

int main(void)
{
    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    hbuf = shmem_malloc(64);
#define CALL_STD(T, N) amo_std_##N();
#define CALL_EXT(T, N) amo_ext_##N();
#define CALL_BIT(T, N) amo_bit_##N();
    WEFT_TYPES_AMO_STD(CALL_STD)
    WEFT_TYPES_AMO_EXT(CALL_EXT)
    WEFT_TYPES_AMO_BIT(CALL_BIT)
    amo_contention();
    shmem_free(hbuf);
    return check_pes_end("dp_amo");
}
