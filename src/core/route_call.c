/*
 * Calls into the transport of a route (dataplane.h: shmi_dp_route_*): the
 * context's endpoint of the route's slot, the context lock where threads
 * may share it, a retry while the transport is out of resources, and the
 * fatal message of any other error.
 */
#include "config.h"

#include "core/dataplane.h"

/* An operation that returned SHMI_EAGAIN (out of resources) is retried
 * after driving progress, which frees them. */
static int shmi_dp_again(int ret)
{
    if (ret != SHMI_EAGAIN)
        return 0;
    shmi_progress();
    return 1;
}

/* The route's transport, or a fatal error naming the routine. */
static inline const shmt_ops_t *shmi_dp_route_ops(const char *routine,
                                                  const shmi_route_t *r,
                                                  int pe, int seg)
{
    if (SHMI_UNLIKELY(r->ops == NULL))
        shmi_dp_unreachable(routine, pe, seg);
    return r->ops;
}

void shmi_dp_route_put(const char *routine, shmem_ctx_t ctx,
                       const shmi_route_t *r, int pe, int seg, size_t off,
                       const void *src, size_t len, int nbi)
{
    const shmt_ops_t *t = shmi_dp_route_ops(routine, r, pe, seg);
    int ret;

    shmi_dp_lock(ctx);
    do {
        ret = t->put(ctx->ep[r->ep], pe, seg, off, src, len, nbi);
    } while (shmi_dp_again(ret));
    shmi_dp_unlock(ctx);
    if (ret)
        shmi_dp_transport_error(routine, t, pe, ret);
}

void shmi_dp_route_get(const char *routine, shmem_ctx_t ctx,
                       const shmi_route_t *r, int pe, int seg, size_t off,
                       void *dst, size_t len, int nbi)
{
    const shmt_ops_t *t = shmi_dp_route_ops(routine, r, pe, seg);
    int ret;

    shmi_dp_lock(ctx);
    do {
        ret = t->get(ctx->ep[r->ep], pe, seg, off, dst, len, nbi);
    } while (shmi_dp_again(ret));
    shmi_dp_unlock(ctx);
    if (ret)
        shmi_dp_transport_error(routine, t, pe, ret);
}

void shmi_dp_route_amo(const char *routine, shmem_ctx_t ctx,
                       const shmi_route_t *r, int pe, int seg, size_t off,
                       shmi_amo_op_t op, shmi_dtype_t dt, const void *operand,
                       const void *compare, void *fetched, int nbi)
{
    const shmt_ops_t *t = shmi_dp_route_ops(routine, r, pe, seg);
    int ret;

    shmi_dp_lock(ctx);
    do {
        ret = t->amo(ctx->ep[r->ep], pe, seg, off, op, dt, operand, compare,
                     fetched, nbi);
    } while (shmi_dp_again(ret));
    shmi_dp_unlock(ctx);
    if (ret)
        shmi_dp_transport_error(routine, t, pe, ret);
}

void shmi_dp_route_put_signal(const char *routine, shmem_ctx_t ctx,
                              const shmi_route_t *r, int pe, int seg,
                              size_t off, const void *src, size_t len,
                              int sig_seg, size_t sig_off, uint64_t signal,
                              int sig_op, int nbi)
{
    const shmt_ops_t *t = shmi_dp_route_ops(routine, r, pe, seg);
    shmi_amo_op_t op = sig_op == SHMEM_SIGNAL_ADD ? SHMI_AMO_ADD : SHMI_AMO_SET;
    int ret;

    shmi_dp_lock(ctx);
    do {
        ret = t->put_signal(ctx->ep[r->ep], pe, seg, off, src, len, sig_seg,
                            sig_off, signal, op, nbi);
    } while (shmi_dp_again(ret));
    shmi_dp_unlock(ctx);
    if (ret)
        shmi_dp_transport_error(routine, t, pe, ret);
}

const shmi_route_t *shmi_dp_fabric_route(const char *routine, int pe, int seg)
{
    if (SHMI_UNLIKELY(shmi_route_fabric.ops == NULL))
        shmi_dp_unreachable(routine, pe, seg);
    return &shmi_route_fabric;
}
