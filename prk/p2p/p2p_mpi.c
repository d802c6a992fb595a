/*
 * Synch_p2p kernel, MPI point-to-point version: per row, receive the ghost
 * value from the left neighbour, compute, send the last owned value to the
 * right neighbour; at the end of a sweep the last PE sends -A(m-1,n-1) to
 * PE 0 with its own tag.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/prk_comm.h"
#include "p2p/p2p_core.h"

enum { P2P_TAG_ROW = 1, P2P_TAG_CORNER = 2 };

static void p2p_mpi_sweep(p2p_t *p)
{
    int left = p->me - 1, right = p->me + 1, last = p->npes - 1;
    double corner;

    for (long j = 1; j < p->n; j++) {
        if (left >= 0)
            MPI_Recv(p2p_at(p, 0, j), 1, MPI_DOUBLE, left, P2P_TAG_ROW,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        p2p_row(p, j);
        if (right < p->npes)
            MPI_Send(p2p_at(p, p->w, j), 1, MPI_DOUBLE, right, P2P_TAG_ROW,
                     MPI_COMM_WORLD);
    }
    if (p->npes == 1) {
        *p2p_at(p, 1, 0) = -*p2p_at(p, p->w, p->n - 1);
    } else if (p->me == last) {
        corner = -*p2p_at(p, p->w, p->n - 1);
        MPI_Send(&corner, 1, MPI_DOUBLE, 0, P2P_TAG_CORNER, MPI_COMM_WORLD);
    } else if (p->me == 0) {
        MPI_Recv(p2p_at(p, 1, 0), 1, MPI_DOUBLE, last, P2P_TAG_CORNER,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    p2p_t p;
    char msg[PRK_MSG_MAX] = "";
    double t0 = 0.0, elapsed;
    int status = 1, err;

    if (prk_comm_init(&argc, &argv) != 0)
        return 1;
    prk_banner("pipeline execution on 2D grid");
    err = p2p_setup(&p, argc, argv, prk_comm_size(), prk_comm_rank(), msg);
    if (prk_agree_error(err, msg))
        goto out_finalize;
    p.a = prk_alloc(p2p_array_count(&p), sizeof(double));
    if (p.a == NULL)
        snprintf(msg, sizeof(msg), "could not allocate the %ld x %ld array",
                 p.ld, p.n);
    if (prk_agree_error(p.a == NULL, msg))
        goto out_free;
    p2p_init(&p);
    p2p_print_params(&p);
    for (long iter = 0; iter <= p.iterations; iter++) {
        if (iter == 1) {
            prk_comm_barrier();
            t0 = prk_wtime();
        }
        p2p_mpi_sweep(&p);
    }
    elapsed = prk_wtime() - t0;
    status = p2p_finish(&p, elapsed);
out_free:
    free(p.a);
out_finalize:
    prk_comm_finalize();
    return status;
}
