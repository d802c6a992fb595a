/*
 * Transpose kernel, OpenSHMEM collective variant: each sweep packs the
 * blocks for all other PEs into a symmetric send buffer and exchanges them
 * with one shmem_double_alltoall on SHMEM_TEAM_WORLD, then adds the
 * received blocks into B. It shows what the library's alltoall makes of
 * the same exchange that transpose_shmem writes with puts and signals.
 *
 * The destination of an alltoall must be ready on every PE before any PE
 * calls it, and a PE leaving the sweep's alltoall may start writing into
 * the next one while its peers still add the blocks they received: the
 * receive buffer alternates by sweep parity. A PE cannot get further ahead,
 * since it cannot leave an alltoall before every PE has entered it.
 */
#include <shmem.h>
#include <stdio.h>

#include "common/prk_comm.h"
#include "transpose/transpose_core.h"

typedef struct transpose_a2a_bufs {
    double *send; /* symmetric: P blocks of b*b, block `to` for PE to */
    double *
        recv; /* symmetric: [parity] P blocks of b*b, block `from` from PE from */
} transpose_a2a_bufs_t;

static void transpose_a2a_sweep(transpose_t *t, transpose_a2a_bufs_t *ab,
                                long iter)
{
    size_t block = (size_t)t->b * (size_t)t->b;
    double *recv = ab->recv + (size_t)(iter & 1) * (size_t)t->npes * block;

    transpose_local(t);
    if (t->npes == 1)
        return;
    for (int to = 0; to < t->npes; to++)
        if (to != t->me)
            transpose_pack(t, to, 0, t->b, ab->send + (size_t)to * block);
    shmem_double_alltoall(SHMEM_TEAM_WORLD, recv, ab->send, block);
    for (int from = 0; from < t->npes; from++)
        if (from != t->me)
            transpose_add(t, from, 0, t->b, recv + (size_t)from * block);
}

int main(int argc, char **argv)
{
    transpose_t t;
    transpose_a2a_bufs_t ab = {0};
    char msg[PRK_MSG_MAX] = "";
    double t0 = 0.0, elapsed;
    int status = 1, err;
    size_t bytes;

    if (prk_comm_init(&argc, &argv) != 0)
        return 1;
    prk_banner("matrix transpose (alltoall): B = A^T");
    err =
        transpose_setup(&t, argc, argv, prk_comm_size(), prk_comm_rank(), msg);
    if (prk_agree_error(err, msg))
        goto out_finalize;
    err = transpose_alloc_fields(&t, NULL, msg);
    /* Collective: the same size on every PE. */
    bytes = (size_t)t.order * (size_t)t.b * sizeof(double);
    ab.send = shmem_malloc(bytes);
    ab.recv = shmem_malloc(2 * bytes);
    if ((ab.send == NULL || ab.recv == NULL) && err == 0) {
        snprintf(msg, sizeof(msg),
                 "could not allocate the block buffers (raise "
                 "SHMEM_SYMMETRIC_SIZE)");
        err = -1;
    }
    if (prk_agree_error(err, msg))
        goto out_free;
    transpose_print_params(&t);
    for (long iter = 0; iter <= t.iterations; iter++) {
        if (iter == 1) {
            prk_comm_barrier();
            t0 = prk_wtime();
        }
        transpose_a2a_sweep(&t, &ab, iter);
    }
    elapsed = prk_wtime() - t0;
    status = transpose_finish(&t, elapsed);
out_free:
    shmem_free(ab.recv);
    shmem_free(ab.send);
    transpose_free_fields(&t);
out_finalize:
    prk_comm_finalize();
    return status;
}
