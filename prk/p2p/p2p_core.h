/*
 * Synch_p2p kernel: what the OpenSHMEM and MPI versions share.
 *
 * Grid m x n, i fastest. The i range is split into contiguous blocks; every
 * PE holds all j for its block plus one ghost column at i = start-1 (local
 * column 0). All PEs use the same leading dimension (largest block + 1), so
 * the ghost cell of row j sits at the same offset j*ld on every PE and can
 * be written directly by the left neighbour.
 */
#ifndef PRK_P2P_CORE_H
#define PRK_P2P_CORE_H

#include "common/prk.h"

typedef struct p2p {
    long iterations;
    long m, n;
    int npes, me;
    long start, w; /* owned i range [start, start + w) */
    long ld;       /* leading dimension: largest block + 1 */
    double *a;     /* ld x n; allocated by the version (it may be symmetric) */
} p2p_t;

/* Parses and checks the arguments. 0, or -1 with a reason in msg. */
int p2p_setup(p2p_t *p, int argc, char **argv, int npes, int me,
              char msg[PRK_MSG_MAX]);

/* Elements of the array every PE allocates. */
size_t p2p_array_count(const p2p_t *p);

/* Sets the initial values into p->a (already allocated). */
void p2p_init(p2p_t *p);
void p2p_print_params(const p2p_t *p);

/* Element (local column li, row j): li 0 is the ghost column. */
static inline double *p2p_at(const p2p_t *p, long li, long j)
{
    return p->a + li + j * p->ld;
}

/* Computes the owned points of row j (its ghost cell already filled). */
void p2p_row(p2p_t *p, long j);

/* Validates on the last PE, agrees on the result and prints; returns the
 * exit status. */
int p2p_finish(const p2p_t *p, double local_elapsed);

#endif /* PRK_P2P_CORE_H */
