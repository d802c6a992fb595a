/*
 * Conjugate gradient kernel: the parts both versions share (see cg_core.h).
 */
#include "cg/cg_core.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/prk_comm.h"

#define CG_PI 3.14159265358979323846

/*
 * The exact solution is a smooth bump plus CG_ROUGH times a pseudo-random
 * roughness in [-0.5, 0.5). The bump alone would do for the error, but
 * not for the residual: CG minimises the A-norm of the error, and the
 * 2-norm of its residual is not monotone. With a smooth right-hand side
 * the grid's high modes are present in b only at rounding level, and the
 * CG polynomial of the first iterations, whose roots lie among the low
 * eigenvalues, amplifies them by a factor that grows like n^(2k): with
 * the bump alone (CG_ROUGH 0) this program's ||b - A x|| rose to 4 times
 * ||b|| at n = 192 and 24 times at n = 512 within the first 5 iterations
 * before it fell. With every mode present in b from the start (the
 * roughness dominates b, since A amplifies high modes up to 8 times and
 * damps the bump's by 2 pi^2/n^2), this program kept ||b - A x|| below
 * 0.31 ||b|| at every iteration count tried (1-200) for n = 16-1024,
 * below 0.17 ||b|| from n = 24 on, and below 0.83 ||b|| on the smaller
 * grids (n = 8, one iteration). The error, carried by the bump, falls
 * visibly over tens of iterations: at n = 64 to 89% of ||x_true|| after
 * 10 iterations, 42% after 20 and 6% after 50.
 */
#define CG_ROUGH 0.3

/*
 * Validation bounds.
 * CG_RES_FACTOR: the recomputed residual must be below this fraction of
 * ||b|| (x0 = 0), from n = CG_RES_MIN_N on; a smaller grid has so few
 * modes that its first iterations may leave up to 0.83 ||b|| (see above),
 * and there the residual must only have fallen below ||b||.
 * CG_GAP_TOL: the recomputed residual and the recurrence's sqrt(gamma)
 * must agree within this fraction of ||b||. Their difference is at most
 * the norm of the gap between b - A x and the recurrence's r, which grows
 * with the rounding errors of every update, not with the residual: once
 * the true residual stagnates (pipelined CG stagnates earlier than plain
 * CG) the gap is most of it, so a bound relative to the final residual
 * would fail on runs that converged. Relative to ||b|| the gap stayed
 * below 2e-12 in this program's runs above; a wrong ghost row makes it of
 * the order of the residual itself.
 */
#define CG_RES_FACTOR 0.5
#define CG_RES_MIN_N  16
#define CG_GAP_TOL    1e-6

/* Independent partial sums of a dot product: the compiler vectorises a
 * loop over them, and the order of the additions stays fixed (the same
 * bits in every run and both modes). */
#define CG_LANES 8

static int cg_parse(cg_t *cg, int argc, char **argv, char *msg)
{
    if (argc != 4) {
        snprintf(msg, PRK_MSG_MAX, "usage: cg <iterations> <n> <blocking|nb>");
        return -1;
    }
    if (prk_parse_long(argv[1], &cg->iterations) != 0 || cg->iterations < 1) {
        snprintf(msg, PRK_MSG_MAX, "iterations must be a positive integer: %s",
                 argv[1]);
        return -1;
    }
    if (prk_parse_long(argv[2], &cg->n) != 0 || cg->n < 1 ||
        cg->n > (1L << 30)) {
        snprintf(msg, PRK_MSG_MAX,
                 "grid size must be an integer in [1, 2^30]: %s", argv[2]);
        return -1;
    }
    if (strcmp(argv[3], "blocking") == 0) {
        cg->mode = CG_BLOCKING;
    } else if (strcmp(argv[3], "nb") == 0) {
        cg->mode = CG_NB;
    } else {
        snprintf(msg, PRK_MSG_MAX, "allreduce mode must be blocking or nb: %s",
                 argv[3]);
        return -1;
    }
    return 0;
}

int cg_setup(cg_t *cg, int argc, char **argv, int npes, int me,
             char msg[PRK_MSG_MAX])
{
    memset(cg, 0, sizeof(*cg));
    cg->npes = npes;
    cg->me = me;
    if (cg_parse(cg, argc, argv, msg) != 0)
        return -1;
    if (cg->n % npes != 0) {
        snprintf(msg, PRK_MSG_MAX,
                 "grid size %ld must be a multiple of the number of PEs %d",
                 cg->n, npes);
        return -1;
    }
    cg->rows = cg->n / npes;
    cg->row0 = (long)me * cg->rows;
    cg->len = (size_t)cg->rows * (size_t)cg->n;
    return 0;
}

/* The bump along one axis at grid index k: sin(pi t) exp(cos(pi t) / 2),
 * t = (k + 1) / (n + 1). It is odd about t = 0 and t = 1, as a smooth
 * function that vanishes on the boundary must be to have fast-decaying
 * sine (eigenvector) coefficients. */
static double cg_bump(long k, long n)
{
    double t = CG_PI * (double)(k + 1) / (double)(n + 1);

    return sin(t) * exp(0.5 * cos(t));
}

/* A fixed pseudo-random value in [-0.5, 0.5) for unknown g (splitmix64's
 * mixing), so that x_true does not depend on the number of PEs. */
static double cg_roughness(uint64_t g)
{
    g += 0x9e3779b97f4a7c15ULL;
    g = (g ^ (g >> 30)) * 0xbf58476d1ce4e5b9ULL;
    g = (g ^ (g >> 27)) * 0x94d049bb133111ebULL;
    g ^= g >> 31;
    return (double)(g >> 11) * 0x1.0p-53 - 0.5;
}

/* Grid row j of x_true into row (n values), zeros outside the grid. */
static void cg_xtrue_row(const cg_t *cg, long j, const double *colbump,
                         double *row)
{
    double rb;

    if (j < 0 || j >= cg->n) {
        memset(row, 0, (size_t)cg->n * sizeof(double));
        return;
    }
    rb = cg_bump(j, cg->n);
    for (long i = 0; i < cg->n; i++)
        row[i] = rb * colbump[i] +
                 CG_ROUGH * cg_roughness((uint64_t)(j * cg->n + i));
}

/* Distance between the starts of two vectors in the block: the length
 * rounded up to a cache line, plus one, so that vectors walked together
 * do not start at the same offset within a page. */
static size_t cg_stride(const cg_t *cg)
{
    return (cg->len + 7) / 8 * 8 + 8;
}

/* x_true's local rows, with the rows on either side (b = A x_true needs
 * them) at xtrue - n and xtrue + len; all computed here, from the grid
 * index alone. */
static void cg_set_xtrue(cg_t *cg, const double *colbump)
{
    for (long j = -1; j <= cg->rows; j++)
        cg_xtrue_row(cg, cg->row0 + j, colbump, cg->xtrue + j * cg->n);
}

int cg_alloc_fields(cg_t *cg, char msg[PRK_MSG_MAX])
{
    size_t stride = cg_stride(cg), n = (size_t)cg->n;
    double *colbump = prk_alloc(n, sizeof(double)),
           **vec[] = {&cg->b, &cg->x, &cg->r, &cg->w,
                      &cg->z, &cg->s, &cg->p, &cg->aw};
    size_t nvec = sizeof(vec) / sizeof(vec[0]);

    /* The vectors, then x_true with a row on either side, then zeros. */
    cg->block = prk_alloc(nvec * stride + stride + 3 * n, sizeof(double));
    if (cg->block == NULL || colbump == NULL) {
        snprintf(msg, PRK_MSG_MAX,
                 "could not allocate the vectors of %ld x %ld grid points",
                 cg->rows, cg->n);
        free(colbump);
        cg_free_fields(cg);
        return -1;
    }
    for (size_t k = 0; k < nvec; k++)
        *vec[k] = cg->block + k * stride;
    cg->xtrue = cg->block + nvec * stride + n;
    cg->zero = cg->xtrue + cg->len + n;
    memset(cg->zero, 0, n * sizeof(double));
    for (long i = 0; i < cg->n; i++)
        colbump[i] = cg_bump(i, cg->n);
    cg_set_xtrue(cg, colbump);
    free(colbump);
    cg_matvec_inner(cg, cg->xtrue, cg->b);
    cg_matvec_edges(cg, cg->xtrue, cg->xtrue - n, cg->xtrue + cg->len, cg->b);
    return 0;
}

void cg_free_fields(cg_t *cg)
{
    free(cg->block);
    cg->block = NULL;
}

void cg_print_params(const cg_t *cg)
{
    if (cg->me != 0)
        return;
    printf("Number of ranks        = %d\n", cg->npes);
    printf("Grid size              = %ld\n", cg->n);
    printf("Matrix                 = 2D 5-point Poisson, %ld rows\n",
           cg->n * cg->n);
    printf("Grid rows per rank     = %ld\n", cg->rows);
    printf("Solver                 = pipelined CG (Ghysels-Vanroose)\n");
    printf("Allreduce              = %s\n",
           cg->mode == CG_NB ? "nonblocking, overlapping the matvec"
                             : "blocking, before the matvec");
    printf("Number of iterations   = %ld (and 1 untimed warm-up)\n",
           cg->iterations);
    fflush(stdout);
}

int cg_neighbour(const cg_t *cg, int side)
{
    if (side == CG_LO)
        return cg->me > 0 ? cg->me - 1 : -1;
    return cg->me < cg->npes - 1 ? cg->me + 1 : -1;
}

const double *cg_edge_row(const cg_t *cg, const double *v, int side)
{
    return side == CG_LO ? v : v + (cg->rows - 1) * cg->n;
}

/* One grid row of A v: c is the row of v, up and dn the rows before and
 * after it (zeros beyond the grid's edge). */
static void cg_matvec_row(const double *restrict up, const double *restrict c,
                          const double *restrict dn, double *restrict o, long n)
{
    if (n == 1) {
        o[0] = 4.0 * c[0] - up[0] - dn[0];
        return;
    }
    o[0] = 4.0 * c[0] - c[1] - up[0] - dn[0];
    for (long i = 1; i < n - 1; i++)
        o[i] = 4.0 * c[i] - c[i - 1] - c[i + 1] - up[i] - dn[i];
    o[n - 1] = 4.0 * c[n - 1] - c[n - 2] - up[n - 1] - dn[n - 1];
}

void cg_matvec_inner(const cg_t *cg, const double *v, double *out)
{
    long n = cg->n;

    for (long j = 1; j < cg->rows - 1; j++)
        cg_matvec_row(v + (j - 1) * n, v + j * n, v + (j + 1) * n, out + j * n,
                      n);
}

void cg_matvec_edges(const cg_t *cg, const double *v, const double *lo,
                     const double *hi, double *out)
{
    long n = cg->n, last = cg->rows - 1;

    cg_matvec_row(lo, v, last > 0 ? v + n : hi, out, n);
    if (last > 0)
        cg_matvec_row(v + (last - 1) * n, v + last * n, hi, out + last * n, n);
}

/* The lanes' partial sums added in a fixed order. */
static double cg_lanes_sum(const double acc[CG_LANES])
{
    double sum = 0.0;

    for (int l = 0; l < CG_LANES; l++)
        sum += acc[l];
    return sum;
}

/* Sum of (a - b)^2 over len elements; b NULL reads as zeros. */
static double cg_sumsq(const double *restrict a, const double *restrict b,
                       size_t len)
{
    double acc[CG_LANES] = {0.0};
    size_t k = 0;

    for (; k + CG_LANES <= len; k += CG_LANES)
        for (int l = 0; l < CG_LANES; l++) {
            double d = a[k + l] - (b != NULL ? b[k + l] : 0.0);
            acc[l] += d * d;
        }
    for (; k < len; k++) {
        double d = a[k] - (b != NULL ? b[k] : 0.0);
        acc[k % CG_LANES] += d * d;
    }
    return cg_lanes_sum(acc);
}

/* out[0] = (r,r), out[1] = (w,r) over len elements. */
static void cg_dots(const double *restrict r, const double *restrict w,
                    size_t len, double out[2])
{
    double g[CG_LANES] = {0.0}, d[CG_LANES] = {0.0};
    size_t k = 0;

    for (; k + CG_LANES <= len; k += CG_LANES)
        for (int l = 0; l < CG_LANES; l++) {
            g[l] += r[k + l] * r[k + l];
            d[l] += w[k + l] * r[k + l];
        }
    for (; k < len; k++) {
        g[k % CG_LANES] += r[k] * r[k];
        d[k % CG_LANES] += w[k] * r[k];
    }
    out[0] = cg_lanes_sum(g);
    out[1] = cg_lanes_sum(d);
}

void cg_start(cg_t *cg, cg_apply_fn apply, void *ctx)
{
    size_t bytes = cg->len * sizeof(double);

    memset(cg->x, 0, bytes);
    memset(cg->z, 0, bytes);
    memset(cg->s, 0, bytes);
    memset(cg->p, 0, bytes);
    apply(ctx, cg->x, cg->aw);
    for (size_t k = 0; k < cg->len; k++)
        cg->r[k] = cg->b[k] - cg->aw[k];
    apply(ctx, cg->r, cg->w);
    cg_dots(cg->r, cg->w, cg->len, cg->partial);
    cg->bnorm = sqrt(prk_comm_sum_double(cg_sumsq(cg->b, NULL, cg->len)));
    cg->xtruenorm =
        sqrt(prk_comm_sum_double(cg_sumsq(cg->xtrue, NULL, cg->len)));
}

/* The six updates in one pass, with the next iteration's local (r,r) and
 * (w,r) of the new r and w (into out) while they are in registers.
 * Written out in the lanes' loop, over restrict arguments, the whole pass
 * is vectorised (GCC); the tail's elements go to the lanes cg_dots gives
 * them. */
static void cg_update_vectors(double *restrict z, double *restrict s,
                              double *restrict p, double *restrict x,
                              double *restrict r, double *restrict w,
                              const double *restrict aw, size_t len,
                              double alpha, double beta, double out[2])
{
    double g[CG_LANES] = {0.0}, d[CG_LANES] = {0.0};
    size_t k = 0;

    for (; k + CG_LANES <= len; k += CG_LANES)
        for (int l = 0; l < CG_LANES; l++) {
            size_t i = k + l;
            double zi = aw[i] + beta * z[i], si = w[i] + beta * s[i];
            double pi = r[i] + beta * p[i], ri = r[i] - alpha * si;
            double wi = w[i] - alpha * zi;

            z[i] = zi;
            s[i] = si;
            p[i] = pi;
            x[i] += alpha * pi;
            r[i] = ri;
            w[i] = wi;
            g[l] += ri * ri;
            d[l] += wi * ri;
        }
    for (; k < len; k++) {
        z[k] = aw[k] + beta * z[k];
        s[k] = w[k] + beta * s[k];
        p[k] = r[k] + beta * p[k];
        x[k] += alpha * p[k];
        r[k] -= alpha * s[k];
        w[k] -= alpha * z[k];
        g[k % CG_LANES] += r[k] * r[k];
        d[k % CG_LANES] += w[k] * r[k];
    }
    out[0] = cg_lanes_sum(g);
    out[1] = cg_lanes_sum(d);
}

void cg_step(cg_t *cg, long iter, double gamma, double delta)
{
    double alpha, beta;

    if (gamma == 0.0) {
        /* r is exactly zero (a grid of one point converges in one step):
         * nothing is left to do, and the formulas would divide 0 by 0. */
        alpha = beta = 0.0;
    } else if (iter == 0) {
        beta = 0.0;
        alpha = gamma / delta;
    } else {
        beta = gamma / cg->gamma_old;
        alpha = gamma / (delta - beta * gamma / cg->alpha_old);
    }
    cg->gamma_old = gamma;
    cg->alpha_old = alpha;
    cg_update_vectors(cg->z, cg->s, cg->p, cg->x, cg->r, cg->w, cg->aw, cg->len,
                      alpha, beta, cg->partial);
}

/* The first failed check, in msg; 0 if all pass. */
static int cg_check(const cg_t *cg, double res, double rec, double err,
                    char *msg)
{
    double factor = cg->n >= CG_RES_MIN_N ? CG_RES_FACTOR : 1.0;

    if (!isfinite(res) || !isfinite(rec) || !isfinite(err)) {
        snprintf(msg, PRK_MSG_MAX, "non-finite result: residual %e, error %e",
                 res, err);
        return -1;
    }
    if (!(res < factor * cg->bnorm)) {
        snprintf(msg, PRK_MSG_MAX,
                 "residual %e is not below %g of the initial residual %e", res,
                 factor, cg->bnorm);
        return -1;
    }
    if (fabs(res - rec) > CG_GAP_TOL * cg->bnorm) {
        snprintf(msg, PRK_MSG_MAX,
                 "residual %e and recurrence residual %e differ by more than "
                 "%g ||b|| = %e",
                 res, rec, CG_GAP_TOL, CG_GAP_TOL * cg->bnorm);
        return -1;
    }
    if (!(err < cg->xtruenorm)) {
        snprintf(msg, PRK_MSG_MAX,
                 "error ||x - x_true|| = %e did not fall below ||x_true|| = %e",
                 err, cg->xtruenorm);
        return -1;
    }
    return 0;
}

/* Flops of one iteration, counting the arithmetic the matrix and the
 * vectors need (the PRK's rule): the matvec one multiplication per row of
 * A and one subtraction per off-diagonal entry, n^2 + 4n(n - 1); the two
 * dot products 2 per element each, 4n^2; the six updates y = a + c y
 * 2 per element each, 12n^2. Together 21n^2 - 4n. The scalars, the
 * additions of the allreduce across PEs and the subtractions of the zero
 * rows at the grid's top and bottom edges are not counted. */
static double cg_flops(const cg_t *cg)
{
    double n = (double)cg->n;

    return 21.0 * n * n - 4.0 * n;
}

static void cg_print_norms(const cg_t *cg, double res, double rec, double err)
{
    if (cg->me != 0)
        return;
    printf("Initial residual       = %e (||b||, x0 = 0)\n", cg->bnorm);
    printf("Final residual         = %e (||b - A x||, recomputed)\n", res);
    printf("Recurrence residual    = %e (sqrt(gamma))\n", rec);
    printf("Relative error         = %e (||x - x_true|| / ||x_true||)\n",
           err / cg->xtruenorm);
    /* The full digits: a test compares the two modes bit for bit. */
    printf("cg residual: %.17e\n", res);
    fflush(stdout);
}

/*
 * Whether the version's halo exchange delivers the neighbours' rows: b was
 * computed from rows of x_true that every PE computed itself, so A x_true
 * through the exchange must give b bit for bit (the same matvec code on
 * the same values). Without this, an exchange that always delivered the
 * same wrong rows would pass the other checks: set-up, iterations and the
 * recomputed residual would all use the same wrong matrix.
 */
static int cg_check_exchange(cg_t *cg, cg_apply_fn apply, void *ctx, char *msg)
{
    int bad;

    apply(ctx, cg->xtrue, cg->aw);
    bad = memcmp(cg->aw, cg->b, cg->len * sizeof(double)) != 0;
    if (prk_comm_max_int(bad) == 0)
        return 0;
    snprintf(msg, PRK_MSG_MAX,
             "A x_true through the halo exchange differs from b");
    return -1;
}

int cg_finish(cg_t *cg, cg_apply_fn apply, void *ctx, double local_elapsed)
{
    double avgtime = prk_avgtime(local_elapsed, cg->iterations);
    double res, rec, err;
    char msg[PRK_MSG_MAX];
    int bad;

    apply(ctx, cg->x, cg->aw);
    res = sqrt(prk_comm_sum_double(cg_sumsq(cg->b, cg->aw, cg->len)));
    rec = sqrt(prk_comm_sum_double(cg->partial[0]));
    err = sqrt(prk_comm_sum_double(cg_sumsq(cg->x, cg->xtrue, cg->len)));
    cg_print_norms(cg, res, rec, err);
    bad = cg_check_exchange(cg, apply, ctx, msg) != 0 ||
          cg_check(cg, res, rec, err, msg) != 0;
    if (bad) {
        if (cg->me == 0) {
            printf("ERROR: %s\n", msg);
            fflush(stdout);
        }
        prk_comm_barrier(); /* the message is out before anyone exits */
        return 1;
    }
    if (cg->me == 0) {
        printf("Solution validates\n");
        printf("Rate (MFlops/s): %lf  Avg time (s): %lf\n",
               1e-6 * cg_flops(cg) / avgtime, avgtime);
        fflush(stdout);
    }
    return 0;
}
