/*
 * Calls into the transport of a route (engine.h: shmi_eng_route_*,
 * shmi_eng_call_*): the context's endpoint of the route's slot, the
 * context lock where threads may share it, a retry while the transport is
 * out of resources, and the fatal message of any other error. Each
 * operation is described once (shmi_eng_op_t) and goes through the one
 * loop of shmi_eng_call, whatever its kind.
 */
#include "config.h"

#include "core/engine/engine.h"
#include "core/progress.h"

typedef enum shmi_eng_kind {
    SHMI_ENG_PUT,
    SHMI_ENG_GET,
    SHMI_ENG_AMO,
    SHMI_ENG_PUT_SIGNAL,
    SHMI_ENG_PUT_SIGNAL_MSG,
    SHMI_ENG_PUT_WORD,
    SHMI_ENG_PUT_TAGGED
} shmi_eng_kind_t;

/* One operation for a transport: the fields its kind uses. */
typedef struct shmi_eng_op {
    shmi_eng_kind_t kind;
    int pe, seg, nbi;
    size_t off, len;
    const void *src; /* put, put-with-signal, tagged: the data */
    void *dst;       /* get: where the data goes */
    shmi_amo_op_t op;
    shmi_dtype_t dt;
    const void *operand, *compare;
    void *fetched;
    int sig_seg;
    size_t sig_off;
    uint64_t value; /* the signal, or the word */
} shmi_eng_op_t;

/* o on r's transport, through the part that has it. The RMA and atomics
 * parts are the route's own copies (route.h), so a call costs the loads it
 * did when they were members of the transport's table; every transport
 * that carries operations has the RMA part (transports/registry.c refuses
 * one without), the others may be absent (transports/transport.h: an
 * absent part is an operation it cannot do): SHMI_ENOSYS, which the
 * caller's message reports naming the routine. */
static int shmi_eng_issue(const shmi_route_t *r, shmt_ep_t *ep,
                          const shmi_eng_op_t *o)
{
    switch (o->kind) {
    case SHMI_ENG_PUT:
        return r->rma->put(ep, o->pe, o->seg, o->off, o->src, o->len, o->nbi);
    case SHMI_ENG_GET:
        return r->rma->get(ep, o->pe, o->seg, o->off, o->dst, o->len, o->nbi);
    case SHMI_ENG_AMO:
        return r->atomic
                   ? r->atomic->amo(ep, o->pe, o->seg, o->off, o->op, o->dt,
                                    o->operand, o->compare, o->fetched, o->nbi)
                   : SHMI_ENOSYS;
    case SHMI_ENG_PUT_SIGNAL:
        return r->rma->put_signal(ep, o->pe, o->seg, o->off, o->src, o->len,
                                  o->sig_seg, o->sig_off, o->value, o->op,
                                  o->nbi);
    case SHMI_ENG_PUT_SIGNAL_MSG:
        return r->msg
                   ? r->ops->coll->put_signal_msg(ep, o->pe, o->seg, o->off,
                                                  o->src, o->len, o->sig_seg,
                                                  o->sig_off, o->value, o->op)
                   : SHMI_ENOSYS;
    case SHMI_ENG_PUT_WORD:
        return r->word
                   ? r->ops->coll->put_word(ep, o->pe, o->seg, o->off, o->value)
                   : SHMI_ENOSYS;
    case SHMI_ENG_PUT_TAGGED:
        return r->tagged ? r->ops->coll->put_tagged(ep, o->pe, o->seg, o->off,
                                                    o->src, o->len)
                         : SHMI_ENOSYS;
    }
    return SHMI_EINVAL;
}

/* The one loop: under the context lock, retried after driving progress
 * (which frees the transport's resources) while it answers SHMI_EAGAIN. */
static int shmi_eng_call(shmem_ctx_t ctx, const shmi_route_t *r,
                         const shmi_eng_op_t *o)
{
    int ret;

    if (r->lock)
        shmi_eng_lock(ctx);
    while ((ret = shmi_eng_issue(r, ctx->ep[r->ep], o)) == SHMI_EAGAIN)
        shmi_progress();
    if (r->lock)
        shmi_eng_unlock(ctx);
    return ret;
}

/* What the fatal forms (shmi_eng_route_*) add: the route must have a
 * transport, and the transport's answer must be 0. */
static void shmi_eng_need(const char *routine, const shmi_route_t *r, int pe,
                          int seg)
{
    if (SHMI_UNLIKELY(r->ops == NULL))
        shmi_eng_unreachable(routine, pe, seg);
}

static void shmi_eng_ok(const char *routine, const shmi_route_t *r, int pe,
                        int ret)
{
    if (ret)
        shmi_eng_transport_error(routine, r->ops, pe, ret);
}

/* shmi_eng_call, fatal naming routine on a route without a transport or
 * on any error. */
static void shmi_eng_run(const char *routine, shmem_ctx_t ctx,
                         const shmi_route_t *r, const shmi_eng_op_t *o)
{
    shmi_eng_need(routine, r, o->pe, o->seg);
    shmi_eng_ok(routine, r, o->pe, shmi_eng_call(ctx, r, o));
}

int shmi_eng_call_put(shmem_ctx_t ctx, const shmi_route_t *r, int pe, int seg,
                      size_t off, const void *src, size_t len, int nbi)
{
    shmi_eng_op_t o = {.kind = SHMI_ENG_PUT,
                       .pe = pe,
                       .seg = seg,
                       .off = off,
                       .src = src,
                       .len = len,
                       .nbi = nbi};

    return shmi_eng_call(ctx, r, &o);
}

int shmi_eng_call_get(shmem_ctx_t ctx, const shmi_route_t *r, int pe, int seg,
                      size_t off, void *dst, size_t len, int nbi)
{
    shmi_eng_op_t o = {.kind = SHMI_ENG_GET,
                       .pe = pe,
                       .seg = seg,
                       .off = off,
                       .dst = dst,
                       .len = len,
                       .nbi = nbi};

    return shmi_eng_call(ctx, r, &o);
}

int shmi_eng_call_amo(shmem_ctx_t ctx, const shmi_route_t *r, int pe, int seg,
                      size_t off, shmi_amo_op_t op, shmi_dtype_t dt,
                      const void *operand, const void *compare, void *fetched,
                      int nbi)
{
    shmi_eng_op_t o = {.kind = SHMI_ENG_AMO,
                       .pe = pe,
                       .seg = seg,
                       .off = off,
                       .op = op,
                       .dt = dt,
                       .operand = operand,
                       .compare = compare,
                       .fetched = fetched,
                       .nbi = nbi};

    return shmi_eng_call(ctx, r, &o);
}

int shmi_eng_call_put_signal(shmem_ctx_t ctx, const shmi_route_t *r, int pe,
                             int seg, size_t off, const void *src, size_t len,
                             int sig_seg, size_t sig_off, uint64_t signal,
                             shmi_amo_op_t sig_op, int nbi)
{
    shmi_eng_op_t o = {.kind = SHMI_ENG_PUT_SIGNAL,
                       .pe = pe,
                       .seg = seg,
                       .off = off,
                       .src = src,
                       .len = len,
                       .sig_seg = sig_seg,
                       .sig_off = sig_off,
                       .value = signal,
                       .op = sig_op,
                       .nbi = nbi};

    return shmi_eng_call(ctx, r, &o);
}

void shmi_eng_route_put(const char *routine, shmem_ctx_t ctx,
                        const shmi_route_t *r, int pe, int seg, size_t off,
                        const void *src, size_t len, int nbi)
{
    /* A peer of this node mapped at the first access: now, and then the
     * inline path again (route.h, map). */
    if (SHMI_UNLIKELY(r->map == SHMI_ROUTE_MAP_ON_USE) &&
        shmi_route_map(pe, seg) != NULL) {
        shmi_eng_put(routine, ctx, pe, seg, off, src, len, nbi);
        return;
    }
    shmi_eng_need(routine, r, pe, seg);
    shmi_eng_ok(routine, r, pe,
                shmi_eng_call_put(ctx, r, pe, seg, off, src, len, nbi));
}

void shmi_eng_route_get(const char *routine, shmem_ctx_t ctx,
                        const shmi_route_t *r, int pe, int seg, size_t off,
                        void *dst, size_t len, int nbi)
{
    /* A peer of this node mapped at the first access: now, and then the
     * inline path again (route.h, map). */
    if (SHMI_UNLIKELY(r->map == SHMI_ROUTE_MAP_ON_USE) &&
        shmi_route_map(pe, seg) != NULL) {
        shmi_eng_get(routine, ctx, pe, seg, off, dst, len, nbi);
        return;
    }
    shmi_eng_need(routine, r, pe, seg);
    shmi_eng_ok(routine, r, pe,
                shmi_eng_call_get(ctx, r, pe, seg, off, dst, len, nbi));
}

void shmi_eng_route_amo(const char *routine, shmem_ctx_t ctx,
                        const shmi_route_t *r, int pe, int seg, size_t off,
                        shmi_amo_op_t op, shmi_dtype_t dt, const void *operand,
                        const void *compare, void *fetched, int nbi)
{
    /* A peer of this node mapped at the first access: now, and then the
     * inline path again (route.h, map). */
    if (SHMI_UNLIKELY(r->map == SHMI_ROUTE_MAP_ON_USE) &&
        shmi_route_map(pe, seg) != NULL) {
        shmi_eng_amo(routine, ctx, pe, seg, off, op, dt, operand, compare,
                     fetched, nbi);
        return;
    }
    shmi_eng_need(routine, r, pe, seg);
    shmi_eng_ok(routine, r, pe,
                shmi_eng_call_amo(ctx, r, pe, seg, off, op, dt, operand,
                                  compare, fetched, nbi));
}

void shmi_eng_route_put_signal(const char *routine, shmem_ctx_t ctx,
                               const shmi_route_t *r, int pe, int seg,
                               size_t off, const void *src, size_t len,
                               int sig_seg, size_t sig_off, uint64_t signal,
                               shmi_amo_op_t sig_op, int nbi)
{
    shmi_eng_need(routine, r, pe, seg);
    shmi_eng_ok(routine, r, pe,
                shmi_eng_call_put_signal(ctx, r, pe, seg, off, src, len,
                                         sig_seg, sig_off, signal, sig_op,
                                         nbi));
}

void shmi_eng_route_put_signal_msg(const char *routine, shmem_ctx_t ctx,
                                   const shmi_route_t *r, int pe, int seg,
                                   size_t off, const void *src, size_t len,
                                   int sig_seg, size_t sig_off, uint64_t signal,
                                   shmi_amo_op_t sig_op)
{
    shmi_eng_op_t o = {.kind = SHMI_ENG_PUT_SIGNAL_MSG,
                       .pe = pe,
                       .seg = seg,
                       .off = off,
                       .src = src,
                       .len = len,
                       .sig_seg = sig_seg,
                       .sig_off = sig_off,
                       .value = signal,
                       .op = sig_op};

    shmi_eng_run(routine, ctx, r, &o);
}

void shmi_eng_route_put_word(const char *routine, shmem_ctx_t ctx,
                             const shmi_route_t *r, int pe, int seg, size_t off,
                             uint64_t value)
{
    shmi_eng_op_t o = {.kind = SHMI_ENG_PUT_WORD,
                       .pe = pe,
                       .seg = seg,
                       .off = off,
                       .value = value};

    shmi_eng_run(routine, ctx, r, &o);
}

void shmi_eng_route_put_tagged(const char *routine, shmem_ctx_t ctx,
                               const shmi_route_t *r, int pe, int seg,
                               size_t off, const void *src, size_t len)
{
    shmi_eng_op_t o = {.kind = SHMI_ENG_PUT_TAGGED,
                       .pe = pe,
                       .seg = seg,
                       .off = off,
                       .src = src,
                       .len = len};

    shmi_eng_run(routine, ctx, r, &o);
}

const shmi_route_t *shmi_eng_device_route(const char *routine, int pe, int seg)
{
    if (SHMI_UNLIKELY(shmi_route_device.ops == NULL))
        shmi_eng_unreachable(routine, pe, seg);
    return &shmi_route_device;
}

/* ---- the engine's messages ------------------------------------------------ */

_Noreturn void shmi_eng_unreachable(const char *routine, int pe, int seg)
{
    if (shmi_state.fabric == NULL)
        SHMI_FATAL("%s: the %s segment of PE %d is not mapped here and no "
                   "fabric transport is running (libfabric could not start: "
                   "see the earlier messages, SHMEM_OFI_PROVIDER and fi_info)",
                   routine, shmi_route_seg_name[seg], pe);
    SHMI_FATAL("%s: the %s segment of PE %d is not mapped here and the %s "
               "transport does not reach it (see the start-up warnings)",
               routine, shmi_route_seg_name[seg], pe, shmi_state.fabric->name);
}

_Noreturn void shmi_eng_transport_error(const char *routine,
                                        const shmt_ops_t *t, int pe, int ret)
{
    if (t && t->kind == SHMT_KIND_DEVICE)
        shmi_device_fail(routine, pe, ret);
    SHMI_FATAL("%s: the %s transport failed (target PE %d): %s", routine,
               t ? t->name : "fabric", pe, shmi_strerror(ret));
}

_Noreturn void shmi_eng_lost(const char *routine, const void *addr, size_t len)
{
    SHMI_FATAL("%s: internal error: the runtime's own address %p (%zu bytes) "
               "lies in no symmetric segment of PE %d",
               routine, addr, len, shmi_my_pe_fast());
}
