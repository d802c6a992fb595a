/*
 * Helpers of the data-plane functional tests (tests/dataplane/, run with
 * several PEs through $OSHRUN on each path: load/store, and SHMEM_LOCAL=0
 * with every libfabric provider). Checks and the closing line come from
 * tests/common/check_pes.h.
 */
#ifndef WEFT_TESTS_DP_TEST_H
#define WEFT_TESTS_DP_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <shmem.h>

#include "tests/common/check_pes.h"

static inline double dp_now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

#endif /* WEFT_TESTS_DP_TEST_H */
