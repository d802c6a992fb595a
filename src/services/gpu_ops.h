/*
 * The interface of a device memory back end (docs/design.md, decision 9):
 * what the core and the device transport call on GPU memory. The back ends
 * themselves (cuda, hip, mock) are in src/gpu, which the core chooses from;
 * the device transport is handed the chosen one (transports/transport.h,
 * shmt_job_t), so it needs this declaration and nothing of src/gpu.
 */
#ifndef SHMI_GPU_OPS_H
#define SHMI_GPU_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "services/amo_op.h"
#include "services/dtype.h"
#include "services/mem_kind.h"
#include "services/reduce_ops.h"
#include "shmem/device/abi.h"

/* Direction of a copy, as the runtimes name them. */
typedef enum shmi_gpu_copy {
    SHMI_GPU_H2D,
    SHMI_GPU_D2H,
    SHMI_GPU_D2D
} shmi_gpu_copy_t;

/* An exported allocation that a PE of the same node can import. Large
 * enough for cudaIpcMemHandle_t and hipIpcMemHandle_t (64 bytes each). */
typedef struct shmi_gpu_ipc {
    unsigned char bytes[96];
} shmi_gpu_ipc_t;

/* What the memory is, as a network device must be told about it. */
typedef struct shmi_gpu_hmem {
    shmi_mem_kind_t kind; /* SHMI_MEM_HOST: memory no device can name */
    int device;           /* the device ordinal */
} shmi_gpu_hmem_t;

/* What a back end says of itself (shmi_gpu_ops_t, flags), so that the
 * core decides by what a back end is, never by its name. */
/* SHMEM_DEVICE_BACKEND=auto may choose it: a runtime of real devices (the
 * mock is chosen only by name). */
#define SHMI_GPU_AUTO 0x1u
/* Its only streams are the ones stream_create made: any other pointer is
 * no stream, and the core says so instead of passing it on. */
#define SHMI_GPU_OWN_STREAMS 0x2u

typedef struct shmi_gpu_ops {
    size_t size;      /* sizeof(shmi_gpu_ops_t) the back end was built with */
    const char *name; /* "cuda", "hip", "mock": for messages */
    unsigned flags;   /* SHMI_GPU_* */

    /* Loads the runtime and counts devices. SHMI_ENODEV (with *count = 0)
     * when the runtime or a device is missing; never crashes. */
    int (*probe)(int *count);
    /* Makes device `dev` (0..count-1) current for this PE. */
    int (*select)(int dev);

    /* Device memory of `size` bytes, zero-filled. */
    int (*alloc)(size_t size, void **ptr);
    int (*free)(void *ptr);

    /* IPC: export an allocation for a peer on this node; import a peer's
     * (mapped into this process); close an imported mapping. */
    int (*ipc_export)(void *ptr, size_t size, shmi_gpu_ipc_t *handle);
    int (*ipc_import)(const shmi_gpu_ipc_t *handle, size_t size, void **ptr);
    int (*ipc_close)(void *ptr, size_t size);

    /* Synchronous copy; returns when dst holds the data. */
    int (*copy)(void *dst, const void *src, size_t len, shmi_gpu_copy_t dir);

    /* One atomic on a dtype-sized word of device memory (see shmi_amo).
     * Atomic with respect to every other call of this function on the word,
     * from any PE of the node. */
    int (*atomic)(void *word, shmi_amo_op_t op, shmi_dtype_t dt,
                  const void *operand, const void *compare, void *fetched);

    /* 1 when ptr is device memory of this back end, 0 otherwise. */
    int (*is_device)(const void *ptr);

    /* How a network device must be told about this memory. */
    shmi_gpu_hmem_t (*hmem)(void);
    /* What a NIC registers for the allocation at base (size bytes, an own
     * allocation): *addr, and what to tell the NIC about it (*kind,
     * *device). SHMI_ENOTSUP when no NIC can reach it. */
    int (*fabric_view)(void *base, size_t size, void **addr,
                       shmi_mem_kind_t *kind, int *device);

    /*
     * Streams: the back end's in-order queues of device work (cudaStream_t,
     * hipStream_t; the mock's host queue with a worker thread), passed as
     * void *. NULL is the default stream. Work enqueued on a stream starts
     * after the work enqueued before it has finished; the enqueueing calls
     * return at once (docs/gpu.md, "Stream-ordered communication").
     */
    int (*stream_create)(void **stream);
    int (*stream_destroy)(void *stream);
    /* Returns when everything enqueued on stream so far has finished. */
    int (*stream_sync)(void *stream);
    /* Enqueues fn(arg). fn must not call the back end itself (CUDA's and
     * HIP's rule for host functions): it may hand work to a thread that
     * does, and wait for it. */
    int (*stream_host)(void *stream, void (*fn)(void *), void *arg);
    /* Enqueues a copy in direction dir. */
    int (*stream_copy)(void *dst, const void *src, size_t len,
                       shmi_gpu_copy_t dir, void *stream);
    /* Enqueues acc[i] = acc[i] op in[i] for n elements of dt, both arrays
     * device memory, computed on the device (a kernel). SHMI_ENOTSUP where
     * the back end has no kernel for (op, dt): long double, or a build
     * without the device compiler. */
    int (*stream_reduce)(void *acc, const void *in, size_t n, shmi_op_t op,
                         shmi_dtype_t dt, void *stream);

    /*
     * Device-initiated communication (docs/gpu.md): host memory a kernel
     * reaches, and kernel launches. Members of a runtime that lacks the
     * entry points return SHMI_ENOTSUP.
     */
    /* size bytes (> 0, else SHMI_EINVAL) of host memory, zero-filled,
     * page-locked and mapped into the device: *host is the address the
     * host uses, *device the one device code uses (the same on the mock).
     * The caller owns it until host_free(*host). */
    int (*host_alloc)(size_t size, void **host, void **device);
    /* Frees what host_alloc returned as *host; NULL does nothing. */
    int (*host_free)(void *host);
    /*
     * A cooperative launch (every block resident at once, so blocks may
     * wait for each other) of kernel func: grid[0..2] blocks of
     * block[0..2] threads (x, y, z as CUDA's dim3), args the array of
     * pointers to each argument (as cudaLaunchKernel takes it),
     * shared_bytes of dynamic shared memory per block, on stream (NULL:
     * the default stream). cuda, hip: enqueued, returns at once; a launch
     * the runtime refuses (bad dimensions, function, arguments, too many
     * blocks to be resident) is SHMI_EINVAL, any other failure SHMI_EIO.
     * mock: func is a host function void (*)(void **args) run by one host
     * thread per GPU thread after the work enqueued on stream; returns when
     * every thread has returned (gpu_mock.h, shmi_gpu_mock_launch).
     */
    int (*launch)(const void *func, const unsigned grid[3],
                  const unsigned block[3], void **args, size_t shared_bytes,
                  void *stream);
    /*
     * Device code compiled as host code (the mock's kernels, run by host
     * threads standing in for GPU threads) asks these of libweft: the
     * calling thread's place in its grid (NULL outside a kernel),
     * __syncthreads and __syncwarp (nothing outside a kernel). NULL where
     * device code runs on the device (cuda, hip).
     */
    const shmemd_host_thread_t *(*host_thread)(void);
    void (*host_block_sync)(void);
    void (*host_warp_sync)(void);
} shmi_gpu_ops_t;

#endif /* SHMI_GPU_OPS_H */
