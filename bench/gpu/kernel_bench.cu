/*
 * Device-initiated put from PE 0 to PE 1 on a GPU (docs/gpu.md,
 * "Device-initiated communication"):
 *
 *   SHMEM_DEVICE_BACKEND=cuda oshrun -n 2 bench/gpu/kernel_bench_cuda [-c] [MAX]
 *
 * The kernels are kernel_bench_body.h's, the host program
 * kernel_bench_host.h's, as in kernel_bench.c (the mock's build). Built
 * by nvcc when configure found it, linked with libweft and the shared
 * CUDA runtime (-cudart shared), so that the program's kernels and
 * libweft's launch go through one runtime. Also compiles as HIP (-x hip).
 */
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#endif

#include "kernel_bench_body.h"

#define KB_BLOCK_THREADS 256
#define KB_MOCK_BUILD    0

__global__ void kb_latency(kb_args_t a)
{
    kb_latency_body(&a);
}

__global__ void kb_bandwidth(kb_args_t a)
{
    kb_bandwidth_body(&a);
}

static const void *kb_kernel(int latency)
{
    return latency ? (const void *)kb_latency : (const void *)kb_bandwidth;
}

#include "kernel_bench_host.h"

int main(int argc, char **argv)
{
    return kb_main(argc, argv);
}
