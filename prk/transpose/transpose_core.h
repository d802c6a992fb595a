/*
 * Transpose kernel: what the OpenSHMEM and MPI versions share (arguments,
 * layout, the tiled transposes, validation, output). Only how a block
 * travels from PE to PE differs between them.
 *
 * Column-major order x order matrices A and B; PE p owns the columns
 * [p*b, (p+1)*b), b = order/P, of both, stored as order x b local arrays
 * with a leading dimension ld a little larger than order: with order a
 * multiple of a large power of 2, the columns a tile walks across would
 * otherwise all fall into the same few cache sets.
 * A sweep adds A^T to B and 1 to every element of A right after reading it.
 * The block a PE sends to `to` is W(i,j) = A_local(to*b + j, i), b x b,
 * column-major; the receiver adds it to B_local(from*b + i, j).
 */
#ifndef PRK_TRANSPOSE_CORE_H
#define PRK_TRANSPOSE_CORE_H

#include <stddef.h>

#include "common/prk.h"

typedef struct transpose {
    long iterations;
    long order;
    long tile; /* tile edge; equal to order when tiling is off */
    int npes, me;
    long b;       /* columns per PE */
    long ld;      /* leading dimension of A and B: order, padded */
    double *a;    /* order x b; private unless the version supplied it */
    double *bmat; /* order x b, private */
    int a_owned;  /* a came from prk_alloc (freed by transpose_free_fields) */
} transpose_t;

/* Parses and checks the arguments. 0, or -1 with a reason in msg. */
int transpose_setup(transpose_t *t, int argc, char **argv, int npes, int me,
                    char msg[PRK_MSG_MAX]);
/* Allocates B, and A unless the version passes storage for it (ld x b
 * doubles, e.g. symmetric memory); sets their initial values. */
int transpose_alloc_fields(transpose_t *t, double *a, char msg[PRK_MSG_MAX]);
void transpose_free_fields(transpose_t *t);
void transpose_print_params(const transpose_t *t);

/* The diagonal block: B_local(me*b + i, j) += A_local(me*b + j, i). */
void transpose_local(transpose_t *t);

/* The block of PE `from` read in place: B_local(from*b + i, j) +=
 * A_from(me*b + j, i), adding 1 to each A element read. a_from is PE
 * from's A (its local array, or a load/store view of it); only this PE
 * ever touches those rows of it. */
void transpose_block_from(transpose_t *t, double *a_from, int from);

/* Packs columns [j0, j0 + nj) of the block for PE `to` into w (b x nj,
 * column-major, leading dimension b), adding 1 to each A element read. */
void transpose_pack(transpose_t *t, int to, long j0, long nj, double *w);

/* Adds columns [j0, j0 + nj) of the block received from PE `from`, stored
 * as b x nj column-major at w, into B. */
void transpose_add(transpose_t *t, int from, long j0, long nj, const double *w);

/* Validates collectively, prints the result on PE 0; returns the exit status. */
int transpose_finish(const transpose_t *t, double local_elapsed);

#endif /* PRK_TRANSPOSE_CORE_H */
