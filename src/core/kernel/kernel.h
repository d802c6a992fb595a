/*
 * Device-initiated communication, the host side (docs/gpu.md,
 * "Device-initiated communication"): the state that kernels read
 * (kernel_state.c), the proxy thread that serves their requests for PEs
 * they cannot reach by loads and stores (kernel_proxy.c), and the launch
 * helpers (kernel_launch.c). The device side is include/shmemx_device.h.
 */
#ifndef SHMI_KERNEL_H
#define SHMI_KERNEL_H

#include <stdint.h>

#include "shmem/device/abi.h"

/* What the proxy serves: the ring and the words it shares with kernels
 * (host views; the state holds the device views). */
typedef struct shmi_kernel_ring {
    shmemd_req_t *slots;          /* nslots requests */
    uint64_t nslots;              /* a power of two */
    volatile uint64_t *completed; /* published by the proxy */
    shmemd_error_t *error;        /* written by a failing kernel */
    char *heap_base;              /* this PE's device heap */
    uint64_t heap_size;
} shmi_kernel_ring_t;

/* Starts the proxy thread on ring (once per process). 0 or SHMI_E*. */
int shmi_kernel_proxy_start(const shmi_kernel_ring_t *ring);

/* Stops the proxy thread, after serving what kernels posted already
 * (shmem_finalize, before its barrier), and frees the kernel state. */
void shmi_kernel_finalize(void);

/* Releases what kernel_state.c allocated (called by shmi_kernel_finalize
 * once the proxy has stopped). */
void shmi_kernel_state_free(void);

#endif /* SHMI_KERNEL_H */
