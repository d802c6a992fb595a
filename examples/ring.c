/*
 * ring: every PE puts a message into the next PE's memory, and checks the
 * one that its previous PE put into its own.
 *
 *   oshcc -o ring ring.c
 *   oshrun -n 4 ./ring
 *
 * What it shows:
 *   - symmetric memory: `inbox` is allocated by shmem_calloc, a collective
 *     call, at the same address on every PE, so a PE can name another PE's
 *     inbox by its own pointer;
 *   - a one-sided put: the next PE does not take part in it;
 *   - shmem_barrier_all: completes every PE's puts and waits for every PE,
 *     so each inbox is full when its owner reads it;
 *   - a reduction: PE 0 learns how many PEs found a wrong value.
 */
#include <stdio.h>
#include <stdlib.h>

#include <shmem.h>

#define COUNT 1000 /* longs in one message */

/* The value that PE `pe` sends at position i. */
static long value(int pe, int i)
{
    return 1000000L * pe + i;
}

int main(void)
{
    static long outbox[COUNT];
    static int errors, total_errors; /* symmetric: static variables are */

    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int next = (me + 1) % npes;
    int prev = (me + npes - 1) % npes;

    long *inbox = shmem_calloc(COUNT, sizeof(long));
    if (inbox == NULL) {
        fprintf(stderr, "PE %d: shmem_calloc failed\n", me);
        shmem_global_exit(1);
    }

    for (int i = 0; i < COUNT; i++)
        outbox[i] = value(me, i);

    /* The local buffer (outbox) may be any memory; the target (inbox) must
     * be symmetric. The put returns once outbox may be reused. */
    shmem_long_put(inbox, outbox, COUNT, next);

    shmem_barrier_all(); /* every put has arrived */

    for (int i = 0; i < COUNT; i++)
        if (inbox[i] != value(prev, i))
            errors++;
    printf("PE %d got %d longs from PE %d: %s\n", me, COUNT, prev,
           errors ? "WRONG" : "ok");

    /* Every PE's error count, summed on every PE. */
    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, &total_errors, &errors, 1);
    if (me == 0)
        printf("ring of %d PEs: %s\n", npes,
               total_errors ? "FAILED" : "every message arrived intact");

    shmem_free(inbox); /* collective, like shmem_calloc */
    shmem_finalize();
    return total_errors ? 1 : 0;
}
