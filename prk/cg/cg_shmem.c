/*
 * Conjugate gradient kernel, OpenSHMEM version on Weft (it uses Weft's
 * nonblocking reductions, docs/nonblocking-collectives.md, so it builds
 * with Weft only).
 *
 * The allreduce of each iteration's two dot products is
 * shmem_double_sum_reduce on SHMEM_TEAM_WORLD (blocking mode) or
 * shmemx_double_sum_reduce_nb, posted before the matrix-vector product
 * and completed with shmemx_req_wait after it (nb mode). Its source and
 * destination are symmetric; one reduction is in flight at a time and
 * its buffers are written again only after its wait.
 *
 * Halo exchange: a PE puts its first grid row of the vector into its
 * lower neighbour's ghost slot and its last row into its upper
 * neighbour's, each with a put-with-signal; it computes the inner rows
 * while they travel, waits for its own two ghost rows and computes its
 * first and last rows.
 *
 * A ghost slot must not be overwritten while its owner still reads it.
 * Exchanges are numbered (e = 0, 1, ...) and alternate between two slots
 * per side (e mod 2), so a neighbour may run one exchange ahead. The
 * allreduce of the CG loop alone would not keep it from running two
 * ahead: the exchanges of set-up and validation have no collective
 * between them, and in nb mode a PE starts an iteration's exchange with
 * that iteration's reduction only posted. So the receiver gives each
 * slot back (adds 1 to the sender's `freed` counter) once it has read it,
 * and the sender of exchange e waits for e - 1 slots given back (those of
 * exchanges 0 .. e-2) before it overwrites the slot of exchange e - 2.
 * The wait is almost always already satisfied: it costs one load.
 * The arrival signal of a slot is set to e + 1: the next exchange on the
 * same slot cannot start before this one was read, so the value is never
 * overtaken by a late write.
 */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cg/cg_core.h"
#include "common/prk_comm.h"

typedef struct cg_shmem {
    cg_t *cg;
    double *ghost;      /* symmetric: [parity][side] rows of n doubles */
    uint64_t *arrived;  /* symmetric: [parity][side] last exchange + 1 there */
    uint64_t *freed;    /* symmetric: [side] slots given back by that PE */
    double *red;        /* symmetric: [0..1] partial sums, [2..3] their sums */
    int nbr[CG_NSIDES]; /* neighbour PE per side, -1 at the grid's edge */
    uint64_t epoch;     /* exchanges started by this PE */
} cg_shmem_t;

static double *cg_shmem_slot(const cg_shmem_t *c, int parity, int side)
{
    return c->ghost + (size_t)(2 * parity + side) * (size_t)c->cg->n;
}

static int cg_shmem_alloc(cg_shmem_t *c, cg_t *cg)
{
    c->cg = cg;
    for (int side = 0; side < CG_NSIDES; side++)
        c->nbr[side] = cg_neighbour(cg, side);
    /* Collective: the sizes are the same on every PE. */
    c->ghost = shmem_malloc(4 * (size_t)cg->n * sizeof(double));
    c->arrived = shmem_calloc(4, sizeof(uint64_t));
    c->freed = shmem_calloc(CG_NSIDES, sizeof(uint64_t));
    c->red = shmem_calloc(4, sizeof(double));
    return c->ghost && c->arrived && c->freed && c->red ? 0 : -1;
}

static void cg_shmem_free(cg_shmem_t *c)
{
    shmem_free(c->red);
    shmem_free(c->freed);
    shmem_free(c->arrived);
    shmem_free(c->ghost);
}

/* Puts this PE's edge rows of v into the neighbours' slots of exchange e;
 * a row sent towards `side` fills the receiver's ghost on side^1. */
static void cg_shmem_send(cg_shmem_t *c, const double *v, uint64_t e)
{
    int parity = (int)(e & 1);

    for (int side = 0; side < CG_NSIDES; side++) {
        if (c->nbr[side] < 0)
            continue;
        if (e >= 2)
            shmem_signal_wait_until(&c->freed[side], SHMEM_CMP_GE, e - 1);
        shmem_double_put_signal(cg_shmem_slot(c, parity, side ^ 1),
                                cg_edge_row(c->cg, v, side), (size_t)c->cg->n,
                                &c->arrived[2 * parity + (side ^ 1)], e + 1,
                                SHMEM_SIGNAL_SET, c->nbr[side]);
    }
}

/* This PE's ghost row on `side` for exchange e, once it has arrived. */
static const double *cg_shmem_ghost(cg_shmem_t *c, int side, uint64_t e)
{
    int parity = (int)(e & 1);

    if (c->nbr[side] < 0)
        return c->cg->zero;
    shmem_signal_wait_until(&c->arrived[2 * parity + side], SHMEM_CMP_GE,
                            e + 1);
    return cg_shmem_slot(c, parity, side);
}

/* out = A v (cg_apply_fn). */
static void cg_shmem_apply(void *ctx, const double *v, double *out)
{
    cg_shmem_t *c = ctx;
    uint64_t e = c->epoch++;
    const double *lo, *hi;

    cg_shmem_send(c, v, e);
    cg_matvec_inner(c->cg, v, out);
    lo = cg_shmem_ghost(c, CG_LO, e);
    hi = cg_shmem_ghost(c, CG_HI, e);
    cg_matvec_edges(c->cg, v, lo, hi, out);
    /* Both ghost rows are read: their slots go back to their senders
     * (this PE is its lower neighbour's upper one, and the reverse). */
    for (int side = 0; side < CG_NSIDES; side++)
        if (c->nbr[side] >= 0)
            shmem_signal_add(&c->freed[side ^ 1], 1, c->nbr[side]);
}

/* One CG iteration: the allreduce is started, the matvec computed, the
 * allreduce completed (at once in blocking mode), then the updates. */
static void cg_shmem_sweep(void *ctx, long iter)
{
    cg_shmem_t *c = ctx;
    cg_t *cg = c->cg;
    shmemx_req_h req = SHMEMX_REQ_NULL;

    c->red[0] = cg->partial[0];
    c->red[1] = cg->partial[1];
    if (cg->mode == CG_NB)
        shmemx_double_sum_reduce_nb(SHMEM_TEAM_WORLD, c->red + 2, c->red, 2,
                                    &req);
    else
        shmem_double_sum_reduce(SHMEM_TEAM_WORLD, c->red + 2, c->red, 2);
    cg_shmem_apply(c, cg->w, cg->aw);
    if (req != SHMEMX_REQ_NULL)
        shmemx_req_wait(req);
    cg_step(cg, iter, c->red[2], c->red[3]);
}

int main(int argc, char **argv)
{
    cg_t cg;
    cg_shmem_t c = {0};
    char msg[PRK_MSG_MAX] = "";
    int status = 1, err;

    if (prk_comm_init(&argc, &argv) != 0)
        return 1;
    prk_banner("conjugate gradient on a 2D Poisson matrix");
    err = cg_setup(&cg, argc, argv, prk_comm_size(), prk_comm_rank(), msg);
    if (prk_agree_error(err, msg))
        goto out_finalize;
    err = cg_alloc_fields(&cg, msg);
    if (cg_shmem_alloc(&c, &cg) != 0 && err == 0) {
        snprintf(msg, sizeof(msg),
                 "could not allocate the ghost rows (raise "
                 "SHMEM_SYMMETRIC_SIZE)");
        err = -1;
    }
    if (prk_agree_error(err, msg))
        goto out_free;
    cg_print_params(&cg);
    cg_start(&cg, cg_shmem_apply, &c);
    status = cg_finish(&cg, cg_shmem_apply, &c,
                       prk_timed_sweeps(cg.iterations, cg_shmem_sweep, &c));
out_free:
    cg_shmem_free(&c);
    cg_free_fields(&cg);
out_finalize:
    prk_comm_finalize();
    return status;
}
