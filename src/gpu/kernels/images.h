/*
 * The device images the library carries: reduce.cu built at build time by
 * nvcc into a CUDA fatbin (machine code for sm_80 and sm_90, PTX for newer
 * GPUs) and by hipcc into a HIP code-object bundle (the gfx targets that
 * configure found hipcc able to build), each turned into a C array by
 * scripts/embed_image.py (src/gpu/kernels/kernels.mk). A build without the
 * compiler has the array, with size 0 (images_empty.c).
 *
 * Read by the loader (src/gpu/gpu_kernels.c) and by the test that checks
 * every kernel it names is in the images (tests/gpu/gpu_kernel_names.c).
 */
#ifndef SHMI_GPU_KERNELS_IMAGES_H
#define SHMI_GPU_KERNELS_IMAGES_H

#include <stddef.h>

/* The CUDA fatbin, for cuModuleLoadData; shmi_gpu_image_cuda_size bytes. */
extern const unsigned char shmi_gpu_image_cuda[];
extern const size_t shmi_gpu_image_cuda_size;

/* The HIP bundle, for hipModuleLoadData; shmi_gpu_image_hip_size bytes. */
extern const unsigned char shmi_gpu_image_hip[];
extern const size_t shmi_gpu_image_hip_size;

#endif /* SHMI_GPU_KERNELS_IMAGES_H */
