/*
 * The core's host path as the device transport is handed it
 * (transports/transport.h, shmt_host_t): where a peer's host segment is
 * mapped here, the job's atomics engine, the fabric's operations on a
 * context's endpoint, a private context for the device service's thread,
 * progress, and symmetric blocks of the host heap. The owner handles the
 * device transport passes back are the core's contexts (shmem_ctx_t).
 */
#include "config.h"

#include <stdlib.h>

#include "core/dataplane.h"
#include "core/heap/heap.h"
#include "core/host_path.h"

static void *shmi_host_mapped(int pe, shmi_seg_id_t seg, size_t off)
{
    if (pe < 0 || pe >= shmi_n_pes_fast() || seg >= SHMI_SEG_DEVICE)
        return NULL;
    return shmi_seg_peer_ptr(pe, seg, off);
}

static int shmi_host_cpu_atomics(void)
{
    return shmi_dp_cpu_atomics;
}

static int shmi_host_fabric_reaches(int pe, shmi_seg_id_t seg)
{
    const shmt_ops_t *f = shmi_state.fabric;

    return f && f->reachable(pe, seg);
}

/* The fabric's route for a call of the host path; SHMI_ENOTSUP without a
 * fabric. */
static const shmi_route_t *shmi_host_fabric(void)
{
    return shmi_route_fabric.ops ? &shmi_route_fabric : NULL;
}

static int shmi_host_put(void *owner, int pe, shmi_seg_id_t seg, size_t off,
                         const void *src, size_t len, int nbi)
{
    const shmi_route_t *r = shmi_host_fabric();

    return r ? shmi_eng_call_put(owner, r, pe, seg, off, src, len, nbi)
             : SHMI_ENOTSUP;
}

static int shmi_host_get(void *owner, int pe, shmi_seg_id_t seg, size_t off,
                         void *dst, size_t len, int nbi)
{
    const shmi_route_t *r = shmi_host_fabric();

    return r ? shmi_eng_call_get(owner, r, pe, seg, off, dst, len, nbi)
             : SHMI_ENOTSUP;
}

static int shmi_host_amo(void *owner, int pe, shmi_seg_id_t seg, size_t off,
                         shmi_amo_op_t op, shmi_dtype_t dt, const void *operand,
                         const void *compare, void *fetched, int nbi)
{
    const shmi_route_t *r = shmi_host_fabric();

    return r ? shmi_eng_call_amo(owner, r, pe, seg, off, op, dt, operand,
                                compare, fetched, nbi)
             : SHMI_ENOTSUP;
}

static int shmi_host_put_signal(void *owner, int pe, shmi_seg_id_t seg,
                                size_t off, const void *src, size_t len,
                                shmi_seg_id_t sig_seg, size_t sig_off,
                                uint64_t signal, shmi_amo_op_t sig_op, int nbi)
{
    const shmi_route_t *r = shmi_host_fabric();

    return r ? shmi_eng_call_put_signal(owner, r, pe, seg, off, src, len,
                                       sig_seg, sig_off, signal, sig_op, nbi)
             : SHMI_ENOTSUP;
}

static int shmi_host_quiet(void *owner, int pe)
{
    shmem_ctx_t ctx = owner;
    const shmt_ops_t *f = shmi_route_fabric.ops;
    shmt_ep_t *ep = f ? ctx->ep[shmi_route_fabric.ep] : NULL;
    int ret;

    /* Without an ordering part its operations completed on return. */
    if (ep == NULL || f->order == NULL)
        return 0;
    shmi_eng_lock(ctx);
    ret = f->order->quiet(ep, pe);
    shmi_eng_unlock(ctx);
    return ret;
}

/* For the device service's thread (its helper says that it progresses
 * beside the program: services/helper_thread.h). */
static void *shmi_host_ctx_create(void)
{
    return shmi_ctx_runtime_new(SHMEM_CTX_PRIVATE);
}

static void shmi_host_ctx_destroy(void *owner)
{
    shmi_ctx_runtime_free(owner);
}

static void *shmi_host_sym_alloc(size_t size, size_t align, size_t *off)
{
    void *p = shmi_heap_alloc(size, align);

    if (p == NULL || shmi_seg_lookup(p, size, off) != SHMI_SEG_HEAP) {
        shmi_heap_free("shmem_init", p);
        return NULL;
    }
    return p;
}

static void shmi_host_sym_free(void *p)
{
    shmi_heap_free("shmem_finalize", p);
}

static shmt_host_t shmi_host_path_table = {
    .mapped = shmi_host_mapped,
    .cpu_atomics = shmi_host_cpu_atomics,
    .fabric_reaches = shmi_host_fabric_reaches,
    .fabric_put = shmi_host_put,
    .fabric_get = shmi_host_get,
    .fabric_amo = shmi_host_amo,
    .fabric_put_signal = shmi_host_put_signal,
    .fabric_quiet = shmi_host_quiet,
    .ctx_create = shmi_host_ctx_create,
    .ctx_destroy = shmi_host_ctx_destroy,
    .progress = shmi_progress,
    .sym_alloc = shmi_host_sym_alloc,
    .sym_free = shmi_host_sym_free,
};

const shmt_host_t *shmi_host_path(int fabric_up)
{
    shmi_host_path_table.fabric_up = fabric_up;
    return &shmi_host_path_table;
}
