/*
 * Shared helpers of the device-heap tests (tests/gpu/): host views of
 * device memory through the back end, and byte patterns. Checks and the
 * closing line come from tests/common/check_pes.h.
 */
#ifndef WEFT_TESTS_GPU_TEST_H
#define WEFT_TESTS_GPU_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/check_pes.h"

/* Byte i of the pattern of PE pe, in round r. */
static inline unsigned char gt_byte(int pe, int r, size_t i)
{
    return (unsigned char)(i * 31 + (size_t)pe * 7 + (size_t)r * 13 + 1);
}

static inline void gt_fill(unsigned char *b, size_t n, int pe, int r)
{
    for (size_t i = 0; i < n; i++)
        b[i] = gt_byte(pe, r, i);
}

/* Index of the first byte that differs from the pattern, or n. */
static inline size_t gt_diff(const unsigned char *b, size_t n, int pe, int r)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != gt_byte(pe, r, i))
            return i;
    return n;
}

static inline void *gt_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);

    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

/* Ends a test that found no device heap (SHMEM_DEVICE_BACKEND unset):
 * the exit status run-tests counts as a skip, with the reason. */
static inline int gt_skip_no_device_heap(void)
{
    if (shmem_my_pe() == 0)
        printf("no device heap (set SHMEM_DEVICE_BACKEND=mock): skipped\n");
    fflush(stdout);
    shmem_finalize();
    return 77;
}

#endif /* WEFT_TESTS_GPU_TEST_H */
