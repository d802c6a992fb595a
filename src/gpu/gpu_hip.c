/*
 * The ROCm HIP runtime as gpu_runtime.c drives it: libamdhip64, loaded with
 * dlopen on first use, and the runtime's constants, taken from its headers
 * (which differ from CUDA's: no lazy peer-access flag, and the memory type
 * is the field memoryType, with its own numbering). Built when configure
 * finds them (--with-hip; Debian: libamdhip64-dev).
 *
 * Without a GPU hipGetDeviceCount fails (error 100, "no ROCm-capable
 * device", with a count of 0): the probe then reports SHMI_ENODEV and Weft
 * runs without a device heap.
 */
#include "config.h"

#include <hip/hip_runtime_api.h>
#include <stddef.h>

#include "gpu/gpu_runtime.h"

_Static_assert(sizeof(hipIpcMemHandle_t) == SHMI_GPU_RT_IPC_BYTES,
               "hipIpcMemHandle_t size");
_Static_assert(sizeof(hipPointerAttribute_t) <= SHMI_GPU_RT_ATTR_MAX,
               "hipPointerAttribute_t size");
_Static_assert(sizeof(hipError_t) == sizeof(int) &&
                   sizeof(enum hipMemoryType) == sizeof(int) &&
                   sizeof(hipMemcpyKind) == sizeof(int),
               "HIP enums seen as int");
/* gpu_runtime.c's view of the entry points of host_alloc and launch. */
_Static_assert(sizeof(dim3) == 3 * sizeof(unsigned) &&
                   offsetof(dim3, y) == sizeof(unsigned) &&
                   offsetof(dim3, z) == 2 * sizeof(unsigned),
               "dim3 is three unsigned ints");
_Static_assert(SHMI_GPU_RT_HAS_TYPE(hipHostMalloc,
                                    hipError_t (*)(void **, size_t, unsigned)),
               "hipHostMalloc");
_Static_assert(SHMI_GPU_RT_HAS_TYPE(hipHostFree, hipError_t (*)(void *)),
               "hipHostFree");
_Static_assert(SHMI_GPU_RT_HAS_TYPE(hipHostGetDevicePointer,
                                    hipError_t (*)(void **, void *, unsigned)),
               "hipHostGetDevicePointer");
/* The shared-memory size's type: the table's launch_shared_uint. */
_Static_assert(SHMI_GPU_RT_HAS_TYPE(hipLaunchCooperativeKernel,
                                    hipError_t (*)(const void *, dim3, dim3,
                                                   void **, unsigned,
                                                   hipStream_t)),
               "hipLaunchCooperativeKernel");

const shmi_gpu_runtime_t shmi_gpu_rt_hip = {
    .name = "hip",
    .prefix = "hip",
    .label = "HIP",
    .libs = {"libamdhip64.so", "libamdhip64.so.5", "libamdhip64.so.6", NULL},
    .err_oom = hipErrorOutOfMemory,
    .copy_kind = {[SHMI_GPU_H2D] = hipMemcpyHostToDevice,
                  [SHMI_GPU_D2H] = hipMemcpyDeviceToHost,
                  [SHMI_GPU_D2D] = hipMemcpyDeviceToDevice},
    .ipc_open_flags = hipIpcMemLazyEnablePeerAccess,
    .stream_nonblocking = hipStreamNonBlocking,
    .attr_type_off = offsetof(hipPointerAttribute_t, memoryType),
    .mem_device = hipMemoryTypeDevice,
    .mem_kind = SHMI_MEM_ROCM,
    .fn_host_alloc = SHMI_GPU_RT_NAME(hip, HostMalloc),
    .fn_host_free = SHMI_GPU_RT_NAME(hip, HostFree),
    .host_alloc_flags = hipHostMallocMapped | hipHostMallocPortable,
    .err_launch_inval = {hipErrorInvalidValue, hipErrorInvalidConfiguration,
                         hipErrorInvalidDeviceFunction,
                         hipErrorCooperativeLaunchTooLarge},
    .launch_shared_uint = 1,
};
