/*
 * The runtime-API device back end (gpu_runtime.c) and what it needs to
 * know of one GPU runtime. CUDA's runtime (libcudart) and HIP's
 * (libamdhip64) expose the same entry points under two prefixes
 * (cudaMalloc, hipMalloc, ...) with the same argument lists; they differ
 * only in constants and in one structure's layout. A runtime is therefore
 * described by a table (gpu_cuda.c, gpu_hip.c), filled from the vendor's
 * own headers so that the compiler checks every value, and one generic
 * back end drives either through dlopen/dlsym.
 *
 * This header needs no vendor header: the generic code sees the runtimes'
 * status enums as int (static_asserts in the tables), their IPC handles as
 * SHMI_GPU_RT_IPC_BYTES opaque bytes passed by value, and their pointer
 * attributes as opaque bytes with the memory type at a known offset.
 */
#ifndef SHMI_GPU_RUNTIME_H
#define SHMI_GPU_RUNTIME_H

#include <stddef.h>

#include "gpu/gpu.h"

/* The back ends made of it (gpu_runtime.c), where configure found them. */
extern const shmi_gpu_ops_t shmi_gpu_cuda_ops;
extern const shmi_gpu_ops_t shmi_gpu_hip_ops;

/* Size of cudaIpcMemHandle_t and hipIpcMemHandle_t (checked by the tables). */
#define SHMI_GPU_RT_IPC_BYTES 64
/* Room for a pointer-attributes structure of either runtime. */
#define SHMI_GPU_RT_ATTR_MAX 256
/* Statuses of a launch that mean the launch itself is wrong (SHMI_EINVAL). */
#define SHMI_GPU_RT_LAUNCH_INVAL 4

/*
 * The name of the runtime's entry point PREFIX##F without its prefix ("F"),
 * for the names that differ between runtimes: a string constant that
 * compiles only where the vendor's header declares PREFIX##F, so a
 * misspelt name fails the build of the table rather than a dlsym at run
 * time.
 */
#define SHMI_GPU_RT_NAME(PREFIX, F) (#F + 0 * sizeof(&PREFIX##F))
/* 1 when the vendor's header declares function F with type T (a pointer
 * to function): the tables check the prototypes gpu_runtime.c assumes. */
#define SHMI_GPU_RT_HAS_TYPE(F, T) _Generic(&(F), T : 1, default : 0)

typedef struct shmi_gpu_runtime {
    const char *name;        /* back end name: "cuda", "hip" */
    const char *prefix;      /* of every entry point: "cuda" + "Malloc" */
    const char *label;       /* for messages: "CUDA", "HIP" */
    const char *libs[4];     /* tried in turn with dlopen; NULL ends the list */
    int err_oom;             /* status: out of device memory */
    int copy_kind[3];        /* the memcpy kind of each shmi_gpu_copy_t */
    unsigned ipc_open_flags; /* IpcOpenMemHandle: lazy peer access */
    unsigned stream_nonblocking; /* StreamCreateWithFlags: no implicit sync
                                    with the legacy default stream */
    size_t attr_type_off;    /* offset of its memory-type field (an enum) */
    int mem_device;          /* the memory type of device memory */
    shmi_mem_kind_t mem_kind; /* what this runtime's memory is */
    /* Host memory mapped into the device (host_alloc): the entry points'
     * names after the prefix (cuda HostAlloc, FreeHost; hip HostMalloc,
     * HostFree) and the allocation's flags (mapped, portable to every
     * device). */
    const char *fn_host_alloc;
    const char *fn_host_free;
    unsigned host_alloc_flags;
    /* LaunchCooperativeKernel's statuses for a launch the caller got wrong
     * (invalid value, configuration, device function; too many blocks to
     * be resident at once); 0 fills unused places (0 is success). */
    int err_launch_inval[SHMI_GPU_RT_LAUNCH_INVAL];
    /* 1 when LaunchCooperativeKernel takes its shared-memory size as
     * unsigned int (HIP), 0 as size_t (CUDA). */
    int launch_shared_uint;
} shmi_gpu_runtime_t;

/* The tables, built only with the vendor's headers (configure). */
extern const shmi_gpu_runtime_t shmi_gpu_rt_cuda;
extern const shmi_gpu_runtime_t shmi_gpu_rt_hip;

#endif /* SHMI_GPU_RUNTIME_H */
