/*
 * Synch_p2p kernel, OpenSHMEM version. The wavefront moves with one value
 * and one flag per row: the left neighbour writes A(start-1, j) into this
 * PE's mailbox for row j and sets the mailbox's flag to iter+1; this PE
 * copies the value into its ghost cell. When the right neighbour's
 * mailboxes are reachable by load/store (shmem_ptr: same node), sending is
 * a store of the value and a release store of the flag into one cache
 * line; otherwise one put-with-signal.
 *
 * Each mailbox has a cache line of its own, apart from the rows of A: the
 * line the producer writes is then never one the consumer is writing
 * points into, so a row costs one line transfer and no ping-pong. Flags
 * only grow, so they are never reset and need no sense reversal; one
 * mailbox per row is enough because the corner value that closes a sweep
 * (sent by the last PE to PE 0) orders every write of a sweep after every
 * read of the previous one.
 */
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/prk_comm.h"
#include "p2p/p2p_core.h"

/* 8-byte words per cache line (the stride of the mailboxes). */
#define P2P_LINE_DOUBLES 8

/* Mailbox of row j in a box array (own or a peer's view): a cache line
 * holding the arrival flag and then the value. */
static uint64_t *p2p_box(uint64_t *box, long j)
{
    return box + j * P2P_LINE_DOUBLES;
}

static double *p2p_box_value(uint64_t *box, long j)
{
    return (double *)(void *)(p2p_box(box, j) + 1);
}

/* Polls of a row's flag before handing the wait to the library, which
 * backs off (other PEs may need this core). The flag is usually set
 * already or about to be: the left neighbour runs a row ahead. */
#ifndef P2P_SPIN
#define P2P_SPIN 256
#endif

static void p2p_wait_row(uint64_t *flag, uint64_t mark)
{
    for (int spin = 0; spin < P2P_SPIN; spin++)
        if (__atomic_load_n(flag, __ATOMIC_ACQUIRE) >= mark)
            return;
    shmem_signal_wait_until(flag, SHMEM_CMP_GE, mark);
}

/* Hands row j's boundary value to the right neighbour: through the
 * load/store view `right_box` of its mailboxes when there is one, else by
 * put-with-signal. */
static void p2p_send_row(const p2p_t *p, uint64_t *box, uint64_t *right_box,
                         long j, uint64_t mark)
{
    double value = *p2p_at(p, p->w, j);

    if (right_box != NULL) {
        *p2p_box_value(right_box, j) = value;
        __atomic_store_n(p2p_box(right_box, j), mark, __ATOMIC_RELEASE);
        return;
    }
    shmem_double_put_signal(p2p_box_value(box, j), &value, 1, p2p_box(box, j),
                            mark, SHMEM_SIGNAL_SET, p->me + 1);
}

/* corner on PE 0: the corner value A(0,0) of the sweep has arrived.
 * Every flag holds the number of the sweep + 1. */
static void p2p_shmem_sweep(p2p_t *p, uint64_t *box, uint64_t *right_box,
                            uint64_t *corner, long iter)
{
    int left = p->me - 1, right = p->me + 1, last = p->npes - 1;
    uint64_t mark = (uint64_t)iter + 1;
    double value;

    for (long j = 1; j < p->n; j++) {
        if (left >= 0) {
            p2p_wait_row(p2p_box(box, j), mark);
            *p2p_at(p, 0, j) = *p2p_box_value(box, j);
        }
        p2p_row(p, j);
        if (right < p->npes)
            p2p_send_row(p, box, right_box, j, mark);
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
    uint64_t *corner = NULL, *box = NULL, *right_box = NULL;
    char msg[PRK_MSG_MAX] = "";
    double t0 = 0.0, elapsed;
    int status = 1, err;

    if (prk_comm_init(&argc, &argv) != 0)
        return 1;
    prk_banner("pipeline execution on 2D grid");
    err = p2p_setup(&p, argc, argv, prk_comm_size(), prk_comm_rank(), msg);
    if (prk_agree_error(err, msg))
        goto out_finalize;
    /* Collective: the same sizes on every PE. */
    p.a = shmem_align(P2P_LINE_DOUBLES * sizeof(double),
                      p2p_array_count(&p) * sizeof(double));
    box = shmem_align(P2P_LINE_DOUBLES * sizeof(uint64_t),
                      (size_t)p.n * P2P_LINE_DOUBLES * sizeof(uint64_t));
    corner = shmem_calloc(1, sizeof(uint64_t));
    if (p.a == NULL || box == NULL || corner == NULL)
        snprintf(msg, sizeof(msg),
                 "could not allocate the %ld x %ld array (raise "
                 "SHMEM_SYMMETRIC_SIZE)",
                 p.ld, p.n);
    if (prk_agree_error(p.a == NULL || box == NULL || corner == NULL, msg))
        goto out_free;
    p2p_init(&p);
    p2p_print_params(&p);
    memset(box, 0, (size_t)p.n * P2P_LINE_DOUBLES * sizeof(uint64_t));
    if (p.me + 1 < p.npes)
        right_box = shmem_ptr(box, p.me + 1);
    /* Nobody may write a mailbox before its owner has cleared it. */
    prk_comm_barrier();
    for (long iter = 0; iter <= p.iterations; iter++) {
        if (iter == 1) {
            prk_comm_barrier();
            t0 = prk_wtime();
        }
        p2p_shmem_sweep(&p, box, right_box, corner, iter);
    }
    elapsed = prk_wtime() - t0;
    status = p2p_finish(&p, elapsed);
out_free:
    shmem_free(corner);
    shmem_free(box);
    shmem_free(p.a);
out_finalize:
    prk_comm_finalize();
    return status;
}
