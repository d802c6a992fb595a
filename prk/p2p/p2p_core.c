/*
 * Synch_p2p kernel: the parts both versions share (see p2p_core.h).
 */
#include "p2p/p2p_core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/prk_comm.h"

/* GCC and Clang on x86-64 compile an AVX-512 row for processors that
 * have it, whatever the target of the rest of the program. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define P2P_HAVE_AVX512 1
#endif

int p2p_setup(p2p_t *p, int argc, char **argv, int npes, int me,
              char msg[PRK_MSG_MAX])
{
    memset(p, 0, sizeof(*p));
    p->npes = npes;
    p->me = me;
    if (argc != 4) {
        snprintf(msg, PRK_MSG_MAX, "usage: p2p <iterations> <m> <n>");
        return -1;
    }
    if (prk_parse_long(argv[1], &p->iterations) != 0 || p->iterations < 1) {
        snprintf(msg, PRK_MSG_MAX, "iterations must be a positive integer: %s",
                 argv[1]);
        return -1;
    }
    if (prk_parse_long(argv[2], &p->m) != 0 ||
        prk_parse_long(argv[3], &p->n) != 0 || p->m < 1 || p->n < 1 ||
        p->m > (1L << 30) || p->n > (1L << 30)) {
        snprintf(msg, PRK_MSG_MAX,
                 "grid dimensions must be integers in [1, 2^30]: %s %s",
                 argv[2], argv[3]);
        return -1;
    }
    if (p->m <= npes) {
        snprintf(msg, PRK_MSG_MAX,
                 "first grid dimension %ld must exceed the number of PEs %d",
                 p->m, npes);
        return -1;
    }
    p->w = prk_block(p->m, npes, me, &p->start);
    p2p_set_layout(p, 0, 1);
#ifdef P2P_HAVE_AVX512
    p->simd = __builtin_cpu_supports("avx512f");
#endif
    return 0;
}

void p2p_set_layout(p2p_t *p, long lead, long align)
{
    long len = lead + prk_block_max(p->m, p->npes) + 1;

    p->lead = lead;
    p->ld = (len + align - 1) / align * align;
}

size_t p2p_array_count(const p2p_t *p)
{
    return (size_t)p->ld * (size_t)p->n;
}

void p2p_init(p2p_t *p)
{
    memset(p->a, 0, p2p_array_count(p) * sizeof(double));
    for (long li = 0; li <= p->w; li++)
        *p2p_at(p, li, 0) = (double)(p->start + li - 1);
    if (p->start == 0) {
        for (long j = 0; j < p->n; j++)
            *p2p_at(p, 1, j) = (double)j;
    }
}

void p2p_print_params(const p2p_t *p)
{
    if (p->me != 0)
        return;
    printf("Number of ranks                = %d\n", p->npes);
    printf("Grid sizes                     = %ld, %ld\n", p->m, p->n);
    printf("Number of iterations           = %ld\n", p->iterations);
    fflush(stdout);
}

/*
 * A row is a running sum: cur[li] = cur[li-1] + d[li] with
 * d[li] = prev[li] - prev[li-1]. Evaluated point after point, every point
 * waits for the previous addition (the reference order even waits for two).
 * Both evaluations below still form every difference d[li] and add them
 * up along the row; they only group the additions so that most of them do
 * not wait for one another. Every value is an integer held exactly in a
 * double (below 2^53 for any run that ends in reasonable time), so any
 * grouping gives the reference's values to the last bit.
 */

/* Blocks of 8 points whose partial sums do not wait for the previous
 * block; only the carry does. */
static void p2p_row_scalar(double *restrict cur, const double *restrict prev,
                           long li, long w)
{
    double carry = cur[li - 1];

    for (; li + 7 <= w; li += 8) {
        const double *q = prev + li - 1;
        double d0 = q[1] - q[0], d1 = q[2] - q[1], d2 = q[3] - q[2];
        double d3 = q[4] - q[3], d4 = q[5] - q[4], d5 = q[6] - q[5];
        double d6 = q[7] - q[6], d7 = q[8] - q[7];
        double s01 = d0 + d1, s45 = d4 + d5;
        double s03 = s01 + (d2 + d3), s47 = s45 + (d6 + d7);
        double c4 = carry + s03;

        cur[li] = carry + d0;
        cur[li + 1] = carry + s01;
        cur[li + 2] = (carry + s01) + d2;
        cur[li + 3] = c4;
        cur[li + 4] = c4 + d4;
        cur[li + 5] = c4 + s45;
        cur[li + 6] = (c4 + s45) + d6;
        carry = c4 + s47;
        cur[li + 7] = carry;
    }
    for (; li <= w; li++)
        cur[li] = cur[li - 1] + (prev[li] - prev[li - 1]);
}

#ifdef P2P_HAVE_AVX512
/* Shifts the 8 lanes of x up by k (k lanes of zeros enter at the bottom). */
#define P2P_SHIFT_UP(x, k)                                                    \
    _mm512_castsi512_pd(_mm512_alignr_epi64(                                  \
        _mm512_castpd_si512(x), _mm512_setzero_si512(), 8 - (k)))

/* The running sums of the differences d[li .. li+7] (q = prev + li) whose
 * lanes are in `lanes` (the others count as 0): lane k holds d[li] + ... +
 * d[li+k], in three shift-and-add steps. Masked lanes are not read. */
__attribute__((target("avx512f"))) static inline __m512d
p2p_scan8(const double *q, __mmask8 lanes)
{
    __m512d d = _mm512_sub_pd(_mm512_maskz_loadu_pd(lanes, q),
                              _mm512_maskz_loadu_pd(lanes, q - 1));

    d = _mm512_add_pd(d, P2P_SHIFT_UP(d, 1));
    d = _mm512_add_pd(d, P2P_SHIFT_UP(d, 2));
    return _mm512_add_pd(d, P2P_SHIFT_UP(d, 4));
}

/* Lanes of a group of 8 points of which only the first `left` exist. */
static inline __mmask8 p2p_lanes(long left)
{
    return left >= 8 ? 0xff : left <= 0 ? 0 : (__mmask8)((1u << left) - 1);
}

/* 32 points from li (only the first `left` of them when left < 32): four
 * groups of 8 summed independently, their sums added as a tree, so that
 * the carry from block to block waits for one addition. Returns the new
 * carry (meaningful after a full block). */
__attribute__((target("avx512f"))) static inline __m512d
p2p_block32(double *restrict cur, const double *restrict prev, long li,
            long left, __m512d carry)
{
    const __m512i top = _mm512_set1_epi64(7);
    __mmask8 m0 = p2p_lanes(left), m1 = p2p_lanes(left - 8);
    __mmask8 m2 = p2p_lanes(left - 16), m3 = p2p_lanes(left - 24);
    __m512d x0 = p2p_scan8(prev + li, m0), x1 = p2p_scan8(prev + li + 8, m1);
    __m512d x2 = p2p_scan8(prev + li + 16, m2);
    __m512d x3 = p2p_scan8(prev + li + 24, m3);
    __m512d t0 = _mm512_permutexvar_pd(top, x0);
    __m512d t2 = _mm512_permutexvar_pd(top, x2);
    __m512d s01 = _mm512_add_pd(t0, _mm512_permutexvar_pd(top, x1));
    __m512d s23 = _mm512_add_pd(t2, _mm512_permutexvar_pd(top, x3));
    __m512d c2 = _mm512_add_pd(carry, s01);

    _mm512_mask_storeu_pd(cur + li, m0, _mm512_add_pd(carry, x0));
    _mm512_mask_storeu_pd(cur + li + 8, m1,
                          _mm512_add_pd(_mm512_add_pd(carry, t0), x1));
    _mm512_mask_storeu_pd(cur + li + 16, m2, _mm512_add_pd(c2, x2));
    _mm512_mask_storeu_pd(cur + li + 24, m3,
                          _mm512_add_pd(_mm512_add_pd(c2, t2), x3));
    return _mm512_add_pd(carry, _mm512_add_pd(s01, s23));
}

/* The row 32 points at a time; the last block masked to the row's end. */
__attribute__((target("avx512f"))) static void
p2p_row_avx512(double *restrict cur, const double *restrict prev, long li,
               long w)
{
    __m512d carry = _mm512_set1_pd(cur[li - 1]);

    for (; li + 31 <= w; li += 32)
        carry = p2p_block32(cur, prev, li, 32, carry);
    if (li <= w)
        p2p_block32(cur, prev, li, w - li + 1, carry);
}
#endif

void p2p_row(p2p_t *p, long j)
{
    double *restrict cur = p2p_at(p, 0, j);
    const double *restrict prev = p2p_at(p, 0, j - 1);
    long li = p->start == 0 ? 2 : 1;

#ifdef P2P_HAVE_AVX512
    if (p->simd) {
        p2p_row_avx512(cur, prev, li, p->w);
        return;
    }
#endif
    p2p_row_scalar(cur, prev, li, p->w);
}

int p2p_finish(const p2p_t *p, double local_elapsed)
{
    double avgtime = prk_avgtime(local_elapsed, p->iterations);
    int last = p->me == p->npes - 1, bad = 0;
    double ref = (double)(p->iterations + 1) * (double)(p->m + p->n - 2);
    double corner = last ? *p2p_at(p, p->w, p->n - 1) : 0.0;

    if (last && fabs(corner - ref) / ref >= 1e-8) {
        printf("ERROR: checksum %lf does not match verification value %lf\n",
               corner, ref);
        fflush(stdout); /* out before the reduction lets anyone exit */
        bad = 1;
    }
    if (prk_comm_max_int(bad))
        return 1;
    if (last) {
        printf("Solution validates\n");
        printf("Rate (MFlops/s): %lf Avg time (s): %lf\n",
               1e-6 * 2.0 * (double)(p->m - 1) * (double)(p->n - 1) / avgtime,
               avgtime);
        fflush(stdout);
    }
    return 0;
}
