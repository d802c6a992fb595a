/*
 * Conjugate gradient kernel, MPI version.
 *
 * The allreduce of each iteration's two dot products is MPI_Allreduce
 * (blocking mode) or MPI_Iallreduce, started before the matrix-vector
 * product and completed with MPI_Wait after it (nb mode).
 *
 * Halo exchange: pre-post the Irecvs of the two ghost rows, Isend the
 * first and last grid rows of the vector straight from it, compute the
 * inner rows while they travel, wait for all four and compute the first
 * and last rows. The ghost rows are private buffers; MPI's matching
 * (one exchange completes before the next starts) keeps them from being
 * overwritten while read.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "cg/cg_core.h"
#include "common/prk_comm.h"

typedef struct cg_mpi {
    cg_t *cg;
    double *ghost[CG_NSIDES]; /* private: the neighbours' rows, n each */
    int nbr[CG_NSIDES];       /* neighbour rank per side, -1 at the edge */
} cg_mpi_t;

static int cg_mpi_alloc(cg_mpi_t *c, cg_t *cg)
{
    c->cg = cg;
    for (int side = 0; side < CG_NSIDES; side++) {
        c->nbr[side] = cg_neighbour(cg, side);
        c->ghost[side] = prk_alloc((size_t)cg->n, sizeof(double));
        if (c->ghost[side] == NULL)
            return -1;
    }
    return 0;
}

static void cg_mpi_free(cg_mpi_t *c)
{
    for (int side = 0; side < CG_NSIDES; side++)
        free(c->ghost[side]);
}

/* out = A v (cg_apply_fn). A message travels with the tag of the side
 * it fills at the receiver. */
static void cg_mpi_apply(void *ctx, const double *v, double *out)
{
    cg_mpi_t *c = ctx;
    const cg_t *cg = c->cg;
    MPI_Request req[2 * CG_NSIDES];
    MPI_Status status[2 * CG_NSIDES];
    int nreq = 0, n = (int)cg->n;
    const double *ghost[CG_NSIDES];

    for (int side = 0; side < CG_NSIDES; side++) {
        ghost[side] = cg->zero;
        if (c->nbr[side] < 0)
            continue;
        ghost[side] = c->ghost[side];
        MPI_Irecv(c->ghost[side], n, MPI_DOUBLE, c->nbr[side], side,
                  MPI_COMM_WORLD, &req[nreq++]);
    }
    for (int side = 0; side < CG_NSIDES; side++) {
        if (c->nbr[side] < 0)
            continue;
        MPI_Isend(cg_edge_row(cg, v, side), n, MPI_DOUBLE, c->nbr[side],
                  side ^ 1, MPI_COMM_WORLD, &req[nreq++]);
    }
    cg_matvec_inner(cg, v, out);
    MPI_Waitall(nreq, req, status);
    cg_matvec_edges(cg, v, ghost[CG_LO], ghost[CG_HI], out);
}

/* One CG iteration: the allreduce is started, the matvec computed, the
 * allreduce completed (at once in blocking mode), then the updates. */
static void cg_mpi_sweep(void *ctx, long iter)
{
    cg_mpi_t *c = ctx;
    cg_t *cg = c->cg;
    double send[2] = {cg->partial[0], cg->partial[1]}, sum[2];
    MPI_Request req = MPI_REQUEST_NULL;

    if (cg->mode == CG_NB)
        MPI_Iallreduce(send, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
    else
        MPI_Allreduce(send, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    cg_mpi_apply(c, cg->w, cg->aw);
    MPI_Wait(&req, MPI_STATUS_IGNORE); /* a null request returns at once */
    cg_step(cg, iter, sum[0], sum[1]);
}

int main(int argc, char **argv)
{
    cg_t cg;
    cg_mpi_t c = {0};
    char msg[PRK_MSG_MAX] = "";
    int status = 1, err;

    if (prk_comm_init(&argc, &argv) != 0)
        return 1;
    prk_banner("conjugate gradient on a 2D Poisson matrix");
    err = cg_setup(&cg, argc, argv, prk_comm_size(), prk_comm_rank(), msg);
    if (prk_agree_error(err, msg))
        goto out_finalize;
    err = cg_alloc_fields(&cg, msg);
    if (err == 0 && cg_mpi_alloc(&c, &cg) != 0) {
        snprintf(msg, sizeof(msg), "could not allocate the ghost rows");
        err = -1;
    }
    if (prk_agree_error(err, msg))
        goto out_free;
    cg_print_params(&cg);
    cg_start(&cg, cg_mpi_apply, &c);
    status = cg_finish(&cg, cg_mpi_apply, &c,
                       prk_timed_sweeps(cg.iterations, cg_mpi_sweep, &c));
out_free:
    cg_mpi_free(&c);
    cg_free_fields(&cg);
out_finalize:
    prk_comm_finalize();
    return status;
}
