/*
 * The kernels of bench/gpu/kernel_bench (device-initiated put, PE 0 to
 * PE 1), written once for both of its drivers: kernel_bench.c compiles
 * them as host code for the mock back end, kernel_bench.cu as CUDA (or
 * HIP) device code. Each kernel is an SHMEMD_FN body taking a pointer to
 * kb_args_t; the driver wraps it in a kernel of its own form.
 *
 * Every kernel runs as one block on each PE: 1 thread (KB_THREAD), one
 * warp (KB_WARP) or a larger block (KB_BLOCK), all threads of the block
 * calling the routine of their mode with the same arguments.
 */
#ifndef KERNEL_BENCH_BODY_H
#define KERNEL_BENCH_BODY_H

#include <shmemx_device.h>

#if !SHMEMD_DEVICE_CODE
#include <time.h>
#endif

/* Who issues each put: one thread, a warp together, a block together. */
typedef enum kb_mode { KB_THREAD, KB_WARP, KB_BLOCK, KB_NMODES } kb_mode_t;

/* One launch's arguments; the pointers are symmetric (device heap). */
typedef struct kb_args {
    char *dst;          /* nbytes: where the puts land on the peer */
    char *src;          /* nbytes: what is put (device heap, so that the proxy
                        can read it too) */
    uint64_t *sig;      /* [0]: this PE's ping-pong signal word */
    double *elapsed;    /* [0]: seconds PE 0's leader timed (written on PE 0) */
    uint64_t nbytes;    /* bytes per put */
    uint64_t base;      /* signal value before this launch (values only grow,
                        so no launch has to reset the words) */
    uint32_t iters;     /* timed round trips (latency) or windows (bandwidth) */
    uint32_t warmup;    /* untimed ones before them */
    uint32_t window;    /* puts per window before each quiet (bandwidth) */
    uint32_t mode;      /* kb_mode_t */
    uint64_t clock_khz; /* HIP only: the wall clock's rate */
} kb_args_t;

/*
 * Nanoseconds of a clock that runs at a fixed rate: the globaltimer on
 * CUDA (clock64 counts SM cycles, whose rate changes with the load), the
 * wall clock on HIP, CLOCK_MONOTONIC where host threads stand in for GPU
 * threads.
 */
SHMEMD_FN uint64_t kb_clock_ns(const kb_args_t *a)
{
#if defined(__HIPCC__)
    /* s_memrealtime: the wall clock (wall_clock64() of later HIP) */
    return __builtin_amdgcn_s_memrealtime() * 1000000ull / a->clock_khz;
#elif SHMEMD_DEVICE_CODE
    uint64_t t;

    (void)a;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
#else
    struct timespec ts;

    (void)a;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
#endif
}

/* The calling thread's index in its (one-dimensional) block. */
SHMEMD_FN unsigned kb_thread(void)
{
#if SHMEMD_DEVICE_CODE
    return threadIdx.x;
#else
    const shmemd_host_thread_t *t =
        (const shmemd_host_thread_t *)shmemx_kernel_thread_info();

    return t ? t->thread[0] : 0;
#endif
}

/* The put of the launch's mode, called by every thread of the block. */
SHMEMD_FN void kb_put(const kb_args_t *a, int pe)
{
    switch (a->mode) {
    case KB_WARP: shmemd_putmem_warp(a->dst, a->src, a->nbytes, pe); break;
    case KB_BLOCK: shmemd_putmem_block(a->dst, a->src, a->nbytes, pe); break;
    default: shmemd_putmem(a->dst, a->src, a->nbytes, pe);
    }
}

/*
 * One message of the ping-pong to pe, whose signal word becomes v once
 * the data is there. One thread puts and signals in one call; a group
 * puts together, then its leader orders a zero-byte put-with-signal after
 * the group's put (the group's routine returns in every thread once the
 * put is issued, and fence orders it before what follows).
 */
SHMEMD_FN void kb_send(const kb_args_t *a, uint64_t v, int pe)
{
    if (a->mode == KB_THREAD) {
        shmemd_putmem_signal(a->dst, a->src, a->nbytes, a->sig, v,
                             SHMEM_SIGNAL_SET, pe);
        return;
    }
    kb_put(a, pe);
    if (kb_thread() == 0) {
        shmemd_fence();
        shmemd_putmem_signal(a->dst, a->src, 0, a->sig, v, SHMEM_SIGNAL_SET,
                             pe);
    }
}

/*
 * Latency: PE 0 sends, PE 1 waits for it and sends back, warmup + iters
 * times. Every thread of the block waits on the signal itself, so that
 * the group's put that answers starts with the whole group (device code
 * has no block barrier of its own but the one inside the _block routine).
 * PE 0's leader writes the seconds of the timed round trips.
 */
SHMEMD_FN void kb_latency_body(const kb_args_t *a)
{
    const int me = shmemd_my_pe();
    uint64_t t0 = 0;

    if (me > 1)
        return;
    for (uint32_t i = 0; i < a->warmup + a->iters; i++) {
        uint64_t v = a->base + i + 1;

        if (i == a->warmup)
            t0 = kb_clock_ns(a);
        if (me == 0) {
            kb_send(a, v, 1);
            shmemd_signal_wait_until(a->sig, SHMEM_CMP_GE, v);
        } else {
            shmemd_signal_wait_until(a->sig, SHMEM_CMP_GE, v);
            kb_send(a, v, 0);
        }
    }
    if (me == 0 && kb_thread() == 0)
        a->elapsed[0] = (double)(kb_clock_ns(a) - t0) * 1e-9;
}

/*
 * Bandwidth: PE 0 puts window messages to PE 1, then its leader waits for
 * their completion (quiet), warmup + iters times; PE 1 only has to be
 * running. Quiet covers the group's puts too: each returned only once its
 * part was issued.
 */
SHMEMD_FN void kb_bandwidth_body(const kb_args_t *a)
{
    uint64_t t0 = 0;

    if (shmemd_my_pe() != 0)
        return;
    for (uint32_t i = 0; i < a->warmup + a->iters; i++) {
        if (i == a->warmup)
            t0 = kb_clock_ns(a);
        for (uint32_t w = 0; w < a->window; w++)
            kb_put(a, 1);
        if (kb_thread() == 0)
            shmemd_quiet();
    }
    if (kb_thread() == 0)
        a->elapsed[0] = (double)(kb_clock_ns(a) - t0) * 1e-9;
}

#endif /* KERNEL_BENCH_BODY_H */
