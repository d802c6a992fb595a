/*
 * Transpose kernel, pipelined alltoall, MPI form: each slice is exchanged
 * with MPI_Alltoall (blocking mode) or MPI_Ialltoall completed by MPI_Wait
 * (nonblocking mode) on MPI_COMM_WORLD; the schedule is transpose_pipe.c's,
 * the same as the OpenSHMEM form's.
 */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/prk_comm.h"
#include "transpose/transpose_pipe.h"

typedef struct pipe_mpi {
    MPI_Request req[TRANSPOSE_PIPE_SEND_SLOTS];
} pipe_mpi_t;

static void pipe_mpi_exchange(void *comm, double *recv, const double *send,
                              size_t count)
{
    (void)comm;
    MPI_Alltoall(send, (int)count, MPI_DOUBLE, recv, (int)count, MPI_DOUBLE,
                 MPI_COMM_WORLD);
}

static void pipe_mpi_start(void *comm, int slot, double *recv,
                           const double *send, size_t count)
{
    pipe_mpi_t *pm = comm;

    MPI_Ialltoall(send, (int)count, MPI_DOUBLE, recv, (int)count, MPI_DOUBLE,
                  MPI_COMM_WORLD, &pm->req[slot]);
}

static void pipe_mpi_finish(void *comm, int slot)
{
    pipe_mpi_t *pm = comm;

    MPI_Wait(&pm->req[slot], MPI_STATUS_IGNORE);
}

static const transpose_pipe_ops_t pipe_mpi_ops = {
    .exchange = pipe_mpi_exchange,
    .start = pipe_mpi_start,
    .finish = pipe_mpi_finish,
};

static int pipe_mpi_alloc(transpose_pipe_t *tp, char *msg)
{
    size_t count = transpose_pipe_slot_count(tp);

    /* MPI counts are ints: one PE's part of a slice must fit one. */
    if (count / (size_t)tp->t.npes > INT_MAX) {
        snprintf(msg, PRK_MSG_MAX,
                 "a slice of %zu doubles per rank exceeds MPI's int count "
                 "(use more slices)",
                 count / (size_t)tp->t.npes);
        return -1;
    }
    for (int s = 0; s < TRANSPOSE_PIPE_SEND_SLOTS; s++)
        if ((tp->send[s] = prk_alloc(count, sizeof(double))) == NULL)
            goto fail;
    for (int s = 0; s < TRANSPOSE_PIPE_RECV_SLOTS; s++)
        if ((tp->recv[s] = prk_alloc(count, sizeof(double))) == NULL)
            goto fail;
    return 0;
fail:
    snprintf(msg, PRK_MSG_MAX, "could not allocate the slice buffers");
    return -1;
}

int main(int argc, char **argv)
{
    transpose_pipe_t tp;
    pipe_mpi_t pm;
    char msg[PRK_MSG_MAX] = "";
    int status = 1, err;

    if (prk_comm_init(&argc, &argv) != 0)
        return 1;
    prk_banner("matrix transpose (pipelined alltoall): B = A^T");
    err = transpose_pipe_setup(&tp, argc, argv, prk_comm_size(),
                               prk_comm_rank(), msg);
    if (prk_agree_error(err, msg))
        goto out_finalize;
    for (int s = 0; s < TRANSPOSE_PIPE_SEND_SLOTS; s++)
        pm.req[s] = MPI_REQUEST_NULL;
    tp.ops = &pipe_mpi_ops;
    tp.comm = &pm;
    err = transpose_alloc_fields(&tp.t, NULL, msg);
    if (err == 0)
        err = pipe_mpi_alloc(&tp, msg);
    if (prk_agree_error(err, msg))
        goto out_free;
    transpose_pipe_print_params(&tp);
    status = transpose_finish(
        &tp.t, prk_timed_sweeps(tp.t.iterations, transpose_pipe_sweep, &tp));
out_free:
    for (int s = 0; s < TRANSPOSE_PIPE_RECV_SLOTS; s++)
        free(tp.recv[s]);
    for (int s = 0; s < TRANSPOSE_PIPE_SEND_SLOTS; s++)
        free(tp.send[s]);
    transpose_free_fields(&tp.t);
out_finalize:
    prk_comm_finalize();
    return status;
}
