/*
 * Device atomics on 32- and 64-bit words of the device heap (docs/gpu.md,
 * "Device-initiated communication"): system-scope atomics of the calling
 * thread on a mapped peer (IPC) or this PE, otherwise one request to the
 * proxy, which applies the atomic through the host path (non-fetching
 * atomics return once the request is handed over; quiet completes them).
 *
 * One engine per word: a word updated by kernels of this node through
 * the mapping and by requests from other nodes at once is atomic only
 * where the host path's atomics are the device's own (docs/gpu.md).
 */
#ifndef SHMEM_DEVICE_AMO_H
#define SHMEM_DEVICE_AMO_H

#include "shmem/device/proxy.h"

SHMEMD_FN uint64_t shmemd_i_amo_direct32(uint32_t op, uint32_t *w, uint32_t v,
                                         uint32_t c)
{
    switch (op) {
    case SHMEMD_AMO_FETCH: return shmemd_p_add32(w, 0);
    case SHMEMD_AMO_SET:
    case SHMEMD_AMO_SWAP: return shmemd_p_swap32(w, v);
    case SHMEMD_AMO_CSWAP: return shmemd_p_cas32(w, c, v);
    default: /* FETCH_ADD, ADD */ return shmemd_p_add32(w, v);
    }
}

SHMEMD_FN uint64_t shmemd_i_amo_direct64(uint32_t op, uint64_t *w, uint64_t v,
                                         uint64_t c)
{
    switch (op) {
    case SHMEMD_AMO_FETCH: return shmemd_p_add64(w, 0);
    case SHMEMD_AMO_SET:
    case SHMEMD_AMO_SWAP: return shmemd_p_swap64(w, v);
    case SHMEMD_AMO_CSWAP: return shmemd_p_cas64(w, c, v);
    default: return shmemd_p_add64(w, v);
    }
}

/*
 * One atomic of width (4 or 8) bytes on dest of pe; value and compare
 * point to one element (NULL where the op takes none), fetched receives
 * the old value (NULL for the non-fetching ops).
 */
SHMEMD_FN void shmemd_i_amo(uint32_t rid, shmemd_amo_t op, void *dest,
                            const void *value, const void *compare,
                            void *fetched, unsigned width, int pe)
{
    const shmemd_state_t *s = shmemd_i_state();
    char *t = shmemd_i_target(s, rid, dest, width, pe);
    uint64_t v = 0, c = 0, old, ticket;
    shmemd_req_t *r;

    if ((uintptr_t)dest & (width - 1))
        shmemd_i_fail(s, rid, SHMEMD_BAD_ADDR, pe, dest, width);
    if (value)
        memcpy(&v, value, width);
    if (compare)
        memcpy(&c, compare, width);
    if (t) {
        old = width == 4 ? shmemd_i_amo_direct32(op, (uint32_t *)t, (uint32_t)v,
                                                 (uint32_t)c)
                         : shmemd_i_amo_direct64(op, (uint64_t *)t, v, c);
    } else {
        r = shmemd_i_slot(s, rid, SHMEMD_OP_AMO, pe, &ticket);
        r->dest = (uint64_t)(uintptr_t)dest;
        r->value = v;
        r->compare = c;
        r->amo = op;
        r->width = width;
        r->nbytes = fetched != 0; /* 1: the caller waits for the result */
        shmemd_i_post(r, ticket);
        old = fetched ? shmemd_i_await(s, r, ticket) : 0;
    }
    if (fetched)
        memcpy(fetched, &old, width);
}

#endif /* SHMEM_DEVICE_AMO_H */
