/*
 * Stencil kernel, OpenSHMEM version. Each halo goes straight into the
 * neighbour's symmetric receive buffer with one put-with-signal that adds 1
 * to the neighbour's arrival counter for the sweep's parity. While the
 * halos travel a PE computes the inner part of its tile, which reads no
 * ghost; then it waits once, for all its neighbours, until that counter
 * reaches nnbrs * (iter/2 + 1), unpacks and computes the frame. The data
 * lands without the receiver taking part, so the wait is short. Two
 * buffers per side (by parity) let a neighbour run one sweep ahead, which
 * is as far as the halo dependence lets it go, so no acknowledgement and
 * no barrier is needed inside the loop.
 */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/prk_comm.h"
#include "common/shmem_compat.h"
#include "stencil/stencil_core.h"

typedef struct stencil_shmem_bufs {
    double *recv; /* symmetric: [side][parity] slots of `slot` elements */
    size_t slot;
    uint64_t *arrived; /* symmetric: arrival counter per parity */
    double *xsend[2];  /* private: packed x halos, LEFT and RIGHT */
    stencil_t *s;      /* the kernel these buffers serve */
} stencil_shmem_bufs_t;

static double *stencil_shmem_slot(const stencil_shmem_bufs_t *b, int side,
                                  int parity)
{
    return b->recv + (size_t)(2 * side + parity) * b->slot;
}

static int stencil_shmem_alloc(const stencil_t *s, stencil_shmem_bufs_t *b)
{
    size_t xm = stencil_xmsg_max(s), ym = stencil_ymsg_max(s);

    /* Collective: the sizes are the same on every PE. */
    b->slot = xm > ym ? xm : ym;
    b->recv = shmem_malloc(2 * STENCIL_NSIDES * b->slot * sizeof(double));
    b->arrived = shmem_calloc(2, sizeof(uint64_t));
    b->xsend[0] = prk_alloc(2 * xm, sizeof(double));
    b->xsend[1] = b->xsend[0] ? b->xsend[0] + xm : NULL;
    return b->recv && b->arrived && b->xsend[0] ? 0 : -1;
}

static void stencil_shmem_free(stencil_shmem_bufs_t *b)
{
    free(b->xsend[0]);
    shmem_free(b->arrived);
    shmem_free(b->recv);
}

static void stencil_shmem_send(stencil_t *s, stencil_shmem_bufs_t *b,
                               long iter)
{
    int parity = (int)(iter & 1);
    size_t count;
    const double *src;

    for (int side = 0; side < STENCIL_NSIDES; side++) {
        if (s->nbr[side] < 0)
            continue;
        src = stencil_halo_out(s, side, b->xsend, &count);
        shmem_double_put_signal(stencil_shmem_slot(b, side ^ 1, parity), src,
                                count, &b->arrived[parity], 1,
                                SHMEM_SIGNAL_ADD, s->nbr[side]);
    }
}

static void stencil_shmem_receive(stencil_t *s, stencil_shmem_bufs_t *b,
                                  long iter)
{
    int parity = (int)(iter & 1);

    shmem_signal_wait_until(&b->arrived[parity], SHMEM_CMP_GE,
                            (uint64_t)s->nnbrs * (uint64_t)(iter / 2 + 1));
    for (int side = 0; side < STENCIL_NSIDES; side++) {
        if (s->nbr[side] < 0)
            continue;
        stencil_unpack(s, side, stencil_shmem_slot(b, side, parity));
    }
}

/* One sweep: the halos leave, the inner part is computed meanwhile, then
 * the ghosts are filled and the frame computed. */
static void stencil_shmem_sweep(void *ctx, long iter)
{
    stencil_shmem_bufs_t *b = ctx;

    stencil_shmem_send(b->s, b, iter);
    stencil_compute_inner(b->s);
    stencil_shmem_receive(b->s, b, iter);
    stencil_compute_frame(b->s);
}

int main(int argc, char **argv)
{
    stencil_t s;
    stencil_shmem_bufs_t b = {.s = &s};
    char msg[PRK_MSG_MAX] = "";
    int status = 1, err;

    if (prk_comm_init(&argc, &argv) != 0)
        return 1;
    prk_banner("stencil execution on 2D grid");
    err = stencil_setup(&s, argc, argv, prk_comm_size(), prk_comm_rank(), msg);
    if (prk_agree_error(err, msg))
        goto out_finalize;
    err = stencil_alloc_fields(&s, msg);
    if (stencil_shmem_alloc(&s, &b) != 0 && err == 0) {
        snprintf(
            msg, sizeof(msg),
            "could not allocate the halo buffers (raise SHMEM_SYMMETRIC_SIZE)");
        err = -1;
    }
    if (prk_agree_error(err, msg))
        goto out_free;
    stencil_print_params(&s);
    status = stencil_finish(&s, prk_timed_sweeps(s.iterations, stencil_shmem_sweep, &b));
out_free:
    stencil_shmem_free(&b);
    stencil_free_fields(&s);
out_finalize:
    prk_comm_finalize();
    return status;
}
