/*
 * The device transport called through its contract (transports/
 * transport.h), as the core calls it: on the endpoint a context holds for
 * it (the slot of shmi_route_device, src/core/route.h). For the white-box
 * device tests, which check each path of transports/device by itself.
 */
#ifndef WEFT_TESTS_GPU_DEVICE_TRANSPORT_H
#define WEFT_TESTS_GPU_DEVICE_TRANSPORT_H

#include "core/ctx.h"
#include "core/route.h"
#include "shmem.h"
#include "transports/device/device.h"
#include "transports/transport.h"

/* The device transport's endpoint of ctx (NULL without one). */
static inline shmt_ep_t *gt_dev_ep(shmem_ctx_t ctx)
{
    return shmi_route_device.ops ? ctx->ep[shmi_route_device.ep] : NULL;
}

static inline int gt_dev_put(shmem_ctx_t ctx, int pe, int seg, size_t off,
                             const void *src, size_t len, int nbi)
{
    return shmt_device_ops.rma->put(gt_dev_ep(ctx), pe, (shmi_seg_id_t)seg,
                                    off, src, len, nbi);
}

static inline int gt_dev_get(shmem_ctx_t ctx, int pe, int seg, size_t off,
                             void *dst, size_t len, int nbi)
{
    return shmt_device_ops.rma->get(gt_dev_ep(ctx), pe, (shmi_seg_id_t)seg,
                                    off, dst, len, nbi);
}

static inline int gt_dev_amo(shmem_ctx_t ctx, int pe, int seg, size_t off,
                             shmi_amo_op_t op, shmi_dtype_t dt,
                             const void *operand, const void *compare,
                             void *fetched, int nbi)
{
    return shmt_device_ops.atomic->amo(gt_dev_ep(ctx), pe, (shmi_seg_id_t)seg,
                                       off, op, dt, operand, compare, fetched,
                                       nbi);
}

/* sig_op: SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD, as a program says it. */
static inline int gt_dev_put_signal(shmem_ctx_t ctx, int pe, int seg,
                                    size_t off, const void *src, size_t len,
                                    int sig_seg, size_t sig_off,
                                    uint64_t signal, int sig_op, int nbi)
{
    return shmt_device_ops.rma->put_signal(
        gt_dev_ep(ctx), pe, (shmi_seg_id_t)seg, off, src, len,
        (shmi_seg_id_t)sig_seg, sig_off, signal,
        sig_op == SHMEM_SIGNAL_ADD ? SHMI_AMO_ADD : SHMI_AMO_SET, nbi);
}

#endif /* WEFT_TESTS_GPU_DEVICE_TRANSPORT_H */
