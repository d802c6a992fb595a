/* Choice of the device back end and of the device (see gpu.h). */
#include "config.h"

#include <string.h>

#include "gpu/gpu.h"

const shmi_gpu_ops_t *shmi_gpu_backend(const char *name)
{
    if (strcmp(name, "mock") == 0)
        return &shmi_gpu_mock_ops;
#ifdef WEFT_HAVE_CUDA
    if (strcmp(name, "cuda") == 0)
        return &shmi_gpu_cuda_ops;
#endif
#ifdef WEFT_HAVE_HIP
    if (strcmp(name, "hip") == 0)
        return &shmi_gpu_hip_ops;
#endif
    return NULL;
}

int shmi_gpu_choose_device(int count, int local_rank, long requested)
{
    if (count <= 0)
        return -1;
    if (requested >= 0)
        return requested < count ? (int)requested : -1;
    return local_rank % count;
}
