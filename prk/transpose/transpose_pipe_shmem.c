/*
 * Transpose kernel, pipelined alltoall, OpenSHMEM form on Weft: each
 * slice is exchanged with shmem_double_alltoall (blocking mode) or
 * shmemx_double_alltoall_nb completed by shmemx_req_wait (nonblocking
 * mode) on SHMEM_TEAM_WORLD; the schedule is transpose_pipe.c's. The
 * nonblocking alltoalls run on the team's lane
 * (docs/nonblocking-collectives.md) while the PE packs and adds.
 */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/prk_comm.h"
#include "transpose/transpose_pipe.h"

typedef struct pipe_shmem {
    shmemx_req_h req[TRANSPOSE_PIPE_SEND_SLOTS];
} pipe_shmem_t;

/* A failed collective leaves B wrong on some PE: end the job rather than
 * report a rate for it. */
static void pipe_shmem_check(int rc, const char *routine)
{
    if (rc != 0) {
        fprintf(stderr, "transpose_pipe: PE %d: %s returned %d\n",
                shmem_my_pe(), routine, rc);
        shmem_global_exit(1);
    }
}

static void pipe_shmem_exchange(void *comm, double *recv, const double *send,
                                size_t count)
{
    (void)comm;
    pipe_shmem_check(shmem_double_alltoall(SHMEM_TEAM_WORLD, recv, send,
                                           count),
                     "shmem_double_alltoall");
}

static void pipe_shmem_start(void *comm, int slot, double *recv,
                             const double *send, size_t count)
{
    pipe_shmem_t *ps = comm;

    pipe_shmem_check(shmemx_double_alltoall_nb(SHMEM_TEAM_WORLD, recv, send,
                                               count, &ps->req[slot]),
                     "shmemx_double_alltoall_nb");
}

static void pipe_shmem_finish(void *comm, int slot)
{
    pipe_shmem_t *ps = comm;

    pipe_shmem_check(shmemx_req_wait(ps->req[slot]), "shmemx_req_wait");
    ps->req[slot] = SHMEMX_REQ_NULL;
}

static const transpose_pipe_ops_t pipe_shmem_ops = {
    .exchange = pipe_shmem_exchange,
    .start = pipe_shmem_start,
    .finish = pipe_shmem_finish,
};

/* The symmetric buffers, the same size on every PE (collective). */
static int pipe_shmem_alloc(transpose_pipe_t *tp, int ok, char *msg)
{
    size_t bytes = transpose_pipe_slot_count(tp) * sizeof(double);
    int err = ok ? 0 : -1;

    for (int s = 0; s < TRANSPOSE_PIPE_SEND_SLOTS; s++)
        tp->send[s] = shmem_malloc(bytes);
    for (int s = 0; s < TRANSPOSE_PIPE_RECV_SLOTS; s++)
        tp->recv[s] = shmem_malloc(bytes);
    for (int s = 0; s < TRANSPOSE_PIPE_RECV_SLOTS && err == 0; s++)
        if (tp->recv[s] == NULL ||
            (s < TRANSPOSE_PIPE_SEND_SLOTS && tp->send[s] == NULL)) {
            snprintf(msg, PRK_MSG_MAX,
                     "could not allocate the slice buffers (raise "
                     "SHMEM_SYMMETRIC_SIZE)");
            err = -1;
        }
    return err;
}

int main(int argc, char **argv)
{
    transpose_pipe_t tp;
    pipe_shmem_t ps = {{SHMEMX_REQ_NULL, SHMEMX_REQ_NULL}};
    char msg[PRK_MSG_MAX] = "";
    int status = 1, err;

    if (prk_comm_init(&argc, &argv) != 0)
        return 1;
    prk_banner("matrix transpose (pipelined alltoall): B = A^T");
    err = transpose_pipe_setup(&tp, argc, argv, prk_comm_size(),
                               prk_comm_rank(), msg);
    if (prk_agree_error(err, msg))
        goto out_finalize;
    tp.ops = &pipe_shmem_ops;
    tp.comm = &ps;
    err = transpose_alloc_fields(&tp.t, NULL, msg);
    err = pipe_shmem_alloc(&tp, err == 0, msg);
    if (prk_agree_error(err, msg))
        goto out_free;
    transpose_pipe_print_params(&tp);
    status = transpose_finish(
        &tp.t, prk_timed_sweeps(tp.t.iterations, transpose_pipe_sweep, &tp));
out_free:
    for (int s = TRANSPOSE_PIPE_RECV_SLOTS - 1; s >= 0; s--)
        shmem_free(tp.recv[s]);
    for (int s = TRANSPOSE_PIPE_SEND_SLOTS - 1; s >= 0; s--)
        shmem_free(tp.send[s]);
    transpose_free_fields(&tp.t);
out_finalize:
    prk_comm_finalize();
    return status;
}
