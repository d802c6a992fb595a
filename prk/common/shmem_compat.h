/*
 * The OpenSHMEM 1.5 signal routines the kernels use, for a library that
 * offers only OpenSHMEM 1.4, so that the same kernel sources also build
 * with another OpenSHMEM (Open MPI 4's OSHMEM, which prk/compare
 * --with-oshmem compares with; prk/README.md). With Weft, and any library
 * of 1.5 or later, this header adds nothing.
 *
 * A put-with-signal becomes a put, a fence and an atomic on the signal
 * word: the fence orders the data before the signal at the target, which
 * is all the kernels rely on. Signal words are uint64_t, which is unsigned
 * long on the LP64 systems 1.4's typed atomics are used on here.
 */
#ifndef PRK_SHMEM_COMPAT_H
#define PRK_SHMEM_COMPAT_H

#include <shmem.h>
#include <stddef.h>
#include <stdint.h>

#if SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION < 5

#define PRK_SHMEM_14 1

_Static_assert(sizeof(unsigned long) == sizeof(uint64_t),
               "signal words as unsigned long");

enum { SHMEM_SIGNAL_SET, SHMEM_SIGNAL_ADD };

static inline void shmem_double_put_signal(double *dest, const double *src,
                                           size_t nelems, uint64_t *sig,
                                           uint64_t value, int op, int pe)
{
    shmem_double_put(dest, src, nelems, pe);
    shmem_fence();
    if (op == SHMEM_SIGNAL_ADD)
        shmem_ulong_atomic_add((unsigned long *)sig, value, pe);
    else
        shmem_ulong_atomic_set((unsigned long *)sig, value, pe);
}

static inline void shmem_signal_add(uint64_t *sig, uint64_t value, int pe)
{
    shmem_ulong_atomic_add((unsigned long *)sig, value, pe);
}

static inline uint64_t shmem_signal_wait_until(uint64_t *sig, int cmp,
                                               uint64_t value)
{
    shmem_ulong_wait_until((unsigned long *)sig, cmp, value);
    return __atomic_load_n(sig, __ATOMIC_ACQUIRE);
}

#endif /* OpenSHMEM 1.4 */

#endif /* PRK_SHMEM_COMPAT_H */
