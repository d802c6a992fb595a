/*
 * The kernels of the device-API tests, written once for both drivers:
 * tests/gpu/kernel_ops.c runs them as host threads on the mock,
 * tests/gpu/kernel_ops.cu as CUDA kernels. Each body takes the case's
 * arguments, lives in device code, and leaves what the host checks in the
 * device heap (never asserting itself: a GPU thread cannot report).
 *
 * Every thread has a global rank g of G (blocks times threads); PE me
 * talks mostly to its right neighbour (me + 1) % n and hears from its
 * left one.
 */
#ifndef WEFT_TESTS_GPU_KERNEL_BODIES_H
#define WEFT_TESTS_GPU_KERNEL_BODIES_H

#include <shmemx_device.h>

/* Elements of each thread's chunk in the RMA cases. */
#define KT_CHUNK 37
/* Atomic rounds per thread and target PE. */
#define KT_AMO_ROUNDS 3
/* Barrier rounds. */
#define KT_BARRIER_ROUNDS 12
/* Flood: non-fetching atomics per thread. */
#define KT_FLOOD 48

typedef struct kt_args {
    long *src, *dst;   /* G * KT_CHUNK longs each */
    long *got;         /* G * KT_CHUNK longs: what gets read */
    char *bytes;       /* block-form area: nbytes at each of 2 halves */
    size_t nbytes;     /* bytes of each block-form transfer */
    uint64_t *ctr64;   /* [0] fetch_add, [1] inc, [2] swap target */
    unsigned *ctr32;   /* [0] fetch_add, [1] compare_swap winner */
    uint64_t *fetched; /* G * KT_AMO_ROUNDS * n_pes fetched values */
    int *winners;      /* G: 1 for the thread whose cswap won, per PE */
    uint64_t *sig;     /* [0] signal word, [1] fence flag */
    long *slots;       /* KT_BARRIER_ROUNDS longs: barrier data */
    long *ptr_ok;      /* n_pes: 1 where shmemd_ptr gives an address */
    double *dbl;       /* [0..G) p/g of double, [G] atomic set/fetch */
    int *ints;         /* G: p/g of int */
} kt_args_t;

SHMEMD_FN unsigned kt_rank(void)
{
    return shmemd_p_block_rank() * shmemd_p_block_size() +
           shmemd_p_thread_rank();
}

SHMEMD_FN unsigned kt_count(void)
{
    return shmemd_p_grid_size() * shmemd_p_block_size();
}

SHMEMD_HOST_DEVICE_FN long kt_value(int pe, unsigned g, unsigned i)
{
    return (long)pe * 1000003L + (long)g * 1009L + (long)i;
}

/* A load that reads memory other PEs write (never a stale cached copy). */
SHMEMD_FN long kt_load(const long *p)
{
    return (long)shmemd_p_load64((const volatile uint64_t *)p);
}

/* Each thread puts its chunk of src (the host filled it) into the right
 * neighbour's dst and gets the right neighbour's chunk of src into got. */
SHMEMD_FN void kt_rma(const kt_args_t *a)
{
    int right = (shmemd_my_pe() + 1) % shmemd_n_pes();
    size_t at = (size_t)kt_rank() * KT_CHUNK;

    shmemd_long_put(a->dst + at, a->src + at, KT_CHUNK, right);
    shmemd_long_get(a->got + at, a->src + at, KT_CHUNK, right);
    shmemd_quiet();
}

/* Block and warp forms: the block puts nbytes to the right neighbour's
 * first half, each warp its share into the second half; then the block
 * gets the right neighbour's bytes back into its own first half's
 * mirror (dst chunk area). Only block 0 of the grid takes part. */
SHMEMD_FN void kt_group(const kt_args_t *a)
{
    int me = shmemd_my_pe(), right = (me + 1) % shmemd_n_pes();
    unsigned t = shmemd_p_thread_rank(), ws = shmemd_p_warp_size();
    unsigned warp = t / ws, nwarps;
    size_t share, first;

    if (shmemd_p_block_rank() != 0)
        return;
    nwarps = (shmemd_p_block_size() + ws - 1) / ws;
    share = a->nbytes / nwarps;
    first = warp * share;
    shmemd_putmem_block(a->bytes + a->nbytes, a->bytes, a->nbytes, right);
    shmemd_putmem_warp(a->bytes + 2 * a->nbytes + first, a->bytes + first,
                       warp + 1 == nwarps ? a->nbytes - first : share, right);
    shmemd_quiet();
    shmemd_sync_all_block();
    shmemd_getmem_block(a->bytes + 3 * a->nbytes, a->bytes + a->nbytes,
                        a->nbytes, right);
    shmemd_getmem_warp(a->bytes + 4 * a->nbytes + first,
                       a->bytes + 2 * a->nbytes + first,
                       warp + 1 == nwarps ? a->nbytes - first : share, right);
}

/* p and g of int and double to the right neighbour, then read back. */
SHMEMD_FN void kt_pg(const kt_args_t *a)
{
    int me = shmemd_my_pe(), right = (me + 1) % shmemd_n_pes();
    unsigned g = kt_rank();

    shmemd_int_p(a->ints + g, (int)kt_value(me, g, 7), right);
    shmemd_double_p(a->dbl + g, (double)g + 0.25 * me, right);
    shmemd_quiet();
    if (shmemd_int_g(a->ints + g, right) != (int)kt_value(me, g, 7) ||
        shmemd_double_g(a->dbl + g, right) != (double)g + 0.25 * me)
        a->got[g] = -1;
    else
        a->got[g] = 1;
}

/* Atomics from every thread on every PE's counters. */
SHMEMD_FN void kt_amo(const kt_args_t *a)
{
    int n = shmemd_n_pes();
    unsigned g = kt_rank(), G = kt_count();
    uint64_t *out = a->fetched + (size_t)g * KT_AMO_ROUNDS * n;

    for (int r = 0; r < KT_AMO_ROUNDS; r++) {
        for (int pe = 0; pe < n; pe++) {
            out[r * n + pe] = shmemd_uint64_atomic_fetch_add(a->ctr64, 1, pe);
            shmemd_uint64_atomic_inc(a->ctr64 + 1, pe);
            shmemd_uint_atomic_add(a->ctr32, 2u, pe);
        }
    }
    for (int pe = 0; pe < n; pe++) {
        /* the first thread anywhere to swap 0 for its id + 1 wins PE pe */
        unsigned id = (unsigned)(shmemd_my_pe() * G + g + 1);

        if (shmemd_uint_atomic_compare_swap(a->ctr32 + 1, 0u, id, pe) == 0)
            a->winners[g] += 1 << pe;
        shmemd_uint64_atomic_swap(a->ctr64 + 2, id, pe);
    }
    if (g == 0)
        shmemd_double_atomic_set(a->dbl + G, 2.5 + shmemd_my_pe(),
                                 (shmemd_my_pe() + 1) % n);
    shmemd_quiet();
}

/* Put with signal around the ring, then fence ordering: data, fence,
 * flag. Thread 0 of each PE only. */
SHMEMD_FN void kt_signal(const kt_args_t *a)
{
    int me = shmemd_my_pe(), n = shmemd_n_pes(), right = (me + 1) % n;

    if (kt_rank() != 0)
        return;
    for (unsigned i = 0; i < KT_CHUNK; i++)
        a->src[i] = kt_value(me, 0, i + 100);
    shmemd_p_fence_system();
    shmemd_putmem_signal(a->dst, a->src, KT_CHUNK * sizeof(long), a->sig, 1,
                         SHMEM_SIGNAL_ADD, right);
    shmemd_signal_wait_until(a->sig, SHMEM_CMP_GE, 1);
    a->got[0] = (long)shmemd_signal_fetch(a->sig);
    /* fence: the data of the second put must be there when the flag is */
    shmemd_long_put(a->dst + KT_CHUNK, a->src, KT_CHUNK, right);
    shmemd_fence();
    shmemd_uint64_p(a->sig + 1, 7, right);
    shmemd_signal_wait_until(a->sig + 1, SHMEM_CMP_EQ, 7);
    for (unsigned i = 0; i < KT_CHUNK; i++)
        if (kt_load(a->dst + KT_CHUNK + i) !=
            kt_value((me + n - 1) % n, 0, i + 100))
            a->got[1] = -1;
}

/* Rounds of put, barrier, read: thread 0 with barrier_all, then block 0
 * with the _block form. */
SHMEMD_FN void kt_barrier(const kt_args_t *a)
{
    int me = shmemd_my_pe(), n = shmemd_n_pes(), right = (me + 1) % n;

    if (shmemd_p_block_rank() != 0)
        return;
    for (int r = 0; r < KT_BARRIER_ROUNDS; r++) {
        if (shmemd_p_thread_rank() == 0) {
            shmemd_long_p(a->slots + r, kt_value(me, 0, (unsigned)r), right);
            if (r % 2 == 0)
                shmemd_barrier_all();
        }
        if (r % 2 == 1)
            shmemd_barrier_all_block();
        if (shmemd_p_thread_rank() == 0 &&
            kt_load(a->slots + r) != kt_value((me + n - 1) % n, 0, (unsigned)r))
            a->got[r] = -1;
    }
}

/* What shmemd_ptr answers for each PE. */
SHMEMD_FN void kt_ptr(const kt_args_t *a)
{
    if (kt_rank() != 0)
        return;
    for (int pe = 0; pe < shmemd_n_pes(); pe++)
        a->ptr_ok[pe] = shmemd_ptr(a->dst, pe) != 0;
}

/* Many non-fetching atomics and puts from every thread at once: with a
 * small ring every thread waits for slots; none may be lost. */
SHMEMD_FN void kt_flood(const kt_args_t *a)
{
    int n = shmemd_n_pes(), me = shmemd_my_pe();
    unsigned g = kt_rank();

    for (int i = 0; i < KT_FLOOD; i++)
        shmemd_uint64_atomic_add(a->ctr64, 1, (me + 1 + i) % n);
    shmemd_long_p(a->dst + g, kt_value(me, g, 9), (me + 1) % n);
    shmemd_quiet();
}

/* Bad input: which = 1 a PE out of range, 2 an address outside the
 * device heap. */
SHMEMD_FN void kt_bad(const kt_args_t *a, int which)
{
    if (kt_rank() != 0 || shmemd_my_pe() != 0)
        return;
    if (which == 1)
        shmemd_long_p(a->dst, 1, shmemd_n_pes() + 3);
    else
        shmemd_long_p(a->dst - 4096, 1, 0);
}

#endif /* WEFT_TESTS_GPU_KERNEL_BODIES_H */
