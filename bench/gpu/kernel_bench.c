/*
 * Device-initiated put from PE 0 to PE 1, its kernels compiled as host
 * code for the mock back end (docs/gpu.md, "Device-initiated
 * communication"):
 *
 *   SHMEM_DEVICE_BACKEND=mock oshrun -n 2 bench/gpu/kernel_bench [-c] [MAX]
 *
 * The kernels are kernel_bench_body.h's, the host program
 * kernel_bench_host.h's; kernel_bench.cu builds the same for a GPU
 * (kernel_bench_cuda). On the mock every GPU thread is a host thread, so
 * the figures are the cost of Weft's device path and of the mock, not of
 * a GPU.
 */
#include "config.h"

#include "kernel_bench_body.h"

#define KB_BLOCK_THREADS 64 /* two warps: the block's own path */
#define KB_MOCK_BUILD    1

/* The mock's kernels: host functions given the launch's argument array. */
static void kb_latency(void **args)
{
    kb_latency_body((const kb_args_t *)args[0]);
}

static void kb_bandwidth(void **args)
{
    kb_bandwidth_body((const kb_args_t *)args[0]);
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
