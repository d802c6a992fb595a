/*
 * Weft's device API: OpenSHMEM communication from inside CUDA and HIP
 * kernels (docs/gpu.md, "Device-initiated communication").
 *
 * Include it in the .cu (or HIP) sources whose kernels communicate. The
 * routines are named shmemd_ (device), so that they never collide with the
 * host routines of shmem.h; the cooperative forms end in _block and _warp.
 * The same header compiles as plain C or C++ host code, where host threads
 * launched by the mock back end stand in for GPU threads (Weft's tests).
 *
 * Set-up on the host, in each source file that holds kernels:
 *
 *     shmem_init();                     // with a device heap
 *     if (shmemd_init() != 0) ...       // this file's copy of the state
 *     long *x = shmemx_malloc_device(n * sizeof(long));
 *     kernel<<<grid, block>>>(x, ...);  // or shmemx_collective_launch
 *
 * A kernel that waits for other PEs' kernels (barrier_all, signal waits)
 * needs every PE's grid running at once: launch it with
 * shmemx_collective_launch (every block resident), and have one thread per
 * PE (or one block, with the _block forms) call barrier_all and sync_all.
 */
#ifndef SHMEMX_DEVICE_H
#define SHMEMX_DEVICE_H

#include <shmem.h>
#include <shmemx.h>

#include "shmem/device/abi.h"
#include "shmem/device/platform.h"
#include "shmem/device/routines.h"
#include "shmem/device/state.h"
#include "shmem/device/proxy.h"
#include "shmem/device/rma.h"
#include "shmem/device/amo.h"
#include "shmem/device/sync.h"
#include "shmem/device/typed.h"

/*
 * Fills this source file's copy of the device state from libweft (after
 * shmem_init; again after nothing else). 0, or nonzero with a message from
 * shmemx_kernel_state (no device heap) or the runtime's copy failing.
 */
static inline int shmemd_init(void)
{
    shmemd_state_t s;
    int ret = shmemx_kernel_state(&s, sizeof(s));

    if (ret != 0)
        return ret;
#if defined(__HIPCC__)
    return hipMemcpyToSymbol(HIP_SYMBOL(shmemd_state_c), &s, sizeof(s)) ==
                   hipSuccess
               ? 0
               : -1;
#elif defined(__CUDACC__)
    return cudaMemcpyToSymbol(shmemd_state_c, &s, sizeof(s)) == cudaSuccess
               ? 0
               : -1;
#else
    memcpy(&shmemd_state_c, &s, sizeof(s));
    return 0;
#endif
}

/* This PE and the number of PEs, as device code sees them. */
SHMEMD_FN int shmemd_my_pe(void)
{
    return shmemd_i_state()->my_pe;
}

SHMEMD_FN int shmemd_n_pes(void)
{
    return shmemd_i_state()->n_pes;
}

#endif /* SHMEMX_DEVICE_H */
