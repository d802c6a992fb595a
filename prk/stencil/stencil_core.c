/*
 * Stencil kernel: the parts both versions share (see stencil_core.h).
 */
#include "stencil/stencil_core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/prk_comm.h"

#define R STENCIL_R

/* Largest divisor of npes that is <= floor(sqrt(npes + 1)). */
static int stencil_grid_x(int npes)
{
    int px = (int)sqrt((double)npes + 1.0);

    while (px * px > npes + 1)
        px--;
    while (npes % px != 0)
        px--;
    return px;
}

static int stencil_parse(stencil_t *s, int argc, char **argv, char *msg)
{
    if (argc != 3) {
        snprintf(msg, PRK_MSG_MAX, "usage: stencil <iterations> <n>");
        return -1;
    }
    if (prk_parse_long(argv[1], &s->iterations) != 0 || s->iterations < 1) {
        snprintf(msg, PRK_MSG_MAX, "iterations must be a positive integer: %s",
                 argv[1]);
        return -1;
    }
    if (prk_parse_long(argv[2], &s->n) != 0 || s->n < 1 || s->n > (1L << 30)) {
        snprintf(msg, PRK_MSG_MAX,
                 "grid size must be an integer in [1, 2^30]: %s", argv[2]);
        return -1;
    }
    return 0;
}

static void stencil_neighbours(stencil_t *s)
{
    s->nbr[STENCIL_LEFT] = s->ix > 0 ? s->me - 1 : -1;
    s->nbr[STENCIL_RIGHT] = s->ix < s->px - 1 ? s->me + 1 : -1;
    s->nbr[STENCIL_DOWN] = s->iy > 0 ? s->me - s->px : -1;
    s->nbr[STENCIL_UP] = s->iy < s->py - 1 ? s->me + s->px : -1;
    s->nnbrs = 0;
    for (int side = 0; side < STENCIL_NSIDES; side++)
        s->nnbrs += s->nbr[side] >= 0;
}

int stencil_setup(stencil_t *s, int argc, char **argv, int npes, int me,
                  char msg[PRK_MSG_MAX])
{
    memset(s, 0, sizeof(*s));
    s->npes = npes;
    s->me = me;
    if (stencil_parse(s, argc, argv, msg) != 0)
        return -1;
    if (s->n * s->n < npes) {
        snprintf(msg, PRK_MSG_MAX,
                 "grid of %ld x %ld points is too small for %d PEs", s->n, s->n,
                 npes);
        return -1;
    }
    if (2 * R + 1 > s->n) {
        snprintf(msg, PRK_MSG_MAX, "stencil radius %d exceeds grid size %ld", R,
                 s->n);
        return -1;
    }
    s->px = stencil_grid_x(npes);
    s->py = npes / s->px;
    if (s->n / s->px < R || s->n / s->py < R) {
        snprintf(
            msg, PRK_MSG_MAX,
            "tiles of %ld x %ld points are narrower than the stencil radius %d",
            s->n / s->px, s->n / s->py, R);
        return -1;
    }
    s->ix = me % s->px;
    s->iy = me / s->px;
    s->w = prk_block(s->n, s->px, s->ix, &s->istart);
    s->h = prk_block(s->n, s->py, s->iy, &s->jstart);
    s->ld = s->w + 2 * R;
    s->wmax = prk_block_max(s->n, s->px);
    s->hmax = prk_block_max(s->n, s->py);
    stencil_neighbours(s);
    return 0;
}

int stencil_alloc_fields(stencil_t *s, char msg[PRK_MSG_MAX])
{
    size_t in_count = (size_t)s->ld * (size_t)(s->h + 2 * R);

    s->in = prk_alloc(in_count, sizeof(double));
    s->out = prk_alloc((size_t)s->w * (size_t)s->h, sizeof(double));
    if (s->in == NULL || s->out == NULL) {
        snprintf(msg, PRK_MSG_MAX, "could not allocate the %ld x %ld tile",
                 s->w, s->h);
        stencil_free_fields(s);
        return -1;
    }
    memset(s->in, 0, in_count * sizeof(double));
    memset(s->out, 0, (size_t)s->w * (size_t)s->h * sizeof(double));
    for (long j = 0; j < s->h; j++)
        for (long i = 0; i < s->w; i++)
            s->in[(i + R) + (j + R) * s->ld] =
                (double)(s->istart + i + s->jstart + j);
    return 0;
}

void stencil_free_fields(stencil_t *s)
{
    free(s->in);
    free(s->out);
    s->in = s->out = NULL;
}

void stencil_print_params(const stencil_t *s)
{
    if (s->me != 0)
        return;
    printf("Number of ranks        = %d\n", s->npes);
    printf("Grid size              = %ld\n", s->n);
    printf("Radius of stencil      = %d\n", R);
    printf("Tiles in x/y-direction = %d/%d\n", s->px, s->py);
    printf("Type of stencil        = star\n");
    printf("Data type              = double precision\n");
    printf("Number of iterations   = %ld\n", s->iterations);
    fflush(stdout);
}

size_t stencil_xmsg_max(const stencil_t *s)
{
    return (size_t)R * (size_t)s->hmax;
}

size_t stencil_ymsg_max(const stencil_t *s)
{
    return (size_t)R * (size_t)(s->wmax + 2 * R);
}

/* First local x index (ghost frame included) of the R columns on `side`:
 * owned columns when `ghost` is 0, ghost columns otherwise. */
static long stencil_xcol(const stencil_t *s, int side, int ghost)
{
    if (side == STENCIL_LEFT)
        return ghost ? 0 : R;
    return ghost ? R + s->w : s->w;
}

size_t stencil_pack_x(const stencil_t *s, int side, double *buf)
{
    long i0 = stencil_xcol(s, side, 0);

    for (long j = 0; j < s->h; j++)
        memcpy(buf + j * R, s->in + i0 + (j + R) * s->ld, R * sizeof(double));
    return (size_t)R * (size_t)s->h;
}

void stencil_unpack_x(stencil_t *s, int side, const double *buf)
{
    long i0 = stencil_xcol(s, side, 1);

    for (long j = 0; j < s->h; j++)
        memcpy(s->in + i0 + (j + R) * s->ld, buf + j * R, R * sizeof(double));
}

const double *stencil_span_y(const stencil_t *s, int side, size_t *count)
{
    long j0 = side == STENCIL_DOWN ? R : s->h;

    *count = (size_t)((R - 1) * s->ld + s->w);
    return s->in + R + j0 * s->ld;
}

void stencil_unpack_y(stencil_t *s, int side, const double *buf)
{
    long j0 = side == STENCIL_DOWN ? 0 : R + s->h;

    for (long r = 0; r < R; r++)
        memcpy(s->in + R + (j0 + r) * s->ld, buf + r * s->ld,
               (size_t)s->w * sizeof(double));
}

const double *stencil_halo_out(const stencil_t *s, int side,
                               double *const xbuf[2], size_t *count)
{
    if (side < STENCIL_DOWN) {
        *count = stencil_pack_x(s, side, xbuf[side]);
        return xbuf[side];
    }
    return stencil_span_y(s, side, count);
}

void stencil_unpack(stencil_t *s, int side, const double *buf)
{
    if (side < STENCIL_DOWN)
        stencil_unpack_x(s, side, buf);
    else
        stencil_unpack_y(s, side, buf);
}

int stencil_finish(const stencil_t *s, double local_elapsed)
{
    double avgtime = prk_avgtime(local_elapsed, s->iterations);
    double interior = (double)(s->n - 2 * R) * (double)(s->n - 2 * R);
    double local_norm = 0.0, norm, reference, flops;

    for (long k = 0; k < s->w * s->h; k++)
        local_norm += fabs(s->out[k]);
    norm = prk_comm_sum_double(local_norm) / interior;
    reference = 2.0 * (double)(s->iterations + 1);
    if (fabs(norm - reference) > 1e-8) {
        if (s->me == 0) {
            printf("ERROR: L1 norm = %lf, Reference L1 norm = %lf\n", norm,
                   reference);
            fflush(stdout);
        }
        prk_comm_barrier(); /* the message is out before anyone exits */
        return 1;
    }
    flops = (double)(8 * R + 3) * interior;
    if (s->me == 0) {
        printf("Solution validates\n");
        printf("Rate (MFlops/s): %lf  Avg time (s): %lf\n",
               1e-6 * flops / avgtime, avgtime);
        fflush(stdout);
    }
    return 0;
}
