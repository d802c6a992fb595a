/*
 * Device signals, ordering and barriers (docs/gpu.md, "Device-initiated
 * communication").
 *
 * fence and quiet: a system-scope fence orders and completes this
 * thread's stores and atomics on mapped peers; where some PE goes through
 * the proxy, fence also queues a fence there, and quiet waits until every
 * request handed to the proxy so far is complete at its target.
 *
 * barrier_all and sync_all are called by ONE thread of each PE (the
 * _block forms by every thread of one block of each PE): a dissemination
 * barrier over words the device heap reserves at its end (abi.h,
 * shmemd_state_t.sync, past the heap's user part, so that no routine of
 * the program reaches them), each round an atomic set of the partner's
 * flag to this barrier's number.
 */
#ifndef SHMEM_DEVICE_SYNC_H
#define SHMEM_DEVICE_SYNC_H

#include "shmem/device/amo.h"
#include "shmem/device/rma.h"

SHMEMD_FN int shmemd_i_compare(uint32_t rid, int cmp, uint64_t a, uint64_t b)
{
    switch (cmp) {
    case SHMEM_CMP_EQ: return a == b;
    case SHMEM_CMP_NE: return a != b;
    case SHMEM_CMP_GT: return a > b;
    case SHMEM_CMP_GE: return a >= b;
    case SHMEM_CMP_LT: return a < b;
    case SHMEM_CMP_LE: return a <= b;
    }
    shmemd_i_fail(shmemd_i_state(), rid, SHMEMD_BAD_VALUE, cmp, 0, 0);
    return 0;
}

SHMEMD_FN void shmemd_putmem_signal(void *dest, const void *source,
                                    size_t nbytes, uint64_t *sig_addr,
                                    uint64_t signal, int sig_op, int pe)
{
    const uint32_t rid = SHMEMD_R_shmemd_putmem_signal;
    const shmemd_state_t *s = shmemd_i_state();
    char *t = shmemd_i_target(s, rid, dest, nbytes, pe);
    char *ts = shmemd_i_target(s, rid, sig_addr, 8, pe);
    uint64_t ticket;
    shmemd_req_t *r;

    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        shmemd_i_fail(s, rid, SHMEMD_BAD_VALUE, pe, sig_addr, 8);
    if ((uintptr_t)sig_addr & 7)
        shmemd_i_fail(s, rid, SHMEMD_BAD_ADDR, pe, sig_addr, 8);
    if (t) {
        shmemd_i_copy_part(t, (const char *)source, nbytes, 0, 1);
        shmemd_p_fence_system(); /* the data before the signal */
        if (sig_op == SHMEM_SIGNAL_SET)
            shmemd_p_swap64((uint64_t *)ts, signal);
        else
            shmemd_p_add64((uint64_t *)ts, signal);
        return;
    }
    r = shmemd_i_slot(s, rid, SHMEMD_OP_PUT_SIGNAL, pe, &ticket);
    r->dest = (uint64_t)(uintptr_t)dest;
    r->source = (uint64_t)(uintptr_t)source;
    r->nbytes = nbytes;
    r->sig_addr = (uint64_t)(uintptr_t)sig_addr;
    r->value = signal;
    r->amo = (uint32_t)sig_op;
    shmemd_i_post(r, ticket);
    shmemd_i_await(s, r, ticket);
}

/* The value of a signal word of this PE's device heap. */
SHMEMD_FN uint64_t shmemd_signal_fetch(const uint64_t *sig_addr)
{
    const shmemd_state_t *s = shmemd_i_state();
    const uint32_t rid = SHMEMD_R_shmemd_signal_fetch;

    shmemd_i_offset(s, rid, sig_addr, 8, s->my_pe);
    return shmemd_p_load64(sig_addr);
}

/* Waits until the signal word of this PE compares true with value;
 * returns the word's value then. */
SHMEMD_FN uint64_t shmemd_signal_wait_until(uint64_t *sig_addr, int cmp,
                                            uint64_t value)
{
    const shmemd_state_t *s = shmemd_i_state();
    const uint32_t rid = SHMEMD_R_shmemd_signal_wait_until;
    uint64_t v;
    unsigned polls = 0;

    shmemd_i_offset(s, rid, sig_addr, 8, s->my_pe);
    while (!shmemd_i_compare(rid, cmp, v = shmemd_p_load64(sig_addr), value))
        shmemd_p_relax(&polls);
    shmemd_p_fence_system(); /* data read after the wait is not older */
    return v;
}

SHMEMD_FN void shmemd_fence(void)
{
    const shmemd_state_t *s = shmemd_i_state();
    uint64_t ticket;
    shmemd_req_t *r;

    shmemd_p_fence_system();
    if (s->n_proxied > 0) {
        r = shmemd_i_slot(s, SHMEMD_R_shmemd_fence, SHMEMD_OP_FENCE, s->my_pe,
                          &ticket);
        shmemd_i_post(r, ticket);
    }
}

SHMEMD_FN void shmemd_quiet(void)
{
    const shmemd_state_t *s = shmemd_i_state();

    shmemd_p_fence_system();
    if (s->n_proxied > 0)
        shmemd_i_proxy_quiet(s);
}

/* Sets flag word w (one of s->sync's, past the heap's user part, where
 * the routines' range checks refuse it) of pe to epoch: a store on the
 * peer's mapping, or a request the proxy recognises as the barrier's. */
SHMEMD_FN void shmemd_i_sync_set(const shmemd_state_t *s, uint64_t *w,
                                 uint64_t epoch, int pe)
{
    char *base = s->peer_base[pe];
    uint64_t ticket;
    shmemd_req_t *r;

    if (base) {
        shmemd_p_swap64((uint64_t *)(base + ((char *)w - s->heap_base)), epoch);
        return;
    }
    r = shmemd_i_slot(s, SHMEMD_R_shmemd_sync_all, SHMEMD_OP_AMO, pe, &ticket);
    r->dest = (uint64_t)(uintptr_t)w;
    r->value = epoch;
    r->compare = 0;
    r->amo = SHMEMD_AMO_SET;
    r->width = 8;
    r->nbytes = 0;
    shmemd_i_post(r, ticket);
}

SHMEMD_FN void shmemd_sync_all(void)
{
    const shmemd_state_t *s = shmemd_i_state();
    uint64_t *w = s->sync, epoch = w[0] + 1;
    int me = s->my_pe, n = s->n_pes, r = 0;

    w[0] = epoch; /* only this PE's one calling thread touches it */
    for (int d = 1; d < n; d <<= 1, r++) {
        unsigned polls = 0;

        shmemd_i_sync_set(s, &w[1 + r], epoch, (me + d) % n);
        while (shmemd_p_load64(&w[1 + r]) < epoch)
            shmemd_p_relax(&polls);
    }
    shmemd_p_fence_system();
}

SHMEMD_FN void shmemd_barrier_all(void)
{
    shmemd_quiet();
    shmemd_sync_all();
}

SHMEMD_FN void shmemd_sync_all_block(void)
{
    shmemd_p_block_sync();
    if (shmemd_p_thread_rank() == 0)
        shmemd_sync_all();
    shmemd_p_block_sync();
}

SHMEMD_FN void shmemd_barrier_all_block(void)
{
    shmemd_p_block_sync();
    if (shmemd_p_thread_rank() == 0)
        shmemd_barrier_all();
    shmemd_p_block_sync();
}

#endif /* SHMEM_DEVICE_SYNC_H */
