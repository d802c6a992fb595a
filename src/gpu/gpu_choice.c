/* Choice of the device back end and of the device (see gpu.h). */
#include "config.h"

#include <string.h>

#include "gpu/gpu.h"
#include "gpu/gpu_mock.h"
#include "gpu/gpu_runtime.h"

/* The back ends built into this library, in the order that
 * SHMEM_DEVICE_BACKEND=auto tries them. */
static const shmi_gpu_ops_t *const backends[] = {
#ifdef WEFT_HAVE_CUDA
    &shmi_gpu_cuda_ops,
#endif
#ifdef WEFT_HAVE_HIP
    &shmi_gpu_hip_ops,
#endif
    &shmi_gpu_mock_ops,
};

#define N_BACKENDS (sizeof(backends) / sizeof(backends[0]))

const shmi_gpu_ops_t *shmi_gpu_backend(const char *name)
{
    for (size_t i = 0; i < N_BACKENDS; i++)
        if (strcmp(name, backends[i]->name) == 0)
            return backends[i];
    return NULL;
}

const shmi_gpu_ops_t *shmi_gpu_backend_auto(int *count)
{
    for (size_t i = 0; i < N_BACKENDS; i++) {
        const shmi_gpu_ops_t *g = backends[i];

        *count = 0;
        if ((g->flags & SHMI_GPU_AUTO) && g->probe(count) == 0 && *count > 0)
            return g;
    }
    *count = 0;
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
