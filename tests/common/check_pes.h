/*
 * The close of a test program of several PEs (check.h counts each PE's
 * failed checks): every PE learns the sum, PE 0 prints
 * "name: passed|FAILED (N failed checks, N PEs)" (scripts/multinode-check.sh
 * looks for that line), and every PE exits non-zero when any PE failed, so
 * the launcher reports the failure whichever PE saw it.
 */
#ifndef WEFT_TESTS_COMMON_CHECK_PES_H
#define WEFT_TESTS_COMMON_CHECK_PES_H

#include <shmem.h>

#include "tests/common/check.h"

/* Collective over all PEs; calls shmem_finalize. Returns the exit status. */
static inline int check_pes_end(const char *name)
{
    static int total; /* symmetric: the sum, on PE 0 */
    int all, status;

    shmem_barrier_all();
    shmem_int_atomic_add(&total, check_failures(), 0);
    shmem_barrier_all();
    all = shmem_int_atomic_fetch(&total, 0);
    status = all ? 1 : 0;
    if (shmem_my_pe() == 0)
        status = check_summary(name, all, shmem_n_pes());
    shmem_finalize();
    return status;
}

#endif /* WEFT_TESTS_COMMON_CHECK_PES_H */
