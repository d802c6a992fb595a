/*
 * The device reduction kernels of the cuda and hip back ends: a loader for
 * the images the library embeds (src/gpu/kernels/images.h), which are
 * built from src/gpu/kernels/reduce.cu at build time. It talks to the
 * vendors' module APIs (the CUDA driver's cuModule*, HIP's hipModule*),
 * loaded with dlopen on the first reduction, so that the library needs
 * neither at load time. gpu_runtime.c calls it for stream_reduce
 * (services/gpu_ops.h).
 */
#ifndef SHMI_GPU_KERNELS_H
#define SHMI_GPU_KERNELS_H

#include <stddef.h>

#include "services/dtype.h"
#include "services/reduce_ops.h"

/* acc[i] = acc[i] op in[i] on the device, enqueued on stream; 0,
 * SHMI_ENOTSUP (no kernel for (op, dt) or no image in this build) or
 * SHMI_EIO (logged with the runtime's error string). backend is "cuda" or
 * "hip". The calling thread has the runtime's device current.
 * SHMI_ENOTSUP also where the vendor's library lacks the module API (the
 * CUDA driver missing beside a runtime, a stand-in runtime in tests);
 * SHMI_EINVAL for another backend. With n == 0 nothing is launched, but
 * the image is loaded and the kernel looked up: the answer says whether a
 * reduction of (op, dt) can run on this device. */
int shmi_gpu_kernels_reduce(const char *backend, void *acc, const void *in,
                            size_t n, shmi_op_t op, shmi_dtype_t dt,
                            void *stream);

/* The kernel name for (op, dt), or NULL when none; for tests. */
const char *shmi_gpu_kernels_name(shmi_op_t op, shmi_dtype_t dt);

#endif /* SHMI_GPU_KERNELS_H */
