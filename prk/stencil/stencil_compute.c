/*
 * Stencil kernel: the computation of one sweep, shared by both versions,
 * in two parts so that the halo exchange can overlap the first:
 *
 *   stencil_compute_inner: OUT += star(IN) on the points whose star reads
 *       no ghost cell (it may run while the halos travel);
 *   stencil_compute_frame: the rest of OUT, once the ghosts are filled,
 *       then IN += 1 on every owned point the first part did not bump.
 *
 * Every OUT and IN value is the one of the plain order (all of OUT, then
 * all of IN): each point's star is the same sum over the same IN values,
 * and an IN point takes its "+1" only after the last star that reads it.
 */
#include "stencil/stencil_core.h"

#define R STENCIL_R

/* o[i] += star(c)[i] for i in [ilo, ihi]: c is row j of IN (owned x
 * coordinates), o row j of OUT. The rows are parameters, not locals, so
 * that the compiler takes their restrict and vectorizes over i without a
 * run-time overlap test. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
/* 32-byte vectors where the processor has them (chosen at load time). */
__attribute__((target_clones("avx2", "default")))
#endif
static void stencil_star_row(const double *restrict c, double *restrict o,
                             long ld, const double wt[R + 1], long ilo,
                             long ihi)
{
    for (long i = ilo; i <= ihi; i++) {
        double acc = 0.0;
        /* Unrolled first, so that -O2 vectorizes the loop over i (the
         * long one), not this one over the R terms. */
#pragma GCC unroll 16
        for (int k = 1; k <= R; k++)
            acc += wt[k] * c[i + k] - wt[k] * c[i - k] +
                   wt[k] * c[i + k * ld] - wt[k] * c[i - k * ld];
        o[i] += acc;
    }
}

/* The star on row j of OUT, columns [ilo, ihi] (empty when ilo > ihi). */
static void stencil_star(stencil_t *s, long j, long ilo, long ihi)
{
    double wt[R + 1];

    if (ilo > ihi)
        return;
    for (int k = 1; k <= R; k++)
        wt[k] = 1.0 / (2.0 * k * R);
    stencil_star_row(s->in + R + (j + R) * s->ld, s->out + j * s->w, s->ld,
                     wt, ilo, ihi);
}

/* IN += 1 on the owned points [ilo, ihi] of row j. */
static void stencil_bump(stencil_t *s, long j, long ilo, long ihi)
{
    double *restrict row = s->in + R + (j + R) * s->ld;

    for (long i = ilo; i <= ihi; i++)
        row[i] += 1.0;
}

/* The part of the owned range [start, start + len) where the star fits in
 * the grid (R <= x <= n-R-1), in local coordinates: [*lo, *hi]. */
static void stencil_interior(long start, long len, long n, long *lo, long *hi)
{
    long first = start > R ? start : R;
    long last = start + len - 1 < n - R - 1 ? start + len - 1 : n - R - 1;

    *lo = first - start;
    *hi = last - start;
}

/*
 * Where the two parts meet. [ilo, ihi] x [jlo, jhi]: the points of this
 * tile that get a star. The inner block [ia, ib] x [ja, jb] is the part
 * of it whose star stays R points away from every side that has a
 * neighbour. The inner part bumps rows [ja + R, jb - R], columns
 * [ca, cb]: the IN points no star of the frame reads.
 */
typedef struct stencil_split {
    long ilo, ihi, jlo, jhi;
    long ia, ib, ja, jb;
    long ca, cb;
    int inner; /* 1 when the inner block is not empty */
} stencil_split_t;

static long stencil_max(long a, long b) { return a > b ? a : b; }
static long stencil_min(long a, long b) { return a < b ? a : b; }

static void stencil_split(const stencil_t *s, stencil_split_t *p)
{
    int left = s->nbr[STENCIL_LEFT] >= 0, right = s->nbr[STENCIL_RIGHT] >= 0;
    int down = s->nbr[STENCIL_DOWN] >= 0, up = s->nbr[STENCIL_UP] >= 0;

    stencil_interior(s->istart, s->w, s->n, &p->ilo, &p->ihi);
    stencil_interior(s->jstart, s->h, s->n, &p->jlo, &p->jhi);
    p->ia = left ? stencil_max(p->ilo, R) : p->ilo;
    p->ib = right ? stencil_min(p->ihi, s->w - 1 - R) : p->ihi;
    p->ja = down ? stencil_max(p->jlo, R) : p->jlo;
    p->jb = up ? stencil_min(p->jhi, s->h - 1 - R) : p->jhi;
    p->inner = p->ia <= p->ib && p->ja <= p->jb;
    /* The frame's side pieces read R columns beyond their own. */
    p->ca = left ? p->ia + R : 0;
    p->cb = right ? p->ib - R : s->w - 1;
}

/* 1 when the inner part bumped (some of) row j. */
static int stencil_bumped_inside(const stencil_split_t *p, long j)
{
    return p->inner && p->ca <= p->cb && j >= p->ja + R && j <= p->jb - R;
}

/*
 * The star of row j reads rows j-R .. j+R of IN, so row j-R may take its
 * "+1" as soon as row j is done: it is then still in cache, and the sweep
 * reads and writes IN once instead of twice (the grid does not fit in the
 * caches, so memory traffic sets the pace).
 */
void stencil_compute_inner(stencil_t *s)
{
    stencil_split_t p;

    stencil_split(s, &p);
    if (!p.inner)
        return;
    for (long j = p.ja; j <= p.jb; j++) {
        stencil_star(s, j, p.ia, p.ib);
        if (stencil_bumped_inside(&p, j - R))
            stencil_bump(s, j - R, p.ca, p.cb);
    }
}

void stencil_compute_frame(stencil_t *s)
{
    stencil_split_t p;

    stencil_split(s, &p);
    for (long j = p.jlo; j <= p.jhi; j++) {
        if (p.inner && j >= p.ja && j <= p.jb) {
            stencil_star(s, j, p.ilo, p.ia - 1);
            stencil_star(s, j, p.ib + 1, p.ihi);
        } else {
            stencil_star(s, j, p.ilo, p.ihi);
        }
    }
    for (long j = 0; j < s->h; j++) {
        if (stencil_bumped_inside(&p, j)) {
            stencil_bump(s, j, 0, p.ca - 1);
            stencil_bump(s, j, p.cb + 1, s->w - 1);
        } else {
            stencil_bump(s, j, 0, s->w - 1);
        }
    }
}
