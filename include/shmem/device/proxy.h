/*
 * The kernel's side of the proxy ring (docs/gpu.md, "Device-initiated
 * communication"; the layout and protocol are shmemd_req_t's, abi.h).
 * Requests for PEs whose device heap device code cannot reach (another
 * node, or a fabric path chosen by SHMEM_LOCAL=0 or SHMEM_KERNEL_PATH)
 * go to this PE's proxy thread, which issues them through the host path.
 *
 * A full ring blocks the caller until the proxy frees its slot: no
 * request is ever dropped.
 */
#ifndef SHMEM_DEVICE_PROXY_H
#define SHMEM_DEVICE_PROXY_H

#include "shmem/device/state.h"

/* Takes a ticket and waits for its slot (the ring may be full). */
SHMEMD_FN shmemd_req_t *shmemd_i_slot(const shmemd_state_t *s, uint32_t rid,
                                      uint32_t op, int pe, uint64_t *ticket)
{
    uint64_t t = shmemd_p_ticket(s->ring_tail);
    shmemd_req_t *r = &s->ring[t & (s->ring_slots - 1)];
    unsigned polls = 0;

    while (shmemd_p_load64(&r->turn) != t)
        shmemd_p_relax(&polls);
    r->op = op;
    r->pe = pe;
    r->routine = rid;
    *ticket = t;
    return r;
}

/* Hands the filled slot to the proxy. */
SHMEMD_FN void shmemd_i_post(shmemd_req_t *r, uint64_t t)
{
    shmemd_p_fence_system();
    shmemd_p_store64(&r->ready, t + 1);
}

/* Waits until the proxy has served ticket t, frees the slot and returns
 * the request's result. */
SHMEMD_FN uint64_t shmemd_i_await(const shmemd_state_t *s, shmemd_req_t *r,
                                  uint64_t t)
{
    uint64_t v;
    unsigned polls = 0;

    while (shmemd_p_load64(&r->done) != t + 1)
        shmemd_p_relax(&polls);
    shmemd_p_fence_system(); /* what the proxy wrote before done */
    v = r->result;
    shmemd_p_store64(&r->turn, t + s->ring_slots);
    return v;
}

/* A transfer through the proxy; returns once the proxy has issued it and
 * the local buffer may be reused (PUT, PUT_SIGNAL) or holds the data
 * (GET). */
SHMEMD_FN void shmemd_i_proxy_rma(const shmemd_state_t *s, uint32_t rid,
                                  uint32_t op, void *dest, const void *source,
                                  uint64_t nbytes, int pe)
{
    uint64_t t;
    shmemd_req_t *r = shmemd_i_slot(s, rid, op, pe, &t);

    r->dest = (uint64_t)(uintptr_t)dest;
    r->source = (uint64_t)(uintptr_t)source;
    r->nbytes = nbytes;
    shmemd_i_post(r, t);
    shmemd_i_await(s, r, t);
}

/* Waits until every request handed to the proxy so far is complete at its
 * target. */
SHMEMD_FN void shmemd_i_proxy_quiet(const shmemd_state_t *s)
{
    uint64_t t = shmemd_p_add64(s->ring_tail, 0);
    unsigned polls = 0;

    while (shmemd_p_load64(s->completed) < t)
        shmemd_p_relax(&polls);
    shmemd_p_fence_system();
}

#endif /* SHMEM_DEVICE_PROXY_H */
