/*
 * Small helpers shared by the functional tests of tests/heap/ (several PEs
 * through $OSHRUN). A failed check prints "PE n: file:line: condition" and
 * is counted; heap_test_end() makes every PE exit non-zero when any PE
 * failed, so the launcher reports the failure whichever PE saw it.
 */
#ifndef WEFT_TESTS_HEAP_TEST_H
#define WEFT_TESTS_HEAP_TEST_H

#include <stdio.h>
#include <stdlib.h>

#include <shmem.h>

static int heap_test_failures;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "PE %d: %s:%d: check failed: %s\n", shmem_my_pe(), \
                    __FILE__, __LINE__, #cond);                                \
            heap_test_failures++;                                              \
        }                                                                      \
    } while (0)

/* Sum of failures over all PEs (a global: symmetric). */
static int heap_test_total;

static inline int heap_test_end(const char *name)
{
    static int failed;

    failed = heap_test_failures;
    shmem_barrier_all();
    shmem_int_atomic_add(&heap_test_total, failed, 0);
    shmem_barrier_all();
    failed = shmem_int_g(&heap_test_total, 0);
    if (shmem_my_pe() == 0)
        printf("%s: %s (%d failed checks)\n", name,
               failed ? "FAILED" : "passed", failed);
    shmem_finalize();
    return failed ? 1 : 0;
}

#endif /* WEFT_TESTS_HEAP_TEST_H */
