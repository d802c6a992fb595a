/*
 * Ordering and completion in the engine (engine.h): fence and quiet of the
 * transports a context has endpoints on. The entry points (order.c) check
 * the context and the library's lifetime first.
 *
 * Load/store path: every put is complete on return, so fence is a release
 * fence (keeps earlier stores before later ones) and quiet a full fence
 * (earlier stores are visible before any later load, as quiet's "visible
 * to all PEs" needs on x86, whose stores may wait in a store buffer).
 * A transport without the ordering part (transports/transport.h)
 * completes every operation on return: nothing to ask it.
 */
#include "config.h"

#include "core/engine/engine.h"

void shmi_eng_fence(const char *routine, shmem_ctx_t ctx)
{
    __atomic_thread_fence(__ATOMIC_RELEASE);
    for (int i = 0; i < shmi_state.n_carriers; i++) {
        const shmt_ops_t *t = shmi_state.carrier[i];
        const shmt_order_ops_t *o = t->order;
        int ret;

        if (ctx->ep[i] == NULL || o == NULL)
            continue;
        shmi_eng_lock(ctx);
        ret = shmi_dp_mixed ? o->quiet(ctx->ep[i], -1) : o->fence(ctx->ep[i]);
        shmi_eng_unlock(ctx);
        if (ret)
            shmi_eng_transport_error(routine, t, -1, ret);
    }
}

/* Quiet of the transport in slot i, when the context has an endpoint on
 * it and the transport an ordering part. */
static void shmi_eng_quiet_slot(const char *routine, shmem_ctx_t ctx, int i,
                                int pe)
{
    const shmt_ops_t *t = shmi_state.carrier[i];
    int ret;

    if (ctx->ep[i] == NULL || t->order == NULL)
        return;
    shmi_eng_lock(ctx);
    ret = t->order->quiet(ctx->ep[i], pe);
    shmi_eng_unlock(ctx);
    if (ret)
        shmi_eng_transport_error(routine, t, pe, ret);
}

void shmi_eng_quiet(const char *routine, shmem_ctx_t ctx, int pe)
{
    for (int i = 0; i < shmi_state.n_carriers; i++)
        shmi_eng_quiet_slot(routine, ctx, i, pe);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void shmi_eng_route_quiet(const char *routine, shmem_ctx_t ctx,
                          const shmi_route_t *r, int pe)
{
    if (r->ops)
        shmi_eng_quiet_slot(routine, ctx, r->ep, pe);
}
