/*
 * The mock device's entry points beyond shmi_gpu_ops_t (gpu_mock.c), and
 * the functions its members are made of (streams, kernels).
 */
#ifndef SHMI_GPU_MOCK_H
#define SHMI_GPU_MOCK_H

#include <stddef.h>

#include "services/gpu_ops.h"
#include "shmem/device/abi.h"

extern const shmi_gpu_ops_t shmi_gpu_mock_ops;

/*
 * A read-write mapping of the mock allocation at ptr (size bytes, an own
 * allocation, not an import) that only the fabric's registration uses: the
 * model of a NIC reaching GPU memory directly. Created on first call,
 * unmapped when the allocation is freed. 0, or SHMI_EINVAL / SHMI_ENOMEM.
 */
int shmi_gpu_mock_dma_view(void *ptr, size_t size, void **view);

/* The mock's "kernel": acc[i] = acc[i] op in[i] on mock device memory,
 * run by the CPU now (the stream worker calls it in stream order). */
int shmi_gpu_mock_reduce(void *acc, const void *in, size_t n, shmi_op_t op,
                         shmi_dtype_t dt);
/* Kernels run so far in this process (tests: which path a reduction took). */
unsigned long shmi_gpu_mock_reduce_count(void);

/* In-order streams (gpu_mock_stream.c): shmi_gpu_ops_t's stream members. */
int shmi_gpu_mock_stream_create(void **stream);
int shmi_gpu_mock_stream_destroy(void *stream);
int shmi_gpu_mock_stream_sync(void *stream);
int shmi_gpu_mock_stream_host(void *stream, void (*fn)(void *), void *arg);
int shmi_gpu_mock_stream_copy(void *dst, const void *src, size_t len,
                              shmi_gpu_copy_t dir, void *stream);
int shmi_gpu_mock_stream_reduce(void *acc, const void *in, size_t n,
                                shmi_op_t op, shmi_dtype_t dt, void *stream);

/*
 * Kernels (gpu_mock_launch.c): device code compiled as host code, run by
 * host threads standing in for GPU threads.
 *
 * shmi_gpu_ops_t's launch: func is a host function void (*)(void **args).
 * After everything enqueued on stream has finished (stream_sync; its error,
 * if any, is returned and nothing runs), grid[0]*grid[1]*grid[2] blocks of
 * block[0]*block[1]*block[2] threads each call func(args), all at once
 * (cooperative: every block resident); returns when all have returned, so
 * the launch and the kernel's end are one call. SHMI_EINVAL for a NULL
 * func, a zero dimension or more than SHMI_GPU_MOCK_MAX_THREADS threads in
 * all; SHMI_ENOMEM when the threads cannot be started (then none ran).
 * shared_bytes is ignored. Device memory is read-write while it runs
 * (gpu_mock.c).
 */
#define SHMI_GPU_MOCK_MAX_THREADS 4096
int shmi_gpu_mock_launch(const void *func, const unsigned grid[3],
                         const unsigned block[3], void **args,
                         size_t shared_bytes, void *stream);

/* The calling thread's place in the grid of the mock kernel it runs, or
 * NULL outside a mock kernel. */
const shmemd_host_thread_t *shmi_gpu_mock_thread(void);
/* __syncthreads: returns when every thread of the caller's block has
 * called it. Nothing outside a kernel. */
void shmi_gpu_mock_block_sync(void);
/* __syncwarp: returns when every thread of the caller's warp has called
 * it: 32 consecutive linear ranks in the block (rank = x + bdim.x * (y +
 * bdim.y * z)), the block's last warp possibly fewer. Nothing outside a
 * kernel. */
void shmi_gpu_mock_warp_sync(void);

/* For the launcher (gpu_mock.c): a kernel starts, every region is opened
 * read-write; the last running kernel ends, every region is closed. */
void shmi_gpu_mock_kernel_begin(void);
void shmi_gpu_mock_kernel_end(void);

#endif /* SHMI_GPU_MOCK_H */
