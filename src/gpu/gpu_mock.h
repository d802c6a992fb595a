/*
 * The mock device's entry point beyond shmi_gpu_ops_t (gpu_mock.c).
 */
#ifndef SHMI_GPU_MOCK_H
#define SHMI_GPU_MOCK_H

#include <stddef.h>

/*
 * A read-write mapping of the mock allocation at ptr (size bytes, an own
 * allocation, not an import) that only the fabric's registration uses: the
 * model of a NIC reaching GPU memory directly. Created on first call,
 * unmapped when the allocation is freed. 0, or SHMI_EINVAL / SHMI_ENOMEM.
 */
int shmi_gpu_mock_dma_view(void *ptr, size_t size, void **view);

#endif /* SHMI_GPU_MOCK_H */
