/*
 * Helpers shared by the functional tests of tests/coll/ (several PEs through
 * $OSHRUN). A failed check prints "PE n: file:line: condition" and is
 * counted; coll_test_end() makes every PE exit non-zero when any PE failed.
 */
#ifndef WEFT_TESTS_COLL_TEST_H
#define WEFT_TESTS_COLL_TEST_H

#include <stdio.h>
#include <stdlib.h>

#include <shmem.h>

static int coll_test_failures;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            if (coll_test_failures < 20)                                       \
                fprintf(stderr, "PE %d: %s:%d: check failed: %s\n",            \
                        shmem_my_pe(), __FILE__, __LINE__, #cond);             \
            coll_test_failures++;                                              \
        }                                                                      \
    } while (0)

static int coll_test_total;

static inline int coll_test_end(const char *name)
{
    static int failed;

    failed = coll_test_failures;
    shmem_barrier_all();
    shmem_int_atomic_add(&coll_test_total, failed, 0);
    shmem_barrier_all();
    failed = shmem_int_atomic_fetch(&coll_test_total, 0);
    if (shmem_my_pe() == 0)
        printf("%s: %s (%d failed checks, %d PEs)\n", name,
               failed ? "FAILED" : "passed", failed, shmem_n_pes());
    shmem_finalize();
    return failed ? 1 : 0;
}

#endif /* WEFT_TESTS_COLL_TEST_H */
