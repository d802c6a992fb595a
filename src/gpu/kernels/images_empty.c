/*
 * The images of a build without nvcc or hipcc (configure): empty, so that
 * the loader needs no #if and reports SHMI_ENOTSUP, "no kernels in this
 * build", at run time. Where the compiler was found, kernels.mk generates
 * the array from the compiler's output instead.
 */
#include "config.h"

#include "gpu/kernels/images.h"

#ifndef WEFT_HAVE_CUDA_KERNELS
const unsigned char shmi_gpu_image_cuda[1] = {0};
const size_t shmi_gpu_image_cuda_size = 0;
#endif

#ifndef WEFT_HAVE_HIP_KERNELS
const unsigned char shmi_gpu_image_hip[1] = {0};
const size_t shmi_gpu_image_hip_size = 0;
#endif
