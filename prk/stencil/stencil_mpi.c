/*
 * Stencil kernel, MPI point-to-point version: every sweep pre-posts one
 * Irecv per neighbour, packs the x halos (the y halos are contiguous spans
 * of IN and are sent in place) and posts the Isends; it computes the inner
 * part of the tile, which reads no ghost, while they travel, then waits
 * for all of them at once, unpacks and computes the frame.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/prk_comm.h"
#include "stencil/stencil_core.h"

typedef struct stencil_mpi_bufs {
    double *recv[STENCIL_NSIDES];
    double *xsend[2]; /* packed x halos, LEFT and RIGHT */
    stencil_t *s;      /* the kernel these buffers serve */
    double *block;    /* backing store of all the above */
} stencil_mpi_bufs_t;

static int stencil_mpi_alloc(const stencil_t *s, stencil_mpi_bufs_t *b)
{
    size_t xm = stencil_xmsg_max(s), ym = stencil_ymsg_max(s);

    b->block = prk_alloc(4 * xm + 2 * ym, sizeof(double));
    if (b->block == NULL)
        return -1;
    b->recv[STENCIL_LEFT] = b->block;
    b->recv[STENCIL_RIGHT] = b->block + xm;
    b->xsend[STENCIL_LEFT] = b->block + 2 * xm;
    b->xsend[STENCIL_RIGHT] = b->block + 3 * xm;
    b->recv[STENCIL_DOWN] = b->block + 4 * xm;
    b->recv[STENCIL_UP] = b->block + 4 * xm + ym;
    return 0;
}

/* A message travels with the tag of the side it fills at the receiver.
 * Returns the number of requests in req. */
static int stencil_mpi_start(stencil_t *s, stencil_mpi_bufs_t *b,
                             MPI_Request req[2 * STENCIL_NSIDES])
{
    int nreq = 0;
    size_t count;
    const double *src;

    for (int side = 0; side < STENCIL_NSIDES; side++) {
        if (s->nbr[side] < 0)
            continue;
        count = side < STENCIL_DOWN ? (size_t)STENCIL_R * s->h
                                    : (size_t)((STENCIL_R - 1) * s->ld + s->w);
        MPI_Irecv(b->recv[side], (int)count, MPI_DOUBLE, s->nbr[side], side,
                  MPI_COMM_WORLD, &req[nreq++]);
    }
    for (int side = 0; side < STENCIL_NSIDES; side++) {
        if (s->nbr[side] < 0)
            continue;
        src = stencil_halo_out(s, side, b->xsend, &count);
        MPI_Isend(src, (int)count, MPI_DOUBLE, s->nbr[side], side ^ 1,
                  MPI_COMM_WORLD, &req[nreq++]);
    }
    return nreq;
}

static void stencil_mpi_finish(stencil_t *s, stencil_mpi_bufs_t *b,
                               MPI_Request req[], int nreq)
{
    MPI_Status status[2 * STENCIL_NSIDES];

    MPI_Waitall(nreq, req, status);
    for (int side = 0; side < STENCIL_NSIDES; side++) {
        if (s->nbr[side] < 0)
            continue;
        stencil_unpack(s, side, b->recv[side]);
    }
}

/* One sweep: the halos leave, the inner part is computed meanwhile, then
 * the ghosts are filled and the frame computed. */
static void stencil_mpi_sweep(void *ctx, long iter)
{
    stencil_mpi_bufs_t *b = ctx;
    MPI_Request req[2 * STENCIL_NSIDES];
    int nreq;

    (void)iter; /* MPI matches messages by tag, not by sweep */
    nreq = stencil_mpi_start(b->s, b, req);
    stencil_compute_inner(b->s);
    stencil_mpi_finish(b->s, b, req, nreq);
    stencil_compute_frame(b->s);
}

int main(int argc, char **argv)
{
    stencil_t s;
    stencil_mpi_bufs_t b = {.s = &s};
    char msg[PRK_MSG_MAX] = "";
    int status = 1, err;

    if (prk_comm_init(&argc, &argv) != 0)
        return 1;
    prk_banner("stencil execution on 2D grid");
    err = stencil_setup(&s, argc, argv, prk_comm_size(), prk_comm_rank(), msg);
    if (prk_agree_error(err, msg))
        goto out_finalize;
    err = stencil_alloc_fields(&s, msg);
    if (err == 0 && stencil_mpi_alloc(&s, &b) != 0) {
        snprintf(msg, sizeof(msg), "could not allocate the halo buffers");
        err = -1;
    }
    if (prk_agree_error(err, msg))
        goto out_free;
    stencil_print_params(&s);
    status = stencil_finish(&s, prk_timed_sweeps(s.iterations, stencil_mpi_sweep, &b));
out_free:
    free(b.block);
    stencil_free_fields(&s);
out_finalize:
    prk_comm_finalize();
    return status;
}
