/*
 * Synch_p2p kernel, OpenSHMEM version. The wavefront moves with one
 * put-with-signal per row: the left neighbour writes A(start-1, j) straight
 * into this PE's ghost cell and sets this PE's flag for row j to iter+1.
 *
 * The flag of row j is the 8-byte word in front of the row's ghost cell,
 * on the same cache line, so a waiting PE gets the flag and the value in
 * one transfer. Flags only grow, so they are never reset and need no sense
 * reversal; one ghost cell per row is enough because the corner value that
 * closes a sweep (sent by the last PE to PE 0) orders every write of a
 * sweep after every read of the previous one.
 */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

#include "common/prk_comm.h"
#include "p2p/p2p_core.h"

/* Rows start on a cache line: flag and ghost cell share it. */
#define P2P_LINE_DOUBLES 8

/* The arrival flag of row j: the element in front of its ghost cell,
 * never accessed as a double. */
static uint64_t *p2p_flag(const p2p_t *p, long j)
{
    return (uint64_t *)(void *)(p2p_at(p, 0, j) - 1);
}

/* corner on PE 0: the corner value A(0,0) of the sweep has arrived.
 * Every flag holds the number of the sweep + 1. */
static void p2p_shmem_sweep(p2p_t *p, uint64_t *corner, long iter)
{
    int left = p->me - 1, right = p->me + 1, last = p->npes - 1;
    uint64_t mark = (uint64_t)iter + 1;
    double value;

    for (long j = 1; j < p->n; j++) {
        if (left >= 0) {
            shmem_signal_wait_until(p2p_flag(p, j), SHMEM_CMP_GE, mark);
            /* The next row's flag and ghost line is usually written
             * already: fetch it while this row computes. */
            if (j + 1 < p->n)
                __builtin_prefetch(p2p_flag(p, j + 1));
        }
        p2p_row(p, j);
        if (right < p->npes)
            shmem_double_put_signal(p2p_at(p, 0, j), p2p_at(p, p->w, j), 1,
                                    p2p_flag(p, j), mark, SHMEM_SIGNAL_SET,
                                    right);
    }
    if (p->npes == 1) {
        *p2p_at(p, 1, 0) = -*p2p_at(p, p->w, p->n - 1);
    } else if (p->me == last) {
        value = -*p2p_at(p, p->w, p->n - 1);
        shmem_double_put_signal(p2p_at(p, 1, 0), &value, 1, corner, mark,
                                SHMEM_SIGNAL_SET, 0);
    } else if (p->me == 0) {
        shmem_signal_wait_until(corner, SHMEM_CMP_GE, mark);
    }
}

int main(int argc, char **argv)
{
    p2p_t p;
    uint64_t *corner = NULL;
    char msg[PRK_MSG_MAX] = "";
    double t0 = 0.0, elapsed;
    int status = 1, err;

    if (prk_comm_init(&argc, &argv) != 0)
        return 1;
    prk_banner("pipeline execution on 2D grid");
    err = p2p_setup(&p, argc, argv, prk_comm_size(), prk_comm_rank(), msg);
    if (prk_agree_error(err, msg))
        goto out_finalize;
    p2p_set_layout(&p, 1, P2P_LINE_DOUBLES);
    /* Collective: the same sizes on every PE. */
    p.a = shmem_align(P2P_LINE_DOUBLES * sizeof(double),
                      p2p_array_count(&p) * sizeof(double));
    corner = shmem_calloc(1, sizeof(uint64_t));
    if (p.a == NULL || corner == NULL)
        snprintf(msg, sizeof(msg),
                 "could not allocate the %ld x %ld array (raise "
                 "SHMEM_SYMMETRIC_SIZE)",
                 p.ld, p.n);
    if (prk_agree_error(p.a == NULL || corner == NULL, msg))
        goto out_free;
    p2p_init(&p);
    p2p_print_params(&p);
    /* Nobody may write a ghost cell before its owner has initialised it. */
    prk_comm_barrier();
    for (long iter = 0; iter <= p.iterations; iter++) {
        if (iter == 1) {
            prk_comm_barrier();
            t0 = prk_wtime();
        }
        p2p_shmem_sweep(&p, corner, iter);
    }
    elapsed = prk_wtime() - t0;
    status = p2p_finish(&p, elapsed);
out_free:
    shmem_free(corner);
    shmem_free(p.a);
out_finalize:
    prk_comm_finalize();
    return status;
}
