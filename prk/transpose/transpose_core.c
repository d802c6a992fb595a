/*
 * Transpose kernel: the parts both versions share (see transpose_core.h).
 */
#include "transpose/transpose_core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/prk_comm.h"

/* Padding of the leading dimension: one cache line. */
#define TRANSPOSE_PAD 8

static int transpose_parse(transpose_t *t, int argc, char **argv, char *msg)
{
    long tile = 32;

    if (argc != 3 && argc != 4) {
        snprintf(msg, PRK_MSG_MAX,
                 "usage: transpose <iterations> <order> [tile]");
        return -1;
    }
    if (prk_parse_long(argv[1], &t->iterations) != 0 || t->iterations < 1) {
        snprintf(msg, PRK_MSG_MAX, "iterations must be a positive integer: %s",
                 argv[1]);
        return -1;
    }
    if (prk_parse_long(argv[2], &t->order) != 0 || t->order < 1 ||
        t->order > (1L << 30)) {
        snprintf(msg, PRK_MSG_MAX,
                 "matrix order must be an integer in [1, 2^30]: %s", argv[2]);
        return -1;
    }
    if (argc == 4 && prk_parse_long(argv[3], &tile) != 0) {
        snprintf(msg, PRK_MSG_MAX, "tile size must be an integer: %s", argv[3]);
        return -1;
    }
    t->tile = tile > 0 && tile < t->order ? tile : t->order;
    return 0;
}

int transpose_setup(transpose_t *t, int argc, char **argv, int npes, int me,
                    char msg[PRK_MSG_MAX])
{
    memset(t, 0, sizeof(*t));
    t->npes = npes;
    t->me = me;
    if (transpose_parse(t, argc, argv, msg) != 0)
        return -1;
    if (t->order < npes || t->order % npes != 0) {
        snprintf(msg, PRK_MSG_MAX,
                 "matrix order %ld must be a multiple of the number of PEs %d",
                 t->order, npes);
        return -1;
    }
    t->b = t->order / npes;
    t->ld = t->order + TRANSPOSE_PAD;
    return 0;
}

int transpose_alloc_fields(transpose_t *t, double *a, char msg[PRK_MSG_MAX])
{
    size_t count = (size_t)t->ld * (size_t)t->b;

    t->a_owned = a == NULL;
    t->a = a != NULL ? a : prk_alloc(count, sizeof(double));
    t->bmat = prk_alloc(count, sizeof(double));
    if (t->a == NULL || t->bmat == NULL) {
        snprintf(msg, PRK_MSG_MAX, "could not allocate two %ld x %ld matrices",
                 t->order, t->b);
        transpose_free_fields(t);
        return -1;
    }
    for (long c = 0; c < t->b; c++)
        for (long r = 0; r < t->order; r++)
            t->a[r + c * t->ld] = (double)(t->order * (t->me * t->b + c) + r);
    memset(t->bmat, 0, count * sizeof(double));
    return 0;
}

void transpose_free_fields(transpose_t *t)
{
    if (t->a_owned)
        free(t->a);
    free(t->bmat);
    t->a = t->bmat = NULL;
}

void transpose_print_params(const transpose_t *t)
{
    if (t->me != 0)
        return;
    printf("Number of ranks      = %d\n", t->npes);
    printf("Matrix order         = %ld\n", t->order);
    if (t->tile < t->order)
        printf("Tile size            = %ld\n", t->tile);
    else
        printf("Untiled\n");
    printf("Number of iterations = %ld\n", t->iterations);
    fflush(stdout);
}

/*
 * The transposes below walk a tile edge of dst rows (i) at a time and,
 * within it, the tiles along j: src is read down its columns, a
 * continuation of where the previous tile stopped, which the hardware
 * prefetchers follow; the tile's dst segments are short pieces of as many
 * columns as the tile is wide, which they do not. So while a tile is done,
 * the dst pieces of the next one are prefetched (one per cache line), and
 * the misses overlap the work instead of following it.
 */

/* Doubles per cache line. */
#define TRANSPOSE_LINE 8

/* Prefetches dst rows [i, i + TRANSPOSE_LINE) of columns [j0, j1). */
static void transpose_prefetch(const double *dst, long ldd, long i, long j0,
                               long j1)
{
    for (long j = j0; j < j1; j++)
        __builtin_prefetch(dst + i + j * ldd, 1, 3);
}

/* dst(i, j) (+)= src(j, i) for one point, src(j, i) += 1. */
static inline void transpose_point(double *restrict src, long lds,
                                   double *restrict dst, long ldd, long i,
                                   long j, int accumulate)
{
    double *s = src + j + i * lds, *d = dst + i + j * ldd;

    *d = accumulate ? *d + *s : *s;
    *s += 1.0;
}

/* The points of rows [i0, i1) x columns [j0, j1) one by one. */
static void transpose_points(double *restrict src, long lds,
                             double *restrict dst, long ldd, long i0, long i1,
                             long j0, long j1, int accumulate)
{
    for (long i = i0; i < i1; i++)
        for (long j = j0; j < j1; j++)
            transpose_point(src, lds, dst, ldd, i, j, accumulate);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TRANSPOSE_HAVE_AVX2 1

/* A 4 x 4 square: four columns of src (unit stride) come in, get +1 and
 * go back; transposed in registers, they are added to (or stored into)
 * four columns of dst. */
__attribute__((target("avx2"))) static inline void
transpose_4x4(double *restrict s, long lds, double *restrict d, long ldd,
              int accumulate)
{
    const __m256d one = _mm256_set1_pd(1.0);
    __m256d r0 = _mm256_loadu_pd(s), r1 = _mm256_loadu_pd(s + lds);
    __m256d r2 = _mm256_loadu_pd(s + 2 * lds), r3 = _mm256_loadu_pd(s + 3 * lds);
    __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    __m256d c[4];

    _mm256_storeu_pd(s, _mm256_add_pd(r0, one));
    _mm256_storeu_pd(s + lds, _mm256_add_pd(r1, one));
    _mm256_storeu_pd(s + 2 * lds, _mm256_add_pd(r2, one));
    _mm256_storeu_pd(s + 3 * lds, _mm256_add_pd(r3, one));
    c[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
    c[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
    c[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
    c[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
    for (int k = 0; k < 4; k++) {
        double *dk = d + k * ldd;
        _mm256_storeu_pd(dk, accumulate
                                 ? _mm256_add_pd(_mm256_loadu_pd(dk), c[k])
                                 : c[k]);
    }
}

/* One tile, rows [i0, i1) x columns [j0, j1), in 4 x 4 squares; the
 * ragged edges point by point. Prefetches the dst pieces of columns
 * [pj0, pj1) along the way. */
__attribute__((target("avx2"))) static void
transpose_tile_avx2(double *restrict src, long lds, double *restrict dst,
                    long ldd, long i0, long i1, long j0, long j1, long pj0,
                    long pj1, int accumulate)
{
    long i = i0, j4 = j0 + (j1 - j0) / 4 * 4;

    for (; i + 4 <= i1; i += 4) {
        if ((i - i0) % TRANSPOSE_LINE == 0)
            transpose_prefetch(dst, ldd, i, pj0, pj1);
        for (long j = j0; j < j4; j += 4)
            transpose_4x4(src + j + i * lds, lds, dst + i + j * ldd, ldd,
                          accumulate);
        transpose_points(src, lds, dst, ldd, i, i + 4, j4, j1, accumulate);
    }
    transpose_points(src, lds, dst, ldd, i, i1, j0, j1, accumulate);
}
#endif

/* One tile point by point (processors without AVX2). */
static void transpose_tile_plain(double *restrict src, long lds,
                                 double *restrict dst, long ldd, long i0,
                                 long i1, long j0, long j1, long pj0, long pj1,
                                 int accumulate)
{
    for (long i = i0; i < i1; i++) {
        if ((i - i0) % TRANSPOSE_LINE == 0)
            transpose_prefetch(dst, ldd, i, pj0, pj1);
        transpose_points(src, lds, dst, ldd, i, i + 1, j0, j1, accumulate);
    }
}

/*
 * dst(i, j) (+)= src(j, i) for i in [0, ni), j in [0, nj), tile by tile;
 * src gets +1 on every element read. Leading dimensions lds, ldd.
 */
static void transpose_tiles(double *restrict src, long lds,
                            double *restrict dst, long ldd, long ni, long nj,
                            long tile, int accumulate)
{
#ifdef TRANSPOSE_HAVE_AVX2
    int avx2 = __builtin_cpu_supports("avx2");
#endif

    for (long i0 = 0; i0 < ni; i0 += tile) {
        long i1 = i0 + tile < ni ? i0 + tile : ni;
        for (long j0 = 0; j0 < nj; j0 += tile) {
            long j1 = j0 + tile < nj ? j0 + tile : nj;
            long pj1 = j1 + tile < nj ? j1 + tile : nj;
#ifdef TRANSPOSE_HAVE_AVX2
            if (avx2) {
                transpose_tile_avx2(src, lds, dst, ldd, i0, i1, j0, j1, j1,
                                    pj1, accumulate);
                continue;
            }
#endif
            transpose_tile_plain(src, lds, dst, ldd, i0, i1, j0, j1, j1, pj1,
                                 accumulate);
        }
    }
}

void transpose_local(transpose_t *t)
{
    transpose_block_from(t, t->a, t->me);
}

void transpose_block_from(transpose_t *t, double *a_from, int from)
{
    transpose_tiles(a_from + t->me * t->b, t->ld, t->bmat + (long)from * t->b,
                    t->ld, t->b, t->b, t->tile, 1);
}

void transpose_pack(transpose_t *t, int to, long j0, long nj, double *w)
{
    transpose_tiles(t->a + (long)to * t->b + j0, t->ld, w, t->b, t->b, nj,
                    t->tile, 0);
}

void transpose_add(transpose_t *t, int from, long j0, long nj, const double *w)
{
    for (long j = 0; j < nj; j++) {
        double *restrict d = t->bmat + (long)from * t->b + (j0 + j) * t->ld;
        const double *restrict s = w + j * t->b;
        for (long i = 0; i < t->b; i++)
            d[i] += s[i];
    }
}

int transpose_finish(const transpose_t *t, double local_elapsed)
{
    double avgtime = prk_avgtime(local_elapsed, t->iterations);
    double iters = (double)t->iterations, local_err = 0.0, abserr;

    for (long c = 0; c < t->b; c++) {
        double gc = (double)(t->me * t->b + c);
        for (long r = 0; r < t->order; r++) {
            double expect =
                ((double)t->order * (double)r + gc) * (iters + 1.0) +
                iters * (iters + 1.0) / 2.0;
            local_err += fabs(t->bmat[r + c * t->ld] - expect);
        }
    }
    abserr = prk_comm_sum_double(local_err);
    if (abserr >= 1e-8) {
        if (t->me == 0) {
            printf("ERROR: Aggregate squared error %lf exceeds threshold %e\n",
                   abserr, 1e-8);
            fflush(stdout);
        }
        prk_comm_barrier(); /* the message is out before anyone exits */
        return 1;
    }
    if (t->me == 0) {
        printf("Solution validates\n");
        printf("Rate (MB/s): %lf Avg time (s): %lf\n",
               1e-6 * 16.0 * (double)t->order * (double)t->order / avgtime,
               avgtime);
        fflush(stdout);
    }
    return 0;
}
