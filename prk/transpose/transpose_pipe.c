/*
 * Transpose kernel, pipelined alltoall: the schedule both forms share (see
 * transpose_pipe.h).
 */
#include "transpose/transpose_pipe.h"

#include <stdio.h>
#include <string.h>

int transpose_pipe_setup(transpose_pipe_t *tp, int argc, char **argv,
                         int npes, int me, char msg[PRK_MSG_MAX])
{
    char *core_argv[4];
    int core_argc = 3;

    memset(tp, 0, sizeof(*tp));
    if (argc != 5 && argc != 6) {
        snprintf(msg, PRK_MSG_MAX,
                 "usage: transpose_pipe <iterations> <order> <slices> "
                 "<nb|blocking> [tile]");
        return -1;
    }
    /* The plain transpose's arguments are <iterations> <order> [tile]. */
    core_argv[0] = argv[0];
    core_argv[1] = argv[1];
    core_argv[2] = argv[2];
    if (argc == 6)
        core_argv[core_argc++] = argv[5];
    if (transpose_setup(&tp->t, core_argc, core_argv, npes, me, msg) != 0)
        return -1;
    if (prk_parse_long(argv[3], &tp->slices) != 0 || tp->slices < 1 ||
        tp->slices > tp->t.b) {
        snprintf(msg, PRK_MSG_MAX,
                 "slices must be an integer in [1, %ld] (the columns per "
                 "PE): %s",
                 tp->t.b, argv[3]);
        return -1;
    }
    if (strcmp(argv[4], "nb") == 0) {
        tp->nonblocking = 1;
    } else if (strcmp(argv[4], "blocking") != 0) {
        snprintf(msg, PRK_MSG_MAX, "mode must be nb or blocking: %s", argv[4]);
        return -1;
    }
    return 0;
}

size_t transpose_pipe_slot_count(const transpose_pipe_t *tp)
{
    return (size_t)tp->t.npes * (size_t)tp->t.b *
           (size_t)prk_block_max(tp->t.b, (int)tp->slices);
}

void transpose_pipe_print_params(const transpose_pipe_t *tp)
{
    transpose_print_params(&tp->t);
    if (tp->t.me != 0)
        return;
    printf("Slices per block     = %ld\n", tp->slices);
    printf("Alltoall             = %s\n",
           tp->nonblocking ? "nonblocking, pipelined" : "blocking");
    fflush(stdout);
}

/* Packs columns [j0, j0 + nj) of every other PE's block into send. */
static void pipe_pack(transpose_t *t, long j0, long nj, double *send)
{
    size_t count = (size_t)t->b * (size_t)nj;

    for (int to = 0; to < t->npes; to++)
        if (to != t->me)
            transpose_pack(t, to, j0, nj, send + (size_t)to * count);
}

/* Adds columns [j0, j0 + nj) of every other PE's block from recv. */
static void pipe_add(transpose_t *t, long j0, long nj, const double *recv)
{
    size_t count = (size_t)t->b * (size_t)nj;

    for (int from = 0; from < t->npes; from++)
        if (from != t->me)
            transpose_add(t, from, j0, nj, recv + (size_t)from * count);
}

void transpose_pipe_sweep(void *ctx, long iter)
{
    transpose_pipe_t *tp = ctx;
    transpose_t *t = &tp->t;
    const transpose_pipe_ops_t *ops = tp->ops;
    long j0 = 0, nj, prev_j0 = 0, prev_nj = 0;
    double *prev_recv = NULL;

    (void)iter;
    if (t->npes == 1) {
        transpose_local(t);
        return;
    }
    for (long k = 0; k < tp->slices; k++) {
        long g = tp->next++;
        double *send = tp->send[g % TRANSPOSE_PIPE_SEND_SLOTS];
        double *recv = tp->recv[g % TRANSPOSE_PIPE_RECV_SLOTS];
        size_t count;

        nj = prk_block(t->b, (int)tp->slices, (int)k, &j0);
        count = (size_t)t->b * (size_t)nj;
        /* Slice g-2's exchange, whose send buffer this is, completed
         * before slice g-1 was added. */
        pipe_pack(t, j0, nj, send);
        if (!tp->nonblocking) {
            ops->exchange(tp->comm, recv, send, count);
            if (k == 0)
                transpose_local(t);
            pipe_add(t, j0, nj, recv);
            continue;
        }
        ops->start(tp->comm, (int)(g % TRANSPOSE_PIPE_SEND_SLOTS), recv, send,
                   count);
        if (k == 0) {
            transpose_local(t); /* under the first slice's exchange */
        } else {
            ops->finish(tp->comm, (int)((g - 1) % TRANSPOSE_PIPE_SEND_SLOTS));
            pipe_add(t, prev_j0, prev_nj, prev_recv);
        }
        prev_j0 = j0;
        prev_nj = nj;
        prev_recv = recv;
    }
    if (tp->nonblocking) {
        ops->finish(tp->comm,
                    (int)((tp->next - 1) % TRANSPOSE_PIPE_SEND_SLOTS));
        pipe_add(t, prev_j0, prev_nj, prev_recv);
    }
}
