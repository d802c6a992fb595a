/*
 * halo_stencil.cu's twin for the mock back end: the same kernel
 * (halo_stencil.h) compiled as C, run by host threads standing in for
 * the GPU's.
 *
 *   SHMEM_DEVICE_BACKEND=mock oshrun -n 2 examples/gpu/halo_stencil_host
 */
#include "halo_stencil.h"

/* A block of the mock's kernels is one host thread per GPU thread: two
 * warps keep the cooperative routines honest without crowding 2 cores. */
#define HALO_THREADS 64

/* The mock's kernel: a host function given the launch's argument array. */
static void halo_kernel(void **args)
{
    halo_body((const halo_args_t *)args[0]);
}

int main(int argc, char **argv)
{
    return halo_main(argc, argv, (const void *)halo_kernel, HALO_THREADS, 1);
}
