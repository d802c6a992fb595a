/*
 * Put-with-signal and the signal routines (core_api.h: shmi_put_signal;
 * shmem_signal_fetch and shmem_signal_wait_until; signal_add/set are
 * shmi_amo on a uint64_t).
 *
 * A signal is a uint64_t symmetric word updated atomically, visible only
 * after the data of its put. On the load/store path: copy, then a release
 * store (SET) or an atomic add (ADD). When data and signal take different
 * paths, the data is made remotely complete (fabric quiet) before the
 * signal is sent.
 */
#include "config.h"

#include <string.h>

#include "core/dataplane.h"
#include "core/device_mem.h"
#include "services/cpu_ops.h"

/* Values of put_signal_do's `runtime`: the runtime's own state, and the
 * same where the fabric may send it as one message (route.h, msg). */
enum { SHMI_SIGNAL_RUNTIME = 1, SHMI_SIGNAL_RUNTIME_MSG = 2 };

/* What a caller of put_signal must get right; fatal with the routine name. */
static void shmi_signal_check(const char *routine, const uint64_t *sig_addr,
                              int sig_op, int pe)
{
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        SHMI_FATAL("%s: sig_op %d is neither SHMEM_SIGNAL_SET nor "
                   "SHMEM_SIGNAL_ADD (PE %d)",
                   routine, sig_op, pe);
    if ((uintptr_t)sig_addr % sizeof(uint64_t))
        SHMI_FATAL("%s: signal address %p (PE %d) is not 8-byte aligned",
                   routine, (const void *)sig_addr, pe);
}

static void shmi_signal_send(const char *routine, shmem_ctx_t ctx, int pe,
                             int sseg, size_t soff, const shmi_route_t *sr,
                             uint64_t signal, int sig_op)
{
    shmi_amo_op_t op = sig_op == SHMEM_SIGNAL_ADD ? SHMI_AMO_ADD : SHMI_AMO_SET;

    if (sr->cpu_amo) {
        shmi_cpu_signal((uint64_t *)(sr->base + soff), signal,
                        op == SHMI_AMO_ADD);
        return;
    }
    shmi_dp_route_amo(routine, ctx, sr, pe, sseg, soff, op, SHMI_DT_UINT64,
                      &signal, NULL, NULL, 0);
}

/* Any case but "both mapped, CPU atomics": see the file comment. dr and sr
 * are the routes of the data and of the signal. */
static void shmi_put_signal_slow(const char *routine, shmem_ctx_t ctx,
                                 const void *src, size_t nbytes, int seg,
                                 size_t off, const shmi_route_t *dr, int sseg,
                                 size_t soff, const shmi_route_t *sr,
                                 uint64_t signal, int sig_op, int pe, int nbi,
                                 int runtime)
{
    /* The runtime's own signals need no quiet: one message where the
     * transport can (route.h, msg). */
    if (runtime == SHMI_SIGNAL_RUNTIME_MSG && dr->base == NULL &&
        sr->base == NULL && dr->ops == sr->ops && sr->msg) {
        shmi_dp_route_put_signal_msg(routine, ctx, sr, pe, seg, off, src,
                                     nbytes, sseg, soff, signal, sig_op);
        return;
    }
    if (dr->base == NULL && sr->base == NULL && dr->ops == sr->ops &&
        nbytes > 0) {
        shmi_dp_route_put_signal(routine, ctx, dr, pe, seg, off, src, nbytes,
                                 sseg, soff, signal, sig_op, nbi);
        return;
    }
    if (dr->base != NULL && nbytes > 0) {
        shmi_cpu_copy(dr->base + off, src, nbytes, SHMI_CPU_TO_PEER);
        __atomic_thread_fence(__ATOMIC_RELEASE);
    } else if (nbytes > 0) {
        shmi_dp_route_put(routine, ctx, dr, pe, seg, off, src, nbytes, 0);
        shmi_dp_route_quiet(routine, ctx, dr, pe);
    }
    shmi_signal_send(routine, ctx, pe, sseg, soff, sr, signal, sig_op);
}

/* runtime: SHMI_SIGNAL_RUNTIME(_MSG) for the runtime's own state
 * (shmi_put_signal_runtime), which lies outside the user area, 0 for the
 * program's; constant in every caller. */
static inline __attribute__((always_inline)) void
shmi_put_signal_do(const char *routine, shmem_ctx_t ctx, void *dest,
                   const void *src, size_t nbytes, uint64_t *sig_addr,
                   uint64_t signal, int sig_op, int pe, int nbi, int runtime)
{
    size_t off = 0, soff;
    int seg = SHMI_SEG_HEAP, sseg;
    const shmi_route_t *dr, *sr;

    pe = shmi_dp_target(routine, ctx, pe);
    if (SHMI_UNLIKELY(
            (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD) ||
            ((uintptr_t)sig_addr & 7)))
        shmi_signal_check(routine, sig_addr, sig_op, pe);
    sseg = runtime ? shmi_dp_seg_runtime(routine, sig_addr, sizeof(uint64_t),
                                         pe, &soff)
                   : shmi_dp_seg(routine, sig_addr, sizeof(uint64_t), pe, &soff);
    sr = shmi_route_of(pe, sseg);
    dr = sr;
    if (SHMI_LIKELY(nbytes > 0)) {
        shmi_dp_check_local(routine, src, nbytes, pe);
        seg = runtime ? shmi_dp_seg_runtime(routine, dest, nbytes, pe, &off)
                      : shmi_dp_seg(routine, dest, nbytes, pe, &off);
        dr = shmi_route_of(pe, seg);
        if (SHMI_LIKELY(dr->base != NULL && sr->cpu_amo &&
                        !shmi_device_touches(src, nbytes))) {
            shmi_cpu_put_signal(dr->base + off, src, nbytes,
                                (uint64_t *)(sr->base + soff), signal,
                                sig_op == SHMEM_SIGNAL_ADD);
            return;
        }
    }
    /* Device memory anywhere: the device transport orders data and signal
     * itself, whichever paths they take. */
    if (SHMI_UNLIKELY(seg == SHMI_SEG_DEVICE || sseg == SHMI_SEG_DEVICE ||
                      shmi_device_touches(src, nbytes))) {
        shmi_dp_route_put_signal(routine, ctx,
                                 shmi_dp_device_route(routine, pe, seg), pe,
                                 seg, off, src, nbytes, sseg, soff, signal,
                                 sig_op, nbi);
        return;
    }
    shmi_put_signal_slow(routine, ctx, src, nbytes, seg, off, dr, sseg, soff,
                         sr, signal, sig_op, pe, nbi, runtime);
}

void shmi_put_signal(const char *routine, shmem_ctx_t ctx, void *dest,
                     const void *src, size_t nbytes, uint64_t *sig_addr,
                     uint64_t signal, int sig_op, int pe, int nbi)
{
    shmi_put_signal_do(routine, ctx, dest, src, nbytes, sig_addr, signal,
                       sig_op, pe, nbi, 0);
}

void shmi_put_signal_runtime(const char *routine, shmem_ctx_t ctx, void *dest,
                             const void *src, size_t nbytes, uint64_t *sig_addr,
                             uint64_t signal, int sig_op, int pe, int by_msg)
{
    shmi_put_signal_do(routine, ctx, dest, src, nbytes, sig_addr, signal,
                       sig_op, pe, 0,
                       by_msg ? SHMI_SIGNAL_RUNTIME_MSG : SHMI_SIGNAL_RUNTIME);
}

void shmi_put_word_runtime(const char *routine, shmem_ctx_t ctx,
                           uint64_t *word, uint64_t value, int pe, int unacked)
{
    size_t off;
    int seg;
    const shmi_route_t *r;

    pe = shmi_dp_target(routine, ctx, pe);
    seg = shmi_dp_seg_runtime(routine, word, sizeof(uint64_t), pe, &off);
    r = shmi_route_of(pe, seg);
    /* Mapped: a store, whatever engine applies atomics there; no atomic
     * ever reaches this word. */
    if (r->base != NULL) {
        __atomic_store_n((uint64_t *)(void *)(r->base + off), value,
                         __ATOMIC_RELEASE);
        return;
    }
    if (unacked && r->word) {
        shmi_dp_route_put_word(routine, ctx, r, pe, seg, off, value);
        return;
    }
    if (unacked && r->msg) {
        shmi_dp_route_put_signal_msg(routine, ctx, r, pe, seg, off, NULL, 0,
                                     seg, off, value, SHMEM_SIGNAL_SET);
        return;
    }
    shmi_signal_send(routine, ctx, pe, seg, off, r, value, SHMEM_SIGNAL_SET);
}

void shmi_put_tagged_runtime(const char *routine, shmem_ctx_t ctx, void *dest,
                             const void *src, size_t nbytes, int pe,
                             int unacked)
{
    size_t head = nbytes - sizeof(uint64_t), off;
    uint64_t tag;
    int seg, wpe = shmi_dp_target(routine, ctx, pe);
    const shmi_route_t *r;

    seg = shmi_dp_seg_runtime(routine, dest, nbytes, wpe, &off);
    r = shmi_route_of(wpe, seg);
    memcpy(&tag, (const char *)src + head, sizeof(tag));
    if (r->base != NULL) {
        memcpy(r->base + off, src, head);
        __atomic_store_n((uint64_t *)(void *)(r->base + off + head), tag,
                         __ATOMIC_RELEASE);
        return;
    }
    if (unacked && r->tagged) {
        shmi_dp_route_put_tagged(routine, ctx, r, wpe, seg, off, src, nbytes);
        return;
    }
    shmi_put_signal_runtime(routine, ctx, dest, src, head,
                            (uint64_t *)(void *)((char *)dest + head), tag,
                            SHMEM_SIGNAL_SET, pe, unacked);
}

uint64_t shmi_signal_fetch(const uint64_t *sig_addr)
{
    size_t off;

    if (SHMI_UNLIKELY(shmi_dp_seg("shmem_signal_fetch", sig_addr,
                                  sizeof(uint64_t), shmi_my_pe_fast(),
                                  &off) == SHMI_SEG_DEVICE))
        return shmi_device_signal_fetch("shmem_signal_fetch", sig_addr);
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}

uint64_t shmi_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    size_t off;

    if (SHMI_UNLIKELY(shmi_dp_seg("shmem_signal_wait_until", sig_addr,
                                  sizeof(uint64_t), shmi_my_pe_fast(),
                                  &off) == SHMI_SEG_DEVICE))
        return shmi_device_signal_wait("shmem_signal_wait_until", sig_addr,
                                       cmp, cmp_value);
    return shmi_wait_u64("shmem_signal_wait_until", sig_addr, cmp, cmp_value);
}
