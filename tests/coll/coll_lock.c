/*
 * Locks under contention: every PE repeatedly takes a lock and does a
 * non-atomic read-modify-write (get, add, put) of a counter on PE 0; a lost
 * update means two PEs held the lock at once. Runs with shmem_set_lock and
 * with shmem_test_lock polling, on a static lock and on heap locks whose
 * home PEs differ, and checks that a held lock makes shmem_test_lock fail.
 */
#include "tests/common/check_pes.h"

#define ITERS 300

static long lock_static;
static long counter;
static long per_lock[4];
static int held;

static void critical(long *c)
{
    long v = shmem_long_g(c, 0);
    shmem_long_p(c, v + 1, 0);
    shmem_quiet();
}

int main(void)
{
    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *locks = shmem_calloc(4, sizeof(long));

    for (int i = 0; i < ITERS; i++) {
        shmem_set_lock(&lock_static);
        /* A second PE in here would see held != 0 on PE 0. */
        CHECK(shmem_int_atomic_fetch_inc(&held, 0) == 0);
        critical(&counter);
        shmem_int_atomic_add(&held, -1, 0);
        shmem_clear_lock(&lock_static);
    }
    shmem_barrier_all();
    if (me == 0)
        CHECK(counter == (long)n * ITERS);
    shmem_barrier_all();

    /* Two locks at once (in a fixed order: no deadlock), different homes,
     * the first taken by test_lock polling; each guards its own counter. */
    for (int i = 0; i < ITERS; i++) {
        int a = i % 4, b = (i + 1) % 4;
        int lo = a < b ? a : b, hi = a < b ? b : a;
        while (shmem_test_lock(&locks[lo]) != 0)
            ;
        shmem_set_lock(&locks[hi]);
        critical(&per_lock[lo]);
        critical(&per_lock[hi]);
        shmem_clear_lock(&locks[hi]);
        shmem_clear_lock(&locks[lo]);
    }
    shmem_barrier_all();
    for (int k = 0; k < 4 && me == 0; k++)
        CHECK(per_lock[k] == (long)n * ITERS / 2);

    /* A held lock: test_lock fails everywhere else, succeeds once freed. */
    if (me == 0)
        shmem_set_lock(&locks[0]);
    shmem_barrier_all();
    if (me != 0)
        CHECK(shmem_test_lock(&locks[0]) == 1);
    shmem_barrier_all();
    if (me == 0)
        shmem_clear_lock(&locks[0]);
    shmem_barrier_all();
    if (me == n - 1) {
        CHECK(shmem_test_lock(&locks[0]) == 0);
        shmem_clear_lock(&locks[0]);
    }
    shmem_barrier_all();
    shmem_free(locks);
    return check_pes_end("coll_lock");
}
