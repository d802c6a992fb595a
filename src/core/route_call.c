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

/*
 * The calls themselves, returning the transport's code: under the context
 * lock, retried while it is busy. The host path (host_path.c) hands these
 * to the device transport, which reports its own errors.
 */
int shmi_dp_call_put(shmem_ctx_t ctx, const shmi_route_t *r, int pe, int seg,
                     size_t off, const void *src, size_t len, int nbi)
{
    int ret;

    if (r->lock)
        shmi_dp_lock(ctx);
    do {
        ret = r->ops->put(ctx->ep[r->ep], pe, seg, off, src, len, nbi);
    } while (shmi_dp_again(ret));
    if (r->lock)
        shmi_dp_unlock(ctx);
    return ret;
}

int shmi_dp_call_get(shmem_ctx_t ctx, const shmi_route_t *r, int pe, int seg,
                     size_t off, void *dst, size_t len, int nbi)
{
    int ret;

    if (r->lock)
        shmi_dp_lock(ctx);
    do {
        ret = r->ops->get(ctx->ep[r->ep], pe, seg, off, dst, len, nbi);
    } while (shmi_dp_again(ret));
    if (r->lock)
        shmi_dp_unlock(ctx);
    return ret;
}

int shmi_dp_call_amo(shmem_ctx_t ctx, const shmi_route_t *r, int pe, int seg,
                     size_t off, shmi_amo_op_t op, shmi_dtype_t dt,
                     const void *operand, const void *compare, void *fetched,
                     int nbi)
{
    int ret;

    if (r->lock)
        shmi_dp_lock(ctx);
    do {
        ret = r->ops->amo(ctx->ep[r->ep], pe, seg, off, op, dt, operand,
                          compare, fetched, nbi);
    } while (shmi_dp_again(ret));
    if (r->lock)
        shmi_dp_unlock(ctx);
    return ret;
}

int shmi_dp_call_put_signal(shmem_ctx_t ctx, const shmi_route_t *r, int pe,
                            int seg, size_t off, const void *src, size_t len,
                            int sig_seg, size_t sig_off, uint64_t signal,
                            shmi_amo_op_t sig_op, int nbi)
{
    int ret;

    if (r->lock)
        shmi_dp_lock(ctx);
    do {
        ret = r->ops->put_signal(ctx->ep[r->ep], pe, seg, off, src, len,
                                 sig_seg, sig_off, signal, sig_op, nbi);
    } while (shmi_dp_again(ret));
    if (r->lock)
        shmi_dp_unlock(ctx);
    return ret;
}

/* Fatal, naming the routine, when nothing reaches (pe, seg). */
static inline void shmi_dp_route_ops(const char *routine, const shmi_route_t *r,
                                     int pe, int seg)
{
    if (SHMI_UNLIKELY(r->ops == NULL))
        shmi_dp_unreachable(routine, pe, seg);
}

void shmi_dp_route_put(const char *routine, shmem_ctx_t ctx,
                       const shmi_route_t *r, int pe, int seg, size_t off,
                       const void *src, size_t len, int nbi)
{
    int ret;

    shmi_dp_route_ops(routine, r, pe, seg);
    ret = shmi_dp_call_put(ctx, r, pe, seg, off, src, len, nbi);
    if (ret)
        shmi_dp_transport_error(routine, r->ops, pe, ret);
}

void shmi_dp_route_get(const char *routine, shmem_ctx_t ctx,
                       const shmi_route_t *r, int pe, int seg, size_t off,
                       void *dst, size_t len, int nbi)
{
    int ret;

    shmi_dp_route_ops(routine, r, pe, seg);
    ret = shmi_dp_call_get(ctx, r, pe, seg, off, dst, len, nbi);
    if (ret)
        shmi_dp_transport_error(routine, r->ops, pe, ret);
}

void shmi_dp_route_amo(const char *routine, shmem_ctx_t ctx,
                       const shmi_route_t *r, int pe, int seg, size_t off,
                       shmi_amo_op_t op, shmi_dtype_t dt, const void *operand,
                       const void *compare, void *fetched, int nbi)
{
    int ret;

    shmi_dp_route_ops(routine, r, pe, seg);
    ret = shmi_dp_call_amo(ctx, r, pe, seg, off, op, dt, operand, compare,
                           fetched, nbi);
    if (ret)
        shmi_dp_transport_error(routine, r->ops, pe, ret);
}

void shmi_dp_route_put_signal(const char *routine, shmem_ctx_t ctx,
                              const shmi_route_t *r, int pe, int seg,
                              size_t off, const void *src, size_t len,
                              int sig_seg, size_t sig_off, uint64_t signal,
                              int sig_op, int nbi)
{
    shmi_amo_op_t op = sig_op == SHMEM_SIGNAL_ADD ? SHMI_AMO_ADD : SHMI_AMO_SET;
    int ret;

    shmi_dp_route_ops(routine, r, pe, seg);
    ret = shmi_dp_call_put_signal(ctx, r, pe, seg, off, src, len, sig_seg,
                                  sig_off, signal, op, nbi);
    if (ret)
        shmi_dp_transport_error(routine, r->ops, pe, ret);
}

void shmi_dp_route_put_signal_msg(const char *routine, shmem_ctx_t ctx,
                                  const shmi_route_t *r, int pe, int seg,
                                  size_t off, const void *src, size_t len,
                                  int sig_seg, size_t sig_off, uint64_t signal,
                                  int sig_op)
{
    shmi_amo_op_t op = sig_op == SHMEM_SIGNAL_ADD ? SHMI_AMO_ADD : SHMI_AMO_SET;
    int ret;

    shmi_dp_route_ops(routine, r, pe, seg);
    if (r->lock)
        shmi_dp_lock(ctx);
    do {
        ret = r->ops->put_signal_msg(ctx->ep[r->ep], pe, seg, off, src, len,
                                     sig_seg, sig_off, signal, op);
    } while (shmi_dp_again(ret));
    if (r->lock)
        shmi_dp_unlock(ctx);
    if (ret)
        shmi_dp_transport_error(routine, r->ops, pe, ret);
}

void shmi_dp_route_put_word(const char *routine, shmem_ctx_t ctx,
                            const shmi_route_t *r, int pe, int seg, size_t off,
                            uint64_t value)
{
    int ret;

    shmi_dp_route_ops(routine, r, pe, seg);
    if (r->lock)
        shmi_dp_lock(ctx);
    do {
        ret = r->ops->put_word(ctx->ep[r->ep], pe, seg, off, value);
    } while (shmi_dp_again(ret));
    if (r->lock)
        shmi_dp_unlock(ctx);
    if (ret)
        shmi_dp_transport_error(routine, r->ops, pe, ret);
}

void shmi_dp_route_put_tagged(const char *routine, shmem_ctx_t ctx,
                              const shmi_route_t *r, int pe, int seg,
                              size_t off, const void *src, size_t len)
{
    int ret;

    shmi_dp_route_ops(routine, r, pe, seg);
    if (r->lock)
        shmi_dp_lock(ctx);
    do {
        ret = r->ops->put_tagged(ctx->ep[r->ep], pe, seg, off, src, len);
    } while (shmi_dp_again(ret));
    if (r->lock)
        shmi_dp_unlock(ctx);
    if (ret)
        shmi_dp_transport_error(routine, r->ops, pe, ret);
}

const shmi_route_t *shmi_dp_device_route(const char *routine, int pe, int seg)
{
    if (SHMI_UNLIKELY(shmi_route_device.ops == NULL))
        shmi_dp_unreachable(routine, pe, seg);
    return &shmi_route_device;
}
