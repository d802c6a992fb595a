/*
 * A Jacobi stencil whose kernel exchanges its halo rows with the
 * neighbour PEs from inside the kernel, iterating inside one collective
 * launch (halo_stencil.h says how):
 *
 *   SHMEM_DEVICE_BACKEND=cuda oshrun -n 2 examples/gpu/halo_stencil [ITERS]
 *
 * PE 0 checks the result against a serial computation and prints OK or
 * FAIL. halo_stencil_host.c runs the same kernel on the mock back end.
 */
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#endif

#include "halo_stencil.h"

#define HALO_THREADS 256

/* Launched through shmemx_collective_launch, whose argument array points
 * to this one argument. */
__global__ void halo_kernel(halo_args_t a)
{
    halo_body(&a);
}

int main(int argc, char **argv)
{
    return halo_main(argc, argv, (const void *)halo_kernel, HALO_THREADS, 0);
}
