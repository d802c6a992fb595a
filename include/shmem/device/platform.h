/*
 * The few primitives device routines need, for each compiler that may read
 * them (docs/gpu.md, "Device-initiated communication"):
 *   - nvcc (__CUDACC__): CUDA device code;
 *   - hipcc (__HIPCC__): HIP device code;
 *   - any other C or C++ compiler: host code, where a host thread launched
 *     by the mock back end stands in for a GPU thread (tests). The
 *     qualifiers expand to nothing, atomics are the compiler's __atomic
 *     builtins (atomic across processes on shared pages, as system-scope
 *     atomics are on a GPU), and the thread's place in the grid comes from
 *     the mock's launcher through libweft.
 * Everything here is shmemd_p_ (platform) and internal to the device
 * headers; programs use the routines of include/shmemx_device.h.
 */
#ifndef SHMEM_DEVICE_PLATFORM_H
#define SHMEM_DEVICE_PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__HIPCC__)
#include <hip/hip_runtime.h> /* hipcc -x hip includes nothing by itself */
#endif

#if defined(__CUDACC__) || defined(__HIPCC__)
#define SHMEMD_DEVICE_CODE 1
#define SHMEMD_FN          static __device__ inline
/* For a program's helpers that both its kernels and its host code call. */
#define SHMEMD_HOST_DEVICE_FN static __host__ __device__ inline
#else
#define SHMEMD_DEVICE_CODE    0
#define SHMEMD_FN             static inline
#define SHMEMD_HOST_DEVICE_FN static inline
#include <stdlib.h>
#include <shmemx.h>
#include "shmem/device/abi.h"
#endif

#if SHMEMD_DEVICE_CODE
/* Orders this thread's earlier stores before its later ones as seen by the
 * whole system: other GPUs through IPC mappings and the host (the proxy). */
SHMEMD_FN void shmemd_p_fence_system(void)
{
    __threadfence_system();
}

SHMEMD_FN uint64_t shmemd_p_load64(const volatile uint64_t *p)
{
    return *p;
}

SHMEMD_FN void shmemd_p_store64(volatile uint64_t *p, uint64_t v)
{
    *p = v;
}

/* Atomics visible to every agent of the system (peer GPUs, the host). */
SHMEMD_FN uint32_t shmemd_p_add32(uint32_t *p, uint32_t v)
{
    return atomicAdd_system((unsigned int *)p, v);
}

SHMEMD_FN uint64_t shmemd_p_add64(uint64_t *p, uint64_t v)
{
    return atomicAdd_system((unsigned long long *)p, v);
}

SHMEMD_FN uint32_t shmemd_p_swap32(uint32_t *p, uint32_t v)
{
    return atomicExch_system((unsigned int *)p, v);
}

SHMEMD_FN uint64_t shmemd_p_swap64(uint64_t *p, uint64_t v)
{
    return atomicExch_system((unsigned long long *)p, v);
}

SHMEMD_FN uint32_t shmemd_p_cas32(uint32_t *p, uint32_t cmp, uint32_t v)
{
    return atomicCAS_system((unsigned int *)p, cmp, v);
}

SHMEMD_FN uint64_t shmemd_p_cas64(uint64_t *p, uint64_t cmp, uint64_t v)
{
    return atomicCAS_system((unsigned long long *)p, cmp, v);
}

/* The ticket counter lives in this GPU's memory and only this GPU's
 * threads take tickets: device scope is enough. */
SHMEMD_FN uint64_t shmemd_p_ticket(uint64_t *tail)
{
    return atomicAdd((unsigned long long *)tail, 1ull);
}

SHMEMD_FN unsigned shmemd_p_thread_rank(void)
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

SHMEMD_FN unsigned shmemd_p_block_size(void)
{
    return blockDim.x * blockDim.y * blockDim.z;
}

SHMEMD_FN unsigned shmemd_p_block_rank(void)
{
    return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

SHMEMD_FN unsigned shmemd_p_grid_size(void)
{
    return gridDim.x * gridDim.y * gridDim.z;
}

SHMEMD_FN unsigned shmemd_p_warp_size(void)
{
    return warpSize;
}

SHMEMD_FN void shmemd_p_block_sync(void)
{
    __syncthreads();
}

SHMEMD_FN void shmemd_p_warp_sync(void)
{
#if defined(__HIPCC__)
    __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "wavefront");
    __builtin_amdgcn_wave_barrier();
#else
    __syncwarp();
#endif
}

/* One pause in a polling loop: lets the other warps of the SM issue.
 * *polls counts the loop's unsuccessful polls (host code backs off by it). */
SHMEMD_FN void shmemd_p_relax(unsigned *polls)
{
    (void)polls;
#if defined(__HIPCC__)
    __builtin_amdgcn_s_sleep(1);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    __nanosleep(64);
#endif
}

/* Stops the kernel; the proxy prints the error the caller recorded. */
SHMEMD_FN void shmemd_p_trap(void)
{
#if defined(__HIPCC__)
    __builtin_trap();
#else
    __trap();
#endif
}

/* shmemd_init() was never called in this translation unit: there is no
 * error box to write, so the message is printed here. */
SHMEMD_FN void shmemd_p_uninitialised(void)
{
    printf("weft: device routine called before shmemd_init() in this "
           "source file\n");
    shmemd_p_trap();
}

#else /* host code standing in for device code */

SHMEMD_FN void shmemd_p_fence_system(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

SHMEMD_FN uint64_t shmemd_p_load64(const volatile uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

SHMEMD_FN void shmemd_p_store64(volatile uint64_t *p, uint64_t v)
{
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

SHMEMD_FN uint32_t shmemd_p_add32(uint32_t *p, uint32_t v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}

SHMEMD_FN uint64_t shmemd_p_add64(uint64_t *p, uint64_t v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}

SHMEMD_FN uint32_t shmemd_p_swap32(uint32_t *p, uint32_t v)
{
    return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
}

SHMEMD_FN uint64_t shmemd_p_swap64(uint64_t *p, uint64_t v)
{
    return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
}

SHMEMD_FN uint32_t shmemd_p_cas32(uint32_t *p, uint32_t cmp, uint32_t v)
{
    __atomic_compare_exchange_n(p, &cmp, v, 0, __ATOMIC_SEQ_CST,
                                __ATOMIC_SEQ_CST);
    return cmp; /* the old value either way */
}

SHMEMD_FN uint64_t shmemd_p_cas64(uint64_t *p, uint64_t cmp, uint64_t v)
{
    __atomic_compare_exchange_n(p, &cmp, v, 0, __ATOMIC_SEQ_CST,
                                __ATOMIC_SEQ_CST);
    return cmp;
}

SHMEMD_FN uint64_t shmemd_p_ticket(uint64_t *tail)
{
    return __atomic_fetch_add(tail, 1, __ATOMIC_SEQ_CST);
}

SHMEMD_FN const shmemd_host_thread_t *shmemd_p_host_thread(void)
{
    static const shmemd_host_thread_t lone = {
        {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}};
    const shmemd_host_thread_t *t =
        (const shmemd_host_thread_t *)shmemx_kernel_thread_info();

    return t ? t : &lone; /* outside a mock launch: a grid of one thread */
}

SHMEMD_FN unsigned shmemd_p_thread_rank(void)
{
    const shmemd_host_thread_t *t = shmemd_p_host_thread();

    return t->thread[0] +
           t->bdim[0] * (t->thread[1] + t->bdim[1] * t->thread[2]);
}

SHMEMD_FN unsigned shmemd_p_block_size(void)
{
    const shmemd_host_thread_t *t = shmemd_p_host_thread();

    return t->bdim[0] * t->bdim[1] * t->bdim[2];
}

SHMEMD_FN unsigned shmemd_p_block_rank(void)
{
    const shmemd_host_thread_t *t = shmemd_p_host_thread();

    return t->block[0] + t->gdim[0] * (t->block[1] + t->gdim[1] * t->block[2]);
}

SHMEMD_FN unsigned shmemd_p_grid_size(void)
{
    const shmemd_host_thread_t *t = shmemd_p_host_thread();

    return t->gdim[0] * t->gdim[1] * t->gdim[2];
}

/* The mock's warps: 32 consecutive thread ranks, as on NVIDIA GPUs. */
SHMEMD_FN unsigned shmemd_p_warp_size(void)
{
    return 32;
}

SHMEMD_FN void shmemd_p_block_sync(void)
{
    shmemx_kernel_block_sync();
}

SHMEMD_FN void shmemd_p_warp_sync(void)
{
    shmemx_kernel_warp_sync();
}

/* Host threads outnumber the cores in a mock kernel: libweft's back-off
 * (shmemx_kernel_relax) lets the threads waited for, the proxy among them,
 * have the cores. */
SHMEMD_FN void shmemd_p_relax(unsigned *polls)
{
    shmemx_kernel_relax(++*polls);
}

SHMEMD_FN void shmemd_p_trap(void)
{
    shmemx_kernel_trap();
}

SHMEMD_FN void shmemd_p_uninitialised(void)
{
    fprintf(stderr, "weft: device routine called before shmemd_init() in "
                    "this source file\n");
    abort();
}

#endif /* SHMEMD_DEVICE_CODE */

#endif /* SHMEM_DEVICE_PLATFORM_H */
