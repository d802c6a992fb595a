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
 * (sent by the last PE to PE 0 through PE 0's mailbox 0, the same way)
 * orders every write of a sweep after every read of the previous one.
 * Only the mailboxes are symmetric; A is private, as in the MPI version.
 */
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/prk_comm.h"
#include "common/shmem_compat.h"
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

/* Sets the mailbox j of PE pe to value and its flag to mark: through
 * view, the load/store view of pe's mailboxes, when there is one, else
 * by put-with-signal. */
static void p2p_post(uint64_t *view, uint64_t *box, long j, double value,
                     uint64_t mark, int pe)
{
    if (view != NULL) {
        *p2p_box_value(view, j) = value;
        __atomic_store_n(p2p_box(view, j), mark, __ATOMIC_RELEASE);
        return;
    }
    shmem_double_put_signal(p2p_box_value(box, j), &value, 1, p2p_box(box, j),
                            mark, SHMEM_SIGNAL_SET, pe);
}

/* One sweep. Mailbox 0 (rows start at 1) carries the corner value
 * -A(m-1, n-1) from the last PE to PE 0. right_box and corner_box are the
 * load/store views of the right neighbour's and PE 0's mailboxes (or
 * NULL). Every flag holds the number of the sweep + 1. */
static void p2p_shmem_sweep(p2p_t *p, uint64_t *box, uint64_t *right_box,
                            uint64_t *corner_box, long iter)
{
    int left = p->me - 1, right = p->me + 1, last = p->npes - 1;
    uint64_t mark = (uint64_t)iter + 1;

    for (long j = 1; j < p->n; j++) {
        if (left >= 0) {
            p2p_wait_row(p2p_box(box, j), mark);
            *p2p_at(p, 0, j) = *p2p_box_value(box, j);
        }
        p2p_row(p, j);
        if (right < p->npes)
            p2p_post(right_box, box, j, *p2p_at(p, p->w, j), mark, right);
    }
    if (p->npes == 1) {
        *p2p_at(p, 1, 0) = -*p2p_at(p, p->w, p->n - 1);
    } else if (p->me == last) {
        p2p_post(corner_box, box, 0, -*p2p_at(p, p->w, p->n - 1), mark, 0);
    } else if (p->me == 0) {
        p2p_wait_row(p2p_box(box, 0), mark);
        *p2p_at(p, 1, 0) = *p2p_box_value(box, 0);
    }
}

int main(int argc, char **argv)
{
    p2p_t p;
    uint64_t *box = NULL, *right_box = NULL, *corner_box = NULL;
    char msg[PRK_MSG_MAX] = "";
    double t0 = 0.0, elapsed;
    int status = 1, err;

    if (prk_comm_init(&argc, &argv) != 0)
        return 1;
    prk_banner("pipeline execution on 2D grid");
    err = p2p_setup(&p, argc, argv, prk_comm_size(), prk_comm_rank(), msg);
    if (prk_agree_error(err, msg))
        goto out_finalize;
    /* Only the mailboxes are symmetric: no other PE touches A, which is
     * private like the MPI version's (huge pages where the system offers
     * them). Collective: the same sizes on every PE. */
    p.a = prk_alloc(p2p_array_count(&p), sizeof(double));
    box = shmem_align(P2P_LINE_DOUBLES * sizeof(uint64_t),
                      (size_t)p.n * P2P_LINE_DOUBLES * sizeof(uint64_t));
    if (p.a == NULL || box == NULL)
        snprintf(msg, sizeof(msg),
                 "could not allocate the %ld x %ld array or its mailboxes "
                 "(raise SHMEM_SYMMETRIC_SIZE)",
                 p.ld, p.n);
    if (prk_agree_error(p.a == NULL || box == NULL, msg))
        goto out_free;
    p2p_init(&p);
    p2p_print_params(&p);
    memset(box, 0, (size_t)p.n * P2P_LINE_DOUBLES * sizeof(uint64_t));
    if (p.me + 1 < p.npes)
        right_box = shmem_ptr(box, p.me + 1);
    if (p.me == p.npes - 1 && p.npes > 1)
        corner_box = shmem_ptr(box, 0);
    /* Nobody may write a mailbox before its owner has cleared it. */
    prk_comm_barrier();
    for (long iter = 0; iter <= p.iterations; iter++) {
        if (iter == 1) {
            prk_comm_barrier();
            t0 = prk_wtime();
        }
        p2p_shmem_sweep(&p, box, right_box, corner_box, iter);
    }
    elapsed = prk_wtime() - t0;
    status = p2p_finish(&p, elapsed);
out_free:
    shmem_free(box);
    free(p.a);
out_finalize:
    prk_comm_finalize();
    return status;
}
