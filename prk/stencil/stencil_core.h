/*
 * Stencil kernel: what the OpenSHMEM and MPI versions share (arguments,
 * decomposition, fields, the computation, validation and output). Only the
 * halo exchange differs between them; it uses the pack/unpack helpers below
 * so that both versions move exactly the same data.
 *
 * Grid n x n, i = x (unit stride), j = y. PE id sits at (id mod px, id div
 * px) of a px x py grid of tiles. IN carries a ghost frame of STENCIL_R
 * points; OUT holds the owned points only.
 */
#ifndef PRK_STENCIL_CORE_H
#define PRK_STENCIL_CORE_H

#include <stddef.h>

#include "common/prk.h"

#ifndef STENCIL_R
#define STENCIL_R 2 /* stencil radius, fixed at compile time */
#endif

/* Sides of a tile; a message from my neighbour on side s fills my ghost on
 * side s, and I send to neighbour s the strip that fills its side s^1. */
enum stencil_side {
    STENCIL_LEFT,
    STENCIL_RIGHT,
    STENCIL_DOWN,
    STENCIL_UP,
    STENCIL_NSIDES
};

typedef struct stencil {
    long iterations;
    long n; /* grid points per dimension */
    int npes, me;
    int px, py, ix, iy;      /* PE grid and this PE's place in it */
    long istart, w;          /* owned x range [istart, istart + w) */
    long jstart, h;          /* owned y range [jstart, jstart + h) */
    long ld;                 /* leading dimension of IN: w + 2R */
    long wmax, hmax;         /* largest tile of any PE (buffer sizes) */
    int nbr[STENCIL_NSIDES]; /* neighbour PE per side, -1 for none */
    int nnbrs;               /* number of existing neighbours */
    double *in;              /* (w + 2R) x (h + 2R), ghost frame included */
    double *out;             /* w x h */
} stencil_t;

/*
 * Parses and checks the arguments on this PE and fills the decomposition.
 * Returns 0, or -1 with a one-line reason in msg (no "ERROR: " prefix).
 */
int stencil_setup(stencil_t *s, int argc, char **argv, int npes, int me,
                  char msg[PRK_MSG_MAX]);

/* Allocates and initialises IN and OUT (private memory). 0 or -1 (+ msg). */
int stencil_alloc_fields(stencil_t *s, char msg[PRK_MSG_MAX]);
void stencil_free_fields(stencil_t *s);

/* PE 0 prints the parameter lines. */
void stencil_print_params(const stencil_t *s);

/* One sweep's computation (stencil_compute.c): OUT += star(IN) on the
 * interior points, then IN += 1 on every owned point, in two calls. The
 * inner part reads no ghost cell and may run while the halos travel; the
 * frame needs the ghosts filled. The inner part bumps only IN points more
 * than R points away from each side with a neighbour, never those that
 * form the halos, so a halo sent in place from IN may still be in flight. */
void stencil_compute_inner(stencil_t *s);
void stencil_compute_frame(stencil_t *s);

/* Elements of the largest halo message along x (R columns x hmax rows) and
 * along y (a span of R rows of IN, ghost columns included). */
size_t stencil_xmsg_max(const stencil_t *s);
size_t stencil_ymsg_max(const stencil_t *s);

/* x halos: the R owned columns next to side `side` packed row by row into
 * buf (R*h elements); unpack writes R*h elements into the ghost at `side`. */
size_t stencil_pack_x(const stencil_t *s, int side, double *buf);
void stencil_unpack_x(stencil_t *s, int side, const double *buf);

/* y halos need no packing: the R owned rows next to `side` are one span of
 * IN, sent as is (*count elements from the returned address). The x ghost
 * cells inside the span land in the receiver's unused corners. */
const double *stencil_span_y(const stencil_t *s, int side, size_t *count);
void stencil_unpack_y(stencil_t *s, int side, const double *buf);

/* The halo sent towards `side`: packed into xbuf[side] along x (one
 * buffer per x side), the span of IN along y; *count elements from the
 * returned address. */
const double *stencil_halo_out(const stencil_t *s, int side,
                               double *const xbuf[2], size_t *count);

/* Writes a received halo into the ghost at `side` (x or y). */
void stencil_unpack(stencil_t *s, int side, const double *buf);

/* Validates (collectively), prints the result lines on PE 0 and returns the
 * exit status: 0 if the solution validates, 1 otherwise. */
int stencil_finish(const stencil_t *s, double local_elapsed);

#endif /* PRK_STENCIL_CORE_H */
