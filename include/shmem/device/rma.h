/*
 * Device RMA (docs/gpu.md, "Device-initiated communication"): putmem,
 * getmem, p and g, per thread and cooperative per block and per warp, and
 * shmemd_ptr. To a PE whose device heap is mapped here (IPC) they are
 * loads and stores of the calling threads; otherwise one request to the
 * proxy (one per block or warp for the cooperative forms).
 *
 * Through the proxy, the local buffer must be memory the host can reach
 * (the device heap, other device global memory, host memory mapped into
 * the device): never shared or local (stack) memory of the kernel.
 */
#ifndef SHMEM_DEVICE_RMA_H
#define SHMEM_DEVICE_RMA_H

#include "shmem/device/proxy.h"

/* Bytes [first, first + ...) of a copy of n bytes that thread `rank` of
 * `count` moves: 8-byte words dealt round robin when both ends allow it,
 * else bytes. count = 1 for one thread. */
SHMEMD_FN void shmemd_i_copy_part(char *dst, const char *src, uint64_t n,
                                  unsigned rank, unsigned count)
{
    if ((((uintptr_t)dst | (uintptr_t)src) & 7) == 0) {
        uint64_t words = n / 8;

        for (uint64_t i = rank; i < words; i += count)
            ((uint64_t *)dst)[i] = ((const uint64_t *)src)[i];
        for (uint64_t i = words * 8 + rank; i < n; i += count)
            dst[i] = src[i];
        return;
    }
    for (uint64_t i = rank; i < n; i += count)
        dst[i] = src[i];
}

SHMEMD_FN void shmemd_i_put(uint32_t rid, void *dest, const void *source,
                            size_t nbytes, int pe)
{
    const shmemd_state_t *s = shmemd_i_state();
    char *t = shmemd_i_target(s, rid, dest, nbytes, pe);

    if (t)
        shmemd_i_copy_part(t, (const char *)source, nbytes, 0, 1);
    else
        shmemd_i_proxy_rma(s, rid, SHMEMD_OP_PUT, dest, source, nbytes, pe);
}

SHMEMD_FN void shmemd_i_get(uint32_t rid, void *dest, const void *source,
                            size_t nbytes, int pe)
{
    const shmemd_state_t *s = shmemd_i_state();
    char *t = shmemd_i_target(s, rid, source, nbytes, pe);

    if (t)
        shmemd_i_copy_part((char *)dest, t, nbytes, 0, 1);
    else
        shmemd_i_proxy_rma(s, rid, SHMEMD_OP_GET, dest, source, nbytes, pe);
}

/*
 * The cooperative forms: every thread of the group calls with the same
 * arguments; rank and count place the caller in the group, sync is the
 * group's barrier. The data is complete (put: source reusable; get: dest
 * filled) for every thread of the group on return.
 */
SHMEMD_FN void shmemd_i_rma_group(uint32_t rid, int is_put, void *dest,
                                  const void *source, size_t nbytes, int pe,
                                  unsigned rank, unsigned count, int warp)
{
    const shmemd_state_t *s = shmemd_i_state();
    const void *sym = is_put ? (const void *)dest : source;
    char *t = shmemd_i_target(s, rid, sym, nbytes, pe);

    if (warp)
        shmemd_p_warp_sync();
    else
        shmemd_p_block_sync();
    if (t && is_put)
        shmemd_i_copy_part(t, (const char *)source, nbytes, rank, count);
    else if (t)
        shmemd_i_copy_part((char *)dest, t, nbytes, rank, count);
    else if (rank == 0)
        shmemd_i_proxy_rma(s, rid, is_put ? SHMEMD_OP_PUT : SHMEMD_OP_GET, dest,
                           source, nbytes, pe);
    if (warp)
        shmemd_p_warp_sync();
    else
        shmemd_p_block_sync();
}

/* The caller's place in its warp: lane and the warp's threads (the last
 * warp of a block may be partial). */
SHMEMD_FN void shmemd_i_warp_place(unsigned *lane, unsigned *count)
{
    unsigned rank = shmemd_p_thread_rank(), ws = shmemd_p_warp_size();
    unsigned first = rank - rank % ws, left = shmemd_p_block_size() - first;

    *lane = rank % ws;
    *count = left < ws ? left : ws;
}

SHMEMD_FN void shmemd_i_put_block(uint32_t rid, void *dest, const void *source,
                                  size_t nbytes, int pe)
{
    shmemd_i_rma_group(rid, 1, dest, source, nbytes, pe, shmemd_p_thread_rank(),
                       shmemd_p_block_size(), 0);
}

SHMEMD_FN void shmemd_i_get_block(uint32_t rid, void *dest, const void *source,
                                  size_t nbytes, int pe)
{
    shmemd_i_rma_group(rid, 0, dest, source, nbytes, pe, shmemd_p_thread_rank(),
                       shmemd_p_block_size(), 0);
}

SHMEMD_FN void shmemd_i_put_warp(uint32_t rid, void *dest, const void *source,
                                 size_t nbytes, int pe)
{
    unsigned lane, count;

    shmemd_i_warp_place(&lane, &count);
    shmemd_i_rma_group(rid, 1, dest, source, nbytes, pe, lane, count, 1);
}

SHMEMD_FN void shmemd_i_get_warp(uint32_t rid, void *dest, const void *source,
                                 size_t nbytes, int pe)
{
    unsigned lane, count;

    shmemd_i_warp_place(&lane, &count);
    shmemd_i_rma_group(rid, 0, dest, source, nbytes, pe, lane, count, 1);
}

/* p and g: the value travels in the request, so it may live anywhere. */
SHMEMD_FN void shmemd_i_p(uint32_t rid, void *dest, const void *value,
                          size_t size, int pe)
{
    const shmemd_state_t *s = shmemd_i_state();
    char *t = shmemd_i_target(s, rid, dest, size, pe);
    uint64_t t_ticket, bits = 0;
    shmemd_req_t *r;

    if (t) {
        shmemd_i_copy_part(t, (const char *)value, size, 0, 1);
        return;
    }
    memcpy(&bits, value, size);
    r = shmemd_i_slot(s, rid, SHMEMD_OP_P, pe, &t_ticket);
    r->dest = (uint64_t)(uintptr_t)dest;
    r->nbytes = size;
    r->value = bits;
    shmemd_i_post(r, t_ticket);
}

SHMEMD_FN void shmemd_i_g(uint32_t rid, void *value, const void *source,
                          size_t size, int pe)
{
    const shmemd_state_t *s = shmemd_i_state();
    char *t = shmemd_i_target(s, rid, source, size, pe);
    uint64_t ticket, bits;
    shmemd_req_t *r;

    if (t) {
        shmemd_i_copy_part((char *)value, t, size, 0, 1);
        return;
    }
    r = shmemd_i_slot(s, rid, SHMEMD_OP_G, pe, &ticket);
    r->source = (uint64_t)(uintptr_t)source;
    r->nbytes = size;
    shmemd_i_post(r, ticket);
    bits = shmemd_i_await(s, r, ticket);
    memcpy(value, &bits, size);
}

SHMEMD_FN void shmemd_putmem(void *dest, const void *source, size_t nbytes,
                             int pe)
{
    shmemd_i_put(SHMEMD_R_shmemd_putmem, dest, source, nbytes, pe);
}

SHMEMD_FN void shmemd_getmem(void *dest, const void *source, size_t nbytes,
                             int pe)
{
    shmemd_i_get(SHMEMD_R_shmemd_getmem, dest, source, nbytes, pe);
}

SHMEMD_FN void shmemd_putmem_block(void *dest, const void *source,
                                   size_t nbytes, int pe)
{
    shmemd_i_put_block(SHMEMD_R_shmemd_putmem_block, dest, source, nbytes, pe);
}

SHMEMD_FN void shmemd_getmem_block(void *dest, const void *source,
                                   size_t nbytes, int pe)
{
    shmemd_i_get_block(SHMEMD_R_shmemd_getmem_block, dest, source, nbytes, pe);
}

SHMEMD_FN void shmemd_putmem_warp(void *dest, const void *source, size_t nbytes,
                                  int pe)
{
    shmemd_i_put_warp(SHMEMD_R_shmemd_putmem_warp, dest, source, nbytes, pe);
}

SHMEMD_FN void shmemd_getmem_warp(void *dest, const void *source, size_t nbytes,
                                  int pe)
{
    shmemd_i_get_warp(SHMEMD_R_shmemd_getmem_warp, dest, source, nbytes, pe);
}

/* Where device code reaches dest on pe (the IPC mapping; dest itself on
 * this PE), or NULL when pe is reached through the proxy. */
SHMEMD_FN void *shmemd_ptr(const void *dest, int pe)
{
    const shmemd_state_t *s = shmemd_i_state();

    return shmemd_i_target(s, SHMEMD_R_shmemd_ptr, dest, 1, pe);
}

#endif /* SHMEM_DEVICE_RMA_H */
