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

/* Size of cudaIpcMemHandle_t and hipIpcMemHandle_t (checked by the tables). */
#define SHMI_GPU_RT_IPC_BYTES 64
/* Room for a pointer-attributes structure of either runtime. */
#define SHMI_GPU_RT_ATTR_MAX 256

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
} shmi_gpu_runtime_t;

/* The tables, built only with the vendor's headers (configure). */
extern const shmi_gpu_runtime_t shmi_gpu_rt_cuda;
extern const shmi_gpu_runtime_t shmi_gpu_rt_hip;

#endif /* SHMI_GPU_RUNTIME_H */
