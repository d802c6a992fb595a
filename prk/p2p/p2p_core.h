/*
 * Synch_p2p kernel: what the OpenSHMEM and MPI versions share.
 *
 * Grid m x n, i fastest. The i range is split into contiguous blocks; every
 * PE holds all j for its block plus one ghost column at i = start-1 (local
 * column 0). All PEs use the same row layout, so the ghost cell of row j
 * sits at the same offset on every PE and can be written directly by the
 * left neighbour. A version may reserve `lead` elements in front of each
 * row and round the row length up (both versions use the plain layout).
 */
#ifndef PRK_P2P_CORE_H
#define PRK_P2P_CORE_H

#include "common/prk.h"

typedef struct p2p {
    long iterations;
    long m, n;
    int npes, me;
    long start, w; /* owned i range [start, start + w) */
    long lead;     /* elements reserved in front of each row's ghost cell */
    long ld;       /* row length: lead + largest block + 1, rounded up */
    double *a;     /* ld x n; allocated by the version (it may be symmetric) */
    int simd;      /* p2p_row may use AVX-512 (the processor has it) */
} p2p_t;

/* Parses and checks the arguments. 0, or -1 with a reason in msg. */
int p2p_setup(p2p_t *p, int argc, char **argv, int npes, int me,
              char msg[PRK_MSG_MAX]);

/* Reserves lead elements in front of each row and rounds the row length up
 * to a multiple of align elements (call after p2p_setup, before allocating;
 * the default is lead 0, align 1). */
void p2p_set_layout(p2p_t *p, long lead, long align);

/* Elements of the array every PE allocates. */
size_t p2p_array_count(const p2p_t *p);

/* Sets the initial values into p->a (already allocated). */
void p2p_init(p2p_t *p);
void p2p_print_params(const p2p_t *p);

/* Element (local column li, row j): li 0 is the ghost column. */
static inline double *p2p_at(const p2p_t *p, long li, long j)
{
    return p->a + p->lead + li + j * p->ld;
}

/* Computes the owned points of row j (its ghost cell already filled). */
void p2p_row(p2p_t *p, long j);

/* Validates on the last PE, agrees on the result and prints; returns the
 * exit status. */
int p2p_finish(const p2p_t *p, double local_elapsed);

#endif /* PRK_P2P_CORE_H */
