/*
 * Transpose kernel, OpenSHMEM version.
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

static double transpose_shmem_run(transpose_t *t, transpose_shmem_bufs_t *sb)
{
    double t0 = 0.0;

    for (long iter = 0; iter <= t->iterations; iter++) {
        if (iter == 1) {
            prk_comm_barrier();
            t0 = prk_wtime();
        }
        transpose_local(t);
        for (int phase = 1; phase < t->npes; phase++)
            transpose_shmem_phase(t, sb, phase, iter);
    }
    return prk_wtime() - t0;
}

int main(int argc, char **argv)
{
    transpose_t t;
    transpose_shmem_bufs_t sb = {0};
    char msg[PRK_MSG_MAX] = "";
    int status = 1, err;

    if (prk_comm_init(&argc, &argv) != 0)
        return 1;
    prk_banner("matrix transpose: B = A^T");
    err =
        transpose_setup(&t, argc, argv, prk_comm_size(), prk_comm_rank(), msg);
    if (prk_agree_error(err, msg))
        goto out_finalize;
    err = transpose_alloc_fields(&t, msg);
    if (transpose_shmem_alloc(&t, &sb) != 0 && err == 0) {
        snprintf(msg, sizeof(msg),
                 "could not allocate the panel buffers (raise "
                 "SHMEM_SYMMETRIC_SIZE)");
        err = -1;
    }
    if (prk_agree_error(err, msg))
        goto out_free;
    transpose_print_params(&t);
    status = transpose_finish(&t, transpose_shmem_run(&t, &sb));
out_free:
    transpose_shmem_free(&sb);
    transpose_free_fields(&t);
out_finalize:
    prk_comm_finalize();
    return status;
}
