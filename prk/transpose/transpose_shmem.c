/*
 * Transpose kernel, OpenSHMEM version.
 *
 * When every PE is on this node (shmem_ptr gives a load/store view of each
 * peer's symmetric A), a PE reads the block it needs in place: the rows
 * [me*b, me*b+b) of PE p's A are read and incremented by this PE alone (p
 * touches only its own diagonal block rows), so the block is transposed
 * straight from p's A into B like the diagonal block, with no pack, no
 * copy and no synchronization inside a sweep. Sweep k of this PE finds
 * those elements at their sweep-k values because nobody else changes them.
 *
 * Otherwise (PEs on several nodes, or SHMEM_LOCAL=0) blocks travel by
 * put-with-signal, as follows.
 *
 * The block for `to` never exists as a whole, neither on the sender nor on
 * the receiver. The sender packs it a panel of columns at a time into a
 * small private buffer and puts each panel straight into one slot of a
 * ring of TRANSPOSE_SLOTS panel buffers on the receiver, with a
 * put-with-signal that adds 1 to the receiver's arrival counter for the
 * phase. The receiver adds the panel into B and gives the slot back by
 * adding 1 to the sender's credit counter for the phase. The ring is small
 * enough to stay in cache, so the exchange costs no memory traffic beyond
 * reading A and updating B; it is the PRK's "buffer free" flag and arrival
 * count at panel granularity.
 *
 * Panels are numbered across sweeps (q = iter * npanels + k), so counters
 * only grow and are never reset. Sending panel q needs credit q - SLOTS + 1;
 * every wait depends only on earlier panels of the same phase or on earlier
 * phases and sweeps, so the pipeline cannot deadlock.
 */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/prk_comm.h"
#include "common/shmem_compat.h"
#include "transpose/transpose_core.h"

/* Bytes of one panel, and panels in flight per phase: the ring and the
 * packing buffer together stay well inside a core's L2 cache. */
#ifndef TRANSPOSE_PANEL_BYTES
#define TRANSPOSE_PANEL_BYTES (128 * 1024)
#endif
#ifndef TRANSPOSE_SLOTS
#define TRANSPOSE_SLOTS 4
#endif

typedef struct transpose_shmem_bufs {
    double *ring; /* symmetric: [phase-1][slot] panels of b*pw */
    uint64_t
        *arrived;    /* symmetric: [phase-1] panels received (bumped by from) */
    uint64_t *freed; /* symmetric: [phase-1] slots given back (bumped by to) */
    double *panel;   /* private: the panel being packed */
    long pw;         /* columns per panel */
    long npanels;    /* panels per block */
} transpose_shmem_bufs_t;

static long transpose_panel_width(const transpose_t *t)
{
    long pw = TRANSPOSE_PANEL_BYTES / (long)sizeof(double) / t->b;

    if (pw < 1)
        pw = 1;
    if (pw > t->tile)
        pw -= pw % t->tile;
    return pw < t->b ? pw : t->b;
}

static int transpose_shmem_alloc(const transpose_t *t,
                                 transpose_shmem_bufs_t *sb)
{
    size_t nphases = (size_t)(t->npes - 1);

    sb->pw = transpose_panel_width(t);
    sb->npanels = (t->b + sb->pw - 1) / sb->pw;
    /* Collective: every PE asks for the same sizes. */
    sb->ring = shmem_malloc(nphases * TRANSPOSE_SLOTS * (size_t)sb->pw *
                            (size_t)t->b * sizeof(double));
    sb->arrived = shmem_calloc(nphases + 1, sizeof(uint64_t));
    sb->freed = shmem_calloc(nphases + 1, sizeof(uint64_t));
    sb->panel = prk_alloc((size_t)t->b * (size_t)sb->pw, sizeof(double));
    if ((nphases && sb->ring == NULL) || !sb->arrived || !sb->freed ||
        !sb->panel)
        return -1;
    return 0;
}

static void transpose_shmem_free(transpose_shmem_bufs_t *sb)
{
    free(sb->panel);
    shmem_free(sb->freed);
    shmem_free(sb->arrived);
    shmem_free(sb->ring);
}

static void transpose_shmem_phase(transpose_t *t, transpose_shmem_bufs_t *sb,
                                  int phase, long iter)
{
    int to = (t->me - phase + t->npes) % t->npes;
    int from = (t->me + phase) % t->npes;
    size_t slot_elems = (size_t)sb->pw * (size_t)t->b;
    double *ring =
        sb->ring + (size_t)(phase - 1) * TRANSPOSE_SLOTS * slot_elems;
    uint64_t *arrived = &sb->arrived[phase - 1], *freed = &sb->freed[phase - 1];
    uint64_t q = (uint64_t)iter * (uint64_t)sb->npanels;

    for (long k = 0; k < sb->npanels; k++, q++) {
        long j0 = k * sb->pw;
        long nj = j0 + sb->pw <= t->b ? sb->pw : t->b - j0;
        double *slot = ring + (q % TRANSPOSE_SLOTS) * slot_elems;

        transpose_pack(t, to, j0, nj, sb->panel);
        if (q >= TRANSPOSE_SLOTS)
            shmem_signal_wait_until(freed, SHMEM_CMP_GE,
                                    q - TRANSPOSE_SLOTS + 1);
        shmem_double_put_signal(slot, sb->panel, (size_t)(nj * t->b), arrived,
                                1, SHMEM_SIGNAL_ADD, to);
        shmem_signal_wait_until(arrived, SHMEM_CMP_GE, q + 1);
        transpose_add(t, from, j0, nj, slot);
        shmem_signal_add(freed, 1, from);
    }
}

/* One sweep read in place: the rows of every peer's A that this PE
 * transposes are touched by this PE alone (their owner only touches its own
 * diagonal block), so each is read through its load/store view exactly like
 * the diagonal block, with no copy and no synchronization. */
static void transpose_direct_sweep(transpose_t *t, double *const *peer_a)
{
    transpose_local(t);
    for (int phase = 1; phase < t->npes; phase++) {
        int from = (t->me + phase) % t->npes;

        transpose_block_from(t, peer_a[from], from);
    }
}

static double transpose_shmem_run(transpose_t *t, transpose_shmem_bufs_t *sb,
                                  double *const *peer_a)
{
    double t0 = 0.0;

    for (long iter = 0; iter <= t->iterations; iter++) {
        if (iter == 1) {
            prk_comm_barrier();
            t0 = prk_wtime();
        }
        if (peer_a != NULL) {
            transpose_direct_sweep(t, peer_a);
            continue;
        }
        transpose_local(t);
        for (int phase = 1; phase < t->npes; phase++)
            transpose_shmem_phase(t, sb, phase, iter);
    }
    return prk_wtime() - t0;
}

/* Load/store views of every PE's A when all of them are on this node (and
 * every PE agrees), else NULL: then blocks travel by put-with-signal. */
static double **transpose_peer_views(const transpose_t *t, double *a)
{
    double **peer_a = calloc((size_t)t->npes, sizeof(*peer_a));
    int direct = a != NULL && peer_a != NULL;

    for (int pe = 0; direct && pe < t->npes; pe++) {
        peer_a[pe] = shmem_ptr(a, pe);
        direct = peer_a[pe] != NULL;
    }
    /* Collective: the path decides which symmetric buffers exist. */
    if (prk_comm_max_int(!direct)) {
        free(peer_a);
        return NULL;
    }
    return peer_a;
}

/* A lives in symmetric memory so that peers on this node can reach it. */
static double *transpose_shmem_alloc_a(const transpose_t *t)
{
    return shmem_align(2UL << 20,
                       (size_t)t->ld * (size_t)t->b * sizeof(double));
}

static int transpose_shmem_setup(transpose_t *t, transpose_shmem_bufs_t *sb,
                                 double *a, double ***peer_a, char *msg)
{
    int err;

    if (a == NULL) {
        snprintf(msg, PRK_MSG_MAX,
                 "could not allocate the %ld x %ld matrix A "
                 "(raise SHMEM_SYMMETRIC_SIZE)",
                 t->order, t->b);
        err = -1;
    } else {
        err = transpose_alloc_fields(t, a, msg);
    }
    *peer_a = transpose_peer_views(t, err == 0 ? a : NULL);
    if (*peer_a == NULL && transpose_shmem_alloc(t, sb) != 0 && err == 0) {
        snprintf(msg, PRK_MSG_MAX,
                 "could not allocate the panel buffers (raise "
                 "SHMEM_SYMMETRIC_SIZE)");
        err = -1;
    }
    return err;
}

int main(int argc, char **argv)
{
    transpose_t t;
    transpose_shmem_bufs_t sb = {0};
    double *a = NULL, **peer_a = NULL;
    char msg[PRK_MSG_MAX] = "";
    int status = 1, err;

    if (prk_comm_init(&argc, &argv) != 0)
        return 1;
    prk_banner("matrix transpose: B = A^T");
    err =
        transpose_setup(&t, argc, argv, prk_comm_size(), prk_comm_rank(), msg);
    if (prk_agree_error(err, msg))
        goto out_finalize;
    a = transpose_shmem_alloc_a(&t);
    err = transpose_shmem_setup(&t, &sb, a, &peer_a, msg);
    if (prk_agree_error(err, msg))
        goto out_free;
    transpose_print_params(&t);
    if (t.me == 0) {
        printf("Exchange path        = %s\n",
               peer_a != NULL ? "load/store (shmem_ptr)" : "put with signal");
        fflush(stdout);
    }
    /* Every A is initialised before any peer reads it. */
    prk_comm_barrier();
    status = transpose_finish(&t, transpose_shmem_run(&t, &sb, peer_a));
out_free:
    free(peer_a);
    transpose_shmem_free(&sb);
    transpose_free_fields(&t);
    shmem_free(a);
out_finalize:
    prk_comm_finalize();
    return status;
}
