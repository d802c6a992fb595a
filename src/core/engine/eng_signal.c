/*
 * Signals in the engine (engine.h): put-with-signal where data and signal
 * are not both CPU-reachable, the runtime's single-writer words and its
 * tagged buffers.
 *
 * A signal is a uint64_t symmetric word updated atomically, visible only
 * after the data of its put. On the load/store path: copy, then a release
 * store (SET) or an atomic add (ADD). When data and signal take different
 * paths, the data is made remotely complete (the data route's quiet)
 * before the signal is sent. Device memory anywhere goes to the device
 * transport, which orders data and signal itself.
 */
#include "config.h"

#include <string.h>

#include "core/engine/engine.h"

/* The signal alone, by whatever engine applies atomics to its word. */
static void shmi_eng_signal_send(const char *routine, shmem_ctx_t ctx, int pe,
                                 int sseg, size_t soff, const shmi_route_t *sr,
                                 uint64_t signal, shmi_amo_op_t op)
{
    if (sr->cpu_amo) {
        shmi_cpu_signal((uint64_t *)(void *)(sr->base + soff), signal,
                        op == SHMI_AMO_ADD);
        return;
    }
    shmi_eng_route_amo(routine, ctx, sr, pe, sseg, soff, op, SHMI_DT_UINT64,
                       &signal, NULL, NULL, 0);
}

void shmi_eng_put_signal_slow(const char *routine, shmem_ctx_t ctx, int pe,
                              int seg, size_t off, const void *src,
                              size_t nbytes, int sseg, size_t soff,
                              uint64_t signal, shmi_amo_op_t sig_op, int nbi,
                              shmi_eng_signal_how_t how)
{
    const shmi_route_t *dr = shmi_route_ready(pe, seg),
                       *sr = shmi_route_ready(pe, sseg);

    if (SHMI_UNLIKELY(seg == SHMI_SEG_DEVICE || sseg == SHMI_SEG_DEVICE ||
                      shmi_device_touches(src, nbytes))) {
        shmi_eng_route_put_signal(
            routine, ctx, shmi_eng_device_route(routine, pe, seg), pe, seg, off,
            src, nbytes, sseg, soff, signal, sig_op, nbi);
        return;
    }
    /* The runtime's own signals need no quiet: one message where the
     * transport can (route.h, msg). */
    if (how == SHMI_ENG_SIGNAL_ONE_MSG && dr->base == NULL &&
        sr->base == NULL && dr->ops == sr->ops && sr->msg) {
        shmi_eng_route_put_signal_msg(routine, ctx, sr, pe, seg, off, src,
                                      nbytes, sseg, soff, signal, sig_op);
        return;
    }
    if (dr->base == NULL && sr->base == NULL && dr->ops == sr->ops &&
        nbytes > 0) {
        shmi_eng_route_put_signal(routine, ctx, dr, pe, seg, off, src, nbytes,
                                  sseg, soff, signal, sig_op, nbi);
        return;
    }
    if (dr->base != NULL && nbytes > 0) {
        shmi_cpu_copy(dr->base + off, src, nbytes, SHMI_CPU_TO_PEER);
        __atomic_thread_fence(__ATOMIC_RELEASE);
    } else if (nbytes > 0) {
        shmi_eng_route_put(routine, ctx, dr, pe, seg, off, src, nbytes, 0);
        shmi_eng_route_quiet(routine, ctx, dr, pe);
    }
    shmi_eng_signal_send(routine, ctx, pe, sseg, soff, sr, signal, sig_op);
}

void shmi_eng_put_word(const char *routine, shmem_ctx_t ctx, int pe, int seg,
                       size_t off, uint64_t value, int unacked)
{
    const shmi_route_t *r = shmi_route_ready(pe, seg);

    /* Mapped: a store, whatever engine applies atomics there; no atomic
     * ever reaches this word. */
    if (r->base != NULL) {
        __atomic_store_n((uint64_t *)(void *)(r->base + off), value,
                         __ATOMIC_RELEASE);
        return;
    }
    if (unacked && r->word) {
        shmi_eng_route_put_word(routine, ctx, r, pe, seg, off, value);
        return;
    }
    if (unacked && r->msg) {
        shmi_eng_route_put_signal_msg(routine, ctx, r, pe, seg, off, NULL, 0,
                                      seg, off, value, SHMI_AMO_SET);
        return;
    }
    shmi_eng_signal_send(routine, ctx, pe, seg, off, r, value, SHMI_AMO_SET);
}

void shmi_eng_put_tagged(const char *routine, shmem_ctx_t ctx, int pe, int seg,
                         size_t off, const void *src, size_t nbytes,
                         int unacked)
{
    size_t head = nbytes - sizeof(uint64_t);
    const shmi_route_t *r = shmi_route_ready(pe, seg);
    uint64_t tag;

    memcpy(&tag, (const char *)src + head, sizeof(tag));
    if (r->base != NULL) {
        memcpy(r->base + off, src, head);
        __atomic_store_n((uint64_t *)(void *)(r->base + off + head), tag,
                         __ATOMIC_RELEASE);
        return;
    }
    if (unacked && r->tagged) {
        shmi_eng_route_put_tagged(routine, ctx, r, pe, seg, off, src, nbytes);
        return;
    }
    shmi_eng_put_signal(routine, ctx, pe, seg, off, src, head, seg, off + head,
                        tag, SHMI_AMO_SET, 0,
                        unacked ? SHMI_ENG_SIGNAL_ONE_MSG
                                : SHMI_ENG_SIGNAL_RUNTIME);
}
