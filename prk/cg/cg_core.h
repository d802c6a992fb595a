/*
 * Conjugate gradient kernel: what the OpenSHMEM and MPI versions share
 * (arguments, fields, the matrix-vector product, the vector updates,
 * validation and output). Only the halo exchange and the allreduce differ
 * between them.
 *
 * The matrix is the 2D 5-point Poisson matrix of an n x n grid with zero
 * (Dirichlet) boundary values: 4 on the diagonal, -1 for each of the up
 * to four grid neighbours. Grid point (i, j), i the column (unit stride)
 * and j the row, is unknown j*n + i. PE p owns the grid rows
 * [p*rows, (p+1)*rows), rows = n/npes, and the same rows of every vector.
 *
 * The solver is the pipelined CG of Ghysels and Vanroose,
 * unpreconditioned: the allreduce of an
 * iteration's two dot products is started before the matrix-vector
 * product and needed only after it, so the two can overlap. Per iteration
 * (each version's sweep):
 *
 *     start the allreduce of (r,r) and (w,r)    [cg_t.partial]
 *     n = A w                                   [halo exchange + matvec]
 *     complete the allreduce                    [gamma, delta]
 *     cg_step(): the scalars, then
 *         z = n + beta z; s = w + beta s; p = r + beta p;
 *         x += alpha p;   r -= alpha s;   w -= alpha z
 *     and the local (r,r), (w,r) of the next iteration
 *
 * In the blocking mode the allreduce completes where it starts, before
 * the matrix-vector product; the arithmetic is the same, in the same
 * order, so both modes give the same bits.
 */
#ifndef PRK_CG_CORE_H
#define PRK_CG_CORE_H

#include <stddef.h>

#include "common/prk.h"

/* How a version runs the allreduce of each iteration. */
typedef enum cg_mode {
    CG_BLOCKING, /* completed before the matrix-vector product */
    CG_NB        /* started before it, completed after it */
} cg_mode_t;

typedef struct cg {
    long iterations; /* timed iterations (one untimed warm-up runs first) */
    long n;          /* grid points per dimension */
    cg_mode_t mode;
    int npes, me;
    long rows;  /* grid rows owned by this PE: n / npes */
    long row0;  /* first grid row owned by this PE */
    size_t len; /* rows * n: elements of every local vector */
    /* Local parts of the vectors (len elements each, private memory). */
    double *b, *x, *r, *w, *z, *s, *p;
    double *aw;    /* A w of the current iteration (the algorithm's n) */
    double *xtrue; /* the exact solution, x_true */
    double *zero;  /* n zeros: the ghost row beyond the grid's edge */
    double *block; /* backing store of all the above */
    /* Recurrence state, the same on every PE. */
    double partial[2]; /* this PE's (r,r) and (w,r), to be summed */
    double gamma_old, alpha_old;
    /* Norms of the set-up, for validation. */
    double bnorm;     /* ||b||: the initial residual, x0 = 0 */
    double xtruenorm; /* ||x_true||: the initial error */
} cg_t;

/* The grid neighbours of a PE's rows: the PE that owns the row before its
 * first (CG_LO) and the row after its last (CG_HI). */
enum cg_side { CG_LO, CG_HI, CG_NSIDES };

/*
 * Parses and checks the arguments (cg <iterations> <n> <blocking|nb>) and
 * fills the decomposition. Returns 0, or -1 with a one-line reason in msg
 * (no "ERROR: " prefix).
 */
int cg_setup(cg_t *cg, int argc, char **argv, int npes, int me,
             char msg[PRK_MSG_MAX]);

/* Allocates the vectors and sets x_true and b = A x_true (x = 0). Every
 * PE computes the rows of x_true it needs itself, so this exchanges
 * nothing. 0, or -1 with a reason in msg. */
int cg_alloc_fields(cg_t *cg, char msg[PRK_MSG_MAX]);
void cg_free_fields(cg_t *cg);

/* PE 0 prints the parameter lines. */
void cg_print_params(const cg_t *cg);

/* PE owning the rows on `side` of this PE's, or -1 at the grid's edge. */
int cg_neighbour(const cg_t *cg, int side);

/* The grid row this PE sends to its neighbour on `side` (its first or
 * last row of v): it fills that neighbour's ghost on the other side. */
const double *cg_edge_row(const cg_t *cg, const double *v, int side);

/*
 * out = A v on this PE's rows, in two calls: the inner rows, which read
 * no ghost row and may run while the halos travel, and the first and last
 * rows, which read the ghost rows lo (row0 - 1) and hi (row0 + rows): the
 * neighbours' rows of v, or cg->zero at the grid's edge.
 */
void cg_matvec_inner(const cg_t *cg, const double *v, double *out);
void cg_matvec_edges(const cg_t *cg, const double *v, const double *lo,
                     const double *hi, double *out);

/* out = A v, halo exchange included: what a version gives the shared
 * set-up and validation (ctx is the version's own state). */
typedef void (*cg_apply_fn)(void *ctx, const double *v, double *out);

/* r = b - A x, w = A r and their local dot products (collective). */
void cg_start(cg_t *cg, cg_apply_fn apply, void *ctx);

/* The scalars and vector updates of iteration iter, from the summed
 * gamma = (r,r) and delta = (w,r); leaves the local dot products of the
 * next iteration in cg->partial. */
void cg_step(cg_t *cg, long iter, double gamma, double delta);

/* Validates (collectively, two more halo exchanges through apply), prints
 * the result lines on PE 0 and returns the exit status: 0 if the solution
 * validates, 1 otherwise. */
int cg_finish(cg_t *cg, cg_apply_fn apply, void *ctx, double local_elapsed);

#endif /* PRK_CG_CORE_H */
