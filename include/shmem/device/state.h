/*
 * The device state of one translation unit, and the checks every device
 * routine makes with it (docs/gpu.md, "Device-initiated communication").
 *
 * Each source file that calls device routines holds its own copy of the
 * state (constant memory on a GPU; a static variable in host code), filled
 * by shmemd_init() on the host after shmem_init. A routine that finds it
 * unfilled stops the kernel with a message instead of reading garbage.
 */
#ifndef SHMEM_DEVICE_STATE_H
#define SHMEM_DEVICE_STATE_H

#include "shmem/device/abi.h"
#include "shmem/device/platform.h"
#include "shmem/device/routines.h"

#if SHMEMD_DEVICE_CODE
static __constant__ shmemd_state_t shmemd_state_c;
#else
static shmemd_state_t shmemd_state_c;
#endif

/* What shmemd_error_t.what says. */
enum {
    SHMEMD_BAD_PE = 1,   /* PE out of range */
    SHMEMD_BAD_ADDR = 2, /* address outside the device heap (or misaligned) */
    SHMEMD_BAD_VALUE = 3 /* another argument (a comparison, a signal op) */
};

SHMEMD_FN const shmemd_state_t *shmemd_i_state(void)
{
    if (shmemd_state_c.magic != SHMEMD_STATE_MAGIC)
        shmemd_p_uninitialised();
    return &shmemd_state_c;
}

/* Records the first error of this PE's kernels and stops the calling
 * thread; the proxy prints the record and ends the job. */
SHMEMD_FN void shmemd_i_fail(const shmemd_state_t *s, uint32_t rid,
                             uint32_t what, int pe, const void *addr,
                             uint64_t nbytes)
{
    shmemd_error_t *e = s->error;

    if (shmemd_p_cas32((uint32_t *)&e->set, 0, 2) == 0) {
        e->routine = rid;
        e->what = what;
        e->pe = pe;
        e->addr = (uint64_t)(uintptr_t)addr;
        e->nbytes = nbytes;
        shmemd_p_fence_system();
        shmemd_p_swap32((uint32_t *)&e->set, 1);
    }
    for (;;)
        shmemd_p_trap();
}

/* Offset of [sym, sym + nbytes) in the device heap; fails the call when
 * the range is not inside it. */
SHMEMD_FN uint64_t shmemd_i_offset(const shmemd_state_t *s, uint32_t rid,
                                   const void *sym, uint64_t nbytes, int pe)
{
    uintptr_t a = (uintptr_t)sym, b = (uintptr_t)s->heap_base;

    if (a < b || a - b > s->heap_size || nbytes > s->heap_size - (a - b))
        shmemd_i_fail(s, rid, SHMEMD_BAD_ADDR, pe, sym, nbytes);
    return a - b;
}

/*
 * Checks pe and the symmetric range [sym, sym + nbytes); returns where
 * device code reaches it on pe (loads and stores), or NULL when requests
 * for pe go through the proxy.
 */
SHMEMD_FN char *shmemd_i_target(const shmemd_state_t *s, uint32_t rid,
                                const void *sym, uint64_t nbytes, int pe)
{
    uint64_t off;
    char *base;

    if (pe < 0 || pe >= s->n_pes)
        shmemd_i_fail(s, rid, SHMEMD_BAD_PE, pe, sym, nbytes);
    off = shmemd_i_offset(s, rid, sym, nbytes, pe);
    base = s->peer_base[pe];
    return base ? base + off : (char *)0;
}

#endif /* SHMEM_DEVICE_STATE_H */
