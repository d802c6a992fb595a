/*
 * Device memory back ends (docs/design.md, decision 9): one interface, three
 * implementations.
 *
 *   cuda  the CUDA runtime (libcudart), loaded with dlopen on first use
 *   hip   the ROCm HIP runtime (libamdhip64), loaded with dlopen on first use
 *         (both: one runtime-API back end, gpu_runtime.c, and a table each)
 *   mock  a shared-memory region that reports itself as device memory and
 *         is reachable only through the back end's own functions: outside
 *         them it is PROT_NONE, so an accidental host dereference of device
 *         memory crashes in tests exactly as it would on a real GPU
 *
 * The runtimes are loaded lazily so that programs that never ask for device
 * memory pay nothing for them at start-up and run where they are absent.
 */
#ifndef SHMI_GPU_H
#define SHMI_GPU_H

#include "services/gpu_ops.h"

/* The back end named `name` ("cuda", "hip", "mock"), or NULL if unknown or
 * not built into this library. */
const shmi_gpu_ops_t *shmi_gpu_backend(const char *name);

/* The first back end built into this library that SHMEM_DEVICE_BACKEND=auto
 * may choose (SHMI_GPU_AUTO) and whose probe finds a device, with *count its
 * devices; NULL (*count = 0) when none does. */
const shmi_gpu_ops_t *shmi_gpu_backend_auto(int *count);

/*
 * The device this PE uses: SHMEM_DEVICE_ID when set (>= 0), else its local
 * rank modulo the device count. (The nearest GPU by hwloc refines this when
 * the topology names GPUs; see src/topo.)
 */
int shmi_gpu_choose_device(int count, int local_rank, long requested);

#endif /* SHMI_GPU_H */
