/*
 * Helpers of the data-plane functional tests (tests/dataplane/, run with
 * several PEs through $OSHRUN on each path: load/store, and SHMEM_LOCAL=0
 * with every libfabric provider). A failed check prints the PE, the place
 * and the condition, and is counted; dp_test_end() makes every PE exit
 * non-zero when any PE failed.
 */
#ifndef WEFT_TESTS_DP_TEST_H
#define WEFT_TESTS_DP_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <shmem.h>

static int dp_failures;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            if (dp_failures++ < 20)                                            \
                fprintf(stderr, "PE %d: %s:%d: check failed: %s\n",            \
                        shmem_my_pe(), __FILE__, __LINE__, #cond);             \
        }                                                                      \
    } while (0)

static int dp_total_failures;

static inline int dp_test_end(const char *name)
{
    static int mine;
    int all;

    mine = dp_failures;
    shmem_barrier_all();
    shmem_int_atomic_add(&dp_total_failures, mine, 0);
    shmem_barrier_all();
    all = shmem_int_atomic_fetch(&dp_total_failures, 0);
    if (shmem_my_pe() == 0)
        printf("%s: %s (%d failed checks, %d PEs)\n", name,
               all ? "FAILED" : "passed", all, shmem_n_pes());
    shmem_finalize();
    return all ? 1 : 0;
}

static inline double dp_now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

#endif /* WEFT_TESTS_DP_TEST_H */
