/*
 * The device-API tests as CUDA kernels (docs/gpu.md, "Device-initiated
 * communication"): kernel_ops.c with the bodies of kernel_bodies.h
 * compiled for the GPU and launched with shmemx_collective_launch, for a
 * real GPU (SHMEM_DEVICE_BACKEND=cuda, 2 PEs sharing it through IPC).
 */
#include "tests/gpu/kernel_ops.c"
