/*
 * Transpose kernel, pipelined alltoall: what the OpenSHMEM and MPI forms
 * share. A sweep cuts every b x b block into `slices` column ranges and
 * exchanges them one slice at a time with an alltoall. In the nonblocking
 * mode the exchange of slice k runs while the PE adds slice k-1 into B and
 * packs slice k+1 (the first exchange runs under the diagonal block's
 * local transpose); in the blocking mode each slice's alltoall completes
 * before its blocks are added, the same arithmetic in the same order. Only
 * how an alltoall is started and completed differs between the forms.
 *
 * Arguments: <iterations> <order> <slices> <nb|blocking> [tile].
 */
#ifndef PRK_TRANSPOSE_PIPE_H
#define PRK_TRANSPOSE_PIPE_H

#include <stddef.h>

#include "transpose/transpose_core.h"

/* Slices in flight or being added at once: the exchange of slice g may
 * still run while slice g-1 is added. */
#define TRANSPOSE_PIPE_SEND_SLOTS 2
/*
 * Receive buffers, one more than in flight: a peer may post the exchange
 * of slice g+1 (and write into this PE's receive buffer for it) once its
 * exchange of slice g has completed, which needs only that this PE posted
 * slice g, not that it has added slice g-1 yet. With three buffers slice
 * g+1 lands in the one of slice g-2, which this PE added before posting g.
 */
#define TRANSPOSE_PIPE_RECV_SLOTS 3

/* How a form moves one slice: P blocks of `count` doubles, block `to` of
 * send for PE to, block `from` of recv from PE from. */
typedef struct transpose_pipe_ops {
    /* Blocking alltoall: the blocks are in recv when it returns. */
    void (*exchange)(void *comm, double *recv, const double *send,
                     size_t count);
    /* Nonblocking: starts the alltoall under request slot `slot`. */
    void (*start)(void *comm, int slot, double *recv, const double *send,
                  size_t count);
    /* Completes the alltoall started under `slot`. */
    void (*finish)(void *comm, int slot);
} transpose_pipe_ops_t;

typedef struct transpose_pipe {
    transpose_t t;
    long slices;
    int nonblocking;
    long next; /* slices exchanged so far, over all sweeps */
    double *send[TRANSPOSE_PIPE_SEND_SLOTS]; /* the form allocates these */
    double *recv[TRANSPOSE_PIPE_RECV_SLOTS];
    const transpose_pipe_ops_t *ops;
    void *comm;
} transpose_pipe_t;

/* Parses and checks the arguments (the usage line above). 0, or -1 with a
 * reason in msg. */
int transpose_pipe_setup(transpose_pipe_t *tp, int argc, char **argv,
                         int npes, int me, char msg[PRK_MSG_MAX]);
/* Doubles in each send and receive buffer: P blocks of the widest slice. */
size_t transpose_pipe_slot_count(const transpose_pipe_t *tp);
void transpose_pipe_print_params(const transpose_pipe_t *tp);
/* One sweep: B += A^T, A += 1, slice by slice (the ctx of
 * prk_timed_sweeps is the transpose_pipe_t). */
void transpose_pipe_sweep(void *ctx, long iter);

#endif /* PRK_TRANSPOSE_PIPE_H */
