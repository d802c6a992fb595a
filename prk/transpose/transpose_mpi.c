/*
 * Transpose kernel, MPI point-to-point version: per phase, pre-post the
 * Irecv of the b x b block from `from`, pack the block for `to`, Isend it,
 * wait for both and add the received block into B.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/prk_comm.h"
#include "transpose/transpose_core.h"

static void transpose_mpi_sweep(transpose_t *t, double *sendbuf,
                                double *recvbuf)
{
    int count = (int)(t->b * t->b);
    MPI_Request req[2];
    MPI_Status status[2];

    transpose_local(t);
    for (int phase = 1; phase < t->npes; phase++) {
        int to = (t->me - phase + t->npes) % t->npes;
        int from = (t->me + phase) % t->npes;

        MPI_Irecv(recvbuf, count, MPI_DOUBLE, from, phase, MPI_COMM_WORLD,
                  &req[0]);
        transpose_pack(t, to, 0, t->b, sendbuf);
        MPI_Isend(sendbuf, count, MPI_DOUBLE, to, phase, MPI_COMM_WORLD,
                  &req[1]);
        MPI_Waitall(2, req, status);
        transpose_add(t, from, 0, t->b, recvbuf);
    }
}

int main(int argc, char **argv)
{
    transpose_t t;
    double *sendbuf = NULL, *recvbuf = NULL, t0 = 0.0, elapsed;
    char msg[PRK_MSG_MAX] = "";
    int status = 1, err;

    if (prk_comm_init(&argc, &argv) != 0)
        return 1;
    prk_banner("matrix transpose: B = A^T");
    err =
        transpose_setup(&t, argc, argv, prk_comm_size(), prk_comm_rank(), msg);
    if (prk_agree_error(err, msg))
        goto out_finalize;
    err = transpose_alloc_fields(&t, NULL, msg);
    if (err == 0 && t.npes > 1) {
        sendbuf = prk_alloc((size_t)t.b * (size_t)t.b, sizeof(double));
        recvbuf = prk_alloc((size_t)t.b * (size_t)t.b, sizeof(double));
        if (sendbuf == NULL || recvbuf == NULL) {
            snprintf(msg, sizeof(msg), "could not allocate the block buffers");
            err = -1;
        }
    }
    if (prk_agree_error(err, msg))
        goto out_free;
    transpose_print_params(&t);
    for (long iter = 0; iter <= t.iterations; iter++) {
        if (iter == 1) {
            prk_comm_barrier();
            t0 = prk_wtime();
        }
        transpose_mpi_sweep(&t, sendbuf, recvbuf);
    }
    elapsed = prk_wtime() - t0;
    status = transpose_finish(&t, elapsed);
out_free:
    free(sendbuf);
    free(recvbuf);
    transpose_free_fields(&t);
out_finalize:
    prk_comm_finalize();
    return status;
}
