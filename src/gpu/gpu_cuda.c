/*
 * The CUDA runtime as gpu_runtime.c drives it: libcudart, loaded with
 * dlopen on first use (so that libweft neither needs libcudart to load nor
 * pays for it at start-up), and the runtime's constants, taken from its
 * headers. Built when configure finds them (--with-cuda).
 *
 * Without a usable driver cudaGetDeviceCount fails (error 35, "CUDA driver
 * version is insufficient", on a machine with the toolkit but no GPU): the
 * probe then reports SHMI_ENODEV and Weft runs without a device heap.
 */
#include "config.h"

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "gpu/gpu_runtime.h"

_Static_assert(sizeof(cudaIpcMemHandle_t) == SHMI_GPU_RT_IPC_BYTES,
               "cudaIpcMemHandle_t size");
_Static_assert(sizeof(struct cudaPointerAttributes) <= SHMI_GPU_RT_ATTR_MAX,
               "cudaPointerAttributes size");
_Static_assert(sizeof(cudaError_t) == sizeof(int) &&
                   sizeof(enum cudaMemoryType) == sizeof(int) &&
                   sizeof(enum cudaMemcpyKind) == sizeof(int),
               "CUDA enums seen as int");
/* gpu_runtime.c's view of the entry points of host_alloc and launch. */
_Static_assert(sizeof(dim3) == 3 * sizeof(unsigned) &&
                   offsetof(dim3, y) == sizeof(unsigned) &&
                   offsetof(dim3, z) == 2 * sizeof(unsigned),
               "dim3 is three unsigned ints");
_Static_assert(SHMI_GPU_RT_HAS_TYPE(cudaHostAlloc,
                                    cudaError_t (*)(void **, size_t, unsigned)),
               "cudaHostAlloc");
_Static_assert(SHMI_GPU_RT_HAS_TYPE(cudaFreeHost, cudaError_t (*)(void *)),
               "cudaFreeHost");
_Static_assert(SHMI_GPU_RT_HAS_TYPE(cudaHostGetDevicePointer,
                                    cudaError_t (*)(void **, void *, unsigned)),
               "cudaHostGetDevicePointer");
/* The shared-memory size's type: the table's launch_shared_uint. */
_Static_assert(SHMI_GPU_RT_HAS_TYPE(cudaLaunchCooperativeKernel,
                                    cudaError_t (*)(const void *, dim3, dim3,
                                                    void **, size_t,
                                                    cudaStream_t)),
               "cudaLaunchCooperativeKernel");

const shmi_gpu_runtime_t shmi_gpu_rt_cuda = {
    .name = "cuda",
    .prefix = "cuda",
    .label = "CUDA",
    .libs = {"libcudart.so", "libcudart.so.13", "libcudart.so.12", NULL},
    .err_oom = cudaErrorMemoryAllocation,
    .copy_kind = {[SHMI_GPU_H2D] = cudaMemcpyHostToDevice,
                  [SHMI_GPU_D2H] = cudaMemcpyDeviceToHost,
                  [SHMI_GPU_D2D] = cudaMemcpyDeviceToDevice},
    .ipc_open_flags = cudaIpcMemLazyEnablePeerAccess,
    .stream_nonblocking = cudaStreamNonBlocking,
    .attr_type_off = offsetof(struct cudaPointerAttributes, type),
    .mem_device = cudaMemoryTypeDevice,
    .mem_kind = SHMI_MEM_CUDA,
    .fn_host_alloc = SHMI_GPU_RT_NAME(cuda, HostAlloc),
    .fn_host_free = SHMI_GPU_RT_NAME(cuda, FreeHost),
    .host_alloc_flags = cudaHostAllocMapped | cudaHostAllocPortable,
    .err_launch_inval = {cudaErrorInvalidValue, cudaErrorInvalidConfiguration,
                         cudaErrorInvalidDeviceFunction,
                         cudaErrorCooperativeLaunchTooLarge},
    .launch_shared_uint = 0,
};
