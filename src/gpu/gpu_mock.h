/*
 * The mock device's entry point beyond shmi_gpu_ops_t (gpu_mock.c).
 */
#ifndef SHMI_GPU_MOCK_H
#define SHMI_GPU_MOCK_H

#include <stddef.h>

#include "services/gpu_ops.h"

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

#endif /* SHMI_GPU_MOCK_H */
