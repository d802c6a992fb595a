/*
 * Programs that used to hang forever, one per mode; tests/coll/hang.cases
 * runs each under tests/badinput/expect_fail.sh, which wants a non-zero
 * status, a message naming the routine and the PEs, and a job that ends
 * within seconds. The last PE (n_pes - 1) is the one that misbehaves.
 *
 * Usage: coll_hang MODE
 *   clear_unheld    shmem_clear_lock of a lock nobody holds
 *   clear_other     PE 0 holds the lock, the last PE clears it
 *   set_twice       shmem_set_lock twice on one lock by the same PE
 *   extra_malloc    one more shmem_malloc on the last PE
 *   extra_free      one more shmem_free on the last PE
 *   extra_barrier   one more shmem_barrier_all on the last PE
 *   other_coll      the last PE calls shmem_long_sum_reduce where the
 *                   others call shmem_barrier_all (two calls that never
 *                   meet: a deadlock)
 *   wait_alone      the last PE makes one more shmem_barrier_all (which
 *                   meets the others' shmem_finalize), then waits on a word
 *                   that nobody will ever set: the others have exited
 *   signal_alone    the same with shmem_signal_wait_until
 *   amo_gone        the last PE adds to a word of PE 0 (so that a fabric
 *                   connects them), makes one more shmem_barrier_all, goes
 *                   on testing a word (which drives progress) for 3 s,
 *                   long after the others have left, then adds to the word
 *                   again and calls shmem_quiet: an operation to a PE that
 *                   has finalized and exited, which no retry completes
 *   coll_private    shmem_long_fcollect into a private (stack) array
 *   lock_ok         set, test and clear used correctly (must PASS)
 */
#include <shmem.h>

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long lock;
static long word;

static int lock_mode(const char *mode, int me, int last)
{
    if (!strcmp(mode, "clear_unheld")) {
        if (me == last)
            shmem_clear_lock(&lock);
    } else if (!strcmp(mode, "clear_other")) {
        if (me == 0)
            shmem_set_lock(&lock);
        shmem_barrier_all();
        if (me == last)
            shmem_clear_lock(&lock);
        shmem_barrier_all();
    } else if (!strcmp(mode, "set_twice")) {
        if (me == last) {
            shmem_set_lock(&lock);
            shmem_set_lock(&lock);
        }
    } else if (!strcmp(mode, "lock_ok")) {
        for (int i = 0; i < 20; i++) {
            shmem_set_lock(&lock);
            /* A second test of a held lock says "set" and changes nothing. */
            if (shmem_test_lock(&lock) != 1)
                return printf("PE %d: test_lock of a held lock != 1\n", me), 2;
            shmem_clear_lock(&lock);
            while (shmem_test_lock(&lock) != 0)
                ;
            shmem_clear_lock(&lock);
        }
        shmem_barrier_all();
        if (me == 0)
            printf("locks used correctly: ok\n");
    } else {
        return -1;
    }
    return 0;
}

static int coll_mode(const char *mode, int me, int last)
{
    static long src[4], dst[4 * 64];
    long priv[4 * 64];

    if (!strcmp(mode, "extra_malloc")) {
        if (me == last)
            (void)shmem_malloc(64);
    } else if (!strcmp(mode, "extra_free")) {
        long *a = shmem_malloc(64), *b = shmem_malloc(64);

        shmem_free(a);
        if (me == last)
            shmem_free(b);
    } else if (!strcmp(mode, "extra_barrier")) {
        if (me == last)
            shmem_barrier_all();
    } else if (!strcmp(mode, "other_coll")) {
        if (me == last)
            shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 4);
        else
            shmem_barrier_all();
    } else if (!strcmp(mode, "wait_alone")) {
        if (me == last) {
            shmem_barrier_all();
            shmem_long_wait_until(&word, SHMEM_CMP_NE, 0);
        }
    } else if (!strcmp(mode, "signal_alone")) {
        static uint64_t sig;

        if (me == last) {
            shmem_barrier_all();
            (void)shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 7);
        }
    } else if (!strcmp(mode, "amo_gone")) {
        if (me == last) {
            struct timespec t0, t;

            shmem_long_atomic_add(&word, 1, 0);
            shmem_quiet();
            shmem_barrier_all();
            clock_gettime(CLOCK_MONOTONIC, &t0);
            do {
                (void)shmem_long_test(&word, SHMEM_CMP_NE, 0);
                usleep(1000);
                clock_gettime(CLOCK_MONOTONIC, &t);
            } while (t.tv_sec - t0.tv_sec < 3);
            shmem_long_atomic_add(&word, 1, 0);
            shmem_quiet();
        }
    } else if (!strcmp(mode, "coll_private")) {
        if (shmem_n_pes() > 64)
            return 0;
        shmem_long_fcollect(SHMEM_TEAM_WORLD, priv, src, 4);
    } else {
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int me, last, ret;

    shmem_init();
    me = shmem_my_pe();
    last = shmem_n_pes() - 1;
    ret = lock_mode(mode, me, last);
    if (ret < 0)
        ret = coll_mode(mode, me, last);
    if (ret < 0) {
        fprintf(stderr, "coll_hang: unknown mode '%s'\n", mode);
        shmem_global_exit(2);
    }
    shmem_finalize();
    return ret;
}
