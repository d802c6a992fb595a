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
 * dst(i, j) (+)= src(j, i) for i in [0, ni), j in [0, nj), tile by tile;
 * src gets +1 on every element read. Leading dimensions lds, ldd. The inner
 * loops walk src along its columns (unit stride), so its +1 vectorizes.
 */
static void transpose_tiles(double *restrict src, long lds,
                            double *restrict dst, long ldd, long ni, long nj,
                            long tile, int accumulate)
{
    for (long i0 = 0; i0 < ni; i0 += tile) {
        long i1 = i0 + tile < ni ? i0 + tile : ni;
        for (long j0 = 0; j0 < nj; j0 += tile) {
            long j1 = j0 + tile < nj ? j0 + tile : nj;
            for (long i = i0; i < i1; i++) {
                double *restrict s = src + i * lds;
                if (accumulate) {
                    for (long j = j0; j < j1; j++)
                        dst[i + j * ldd] += s[j];
                } else {
                    for (long j = j0; j < j1; j++)
                        dst[i + j * ldd] = s[j];
                }
                for (long j = j0; j < j1; j++)
                    s[j] += 1.0;
            }
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
