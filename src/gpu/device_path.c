/*
 * Data movement that touches device memory (device_path.h).
 *
 * Staging. Without FI_HMEM the fabric cannot read or write device memory,
 * so a transfer between a device buffer here and a host segment of a PE
 * reached through the fabric goes through two host bounce buffers of
 * SHMI_DEVICE_STAGE_CHUNK bytes, locked in memory (pinned) when the system
 * allows it. For a put, chunk k+1 is copied out of the device while the
 * fabric carries chunk k (posted non-blocking); the quiet that follows
 * frees the buffer of chunk k for chunk k+2. A get mirrors it. One lock
 * serialises the bounce buffers between threads; it is always taken before
 * a context's lock, never after.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/dataplane.h"
#include "core/heap/device_heap.h"
#include "gpu/device_path.h"
#include "gpu/device_proxy.h"
#include "gpu/gpu_mock.h"
#include "services/backoff.h"
#include "services/env.h"

int shmi_device_active;

/* 1 when the fabric registered the own device heap at its own address, so
 * that a local buffer in it may be handed to the fabric as it is (the
 * mock's registration is a separate view: its buffers are staged). */
static int fabric_local_direct;

static struct {
    pthread_mutex_t lock;
    char *buf[2]; /* SHMI_DEVICE_STAGE_CHUNK bytes each, lazily */
} stage = {.lock = PTHREAD_MUTEX_INITIALIZER};

int shmi_device_touches_slow(const void *addr, size_t len)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();
    const char *a = addr;

    if (!g || !a || len == 0)
        return 0;
    if (shmi_device_heap_contains(a) || shmi_device_heap_contains(a + len - 1))
        return 1;
    return g->is_device(a) || g->is_device(a + len - 1);
}

/* The bounce buffers; called with stage.lock held. */
static int stage_buffers(void)
{
    if (!stage.buf[0])
        SHMI_LOG(SHMI_LOG_DEBUG, "gpu",
                 "device data to or from the fabric is staged through host "
                 "bounce buffers (no FI_HMEM)");
    for (int i = 0; i < 2; i++) {
        void *p;

        if (stage.buf[i])
            continue;
        if (posix_memalign(&p, 4096, SHMI_DEVICE_STAGE_CHUNK) != 0)
            return SHMI_ENOMEM;
        /* Pinned pages let a GPU's copy engine reach them directly; when
         * the memlock limit forbids it the copies are merely slower. */
        (void)mlock(p, SHMI_DEVICE_STAGE_CHUNK);
        stage.buf[i] = p;
    }
    return 0;
}

void shmi_device_path_release(void)
{
    shmi_device_service_stop(); /* normally stopped with the fabric */
    pthread_mutex_lock(&stage.lock);
    for (int i = 0; i < 2; i++) {
        if (stage.buf[i]) {
            munlock(stage.buf[i], SHMI_DEVICE_STAGE_CHUNK);
            free(stage.buf[i]);
        }
        stage.buf[i] = NULL;
    }
    pthread_mutex_unlock(&stage.lock);
}

static size_t chunk_len(size_t len, size_t done)
{
    return len - done < SHMI_DEVICE_STAGE_CHUNK ? len - done
                                                : SHMI_DEVICE_STAGE_CHUNK;
}

/* Device buffer src -> (seg, off) of pe through the fabric. */
static int staged_put(const char *routine, shmem_ctx_t ctx, int pe, int seg,
                      size_t off, const char *src, size_t len)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();
    size_t done = 0, n = chunk_len(len, 0);
    int k = 0, ret;

    pthread_mutex_lock(&stage.lock);
    ret = stage_buffers();
    if (ret == 0)
        ret = g->copy(stage.buf[0], src, n, SHMI_GPU_D2H);
    while (ret == 0 && done < len) {
        size_t next = done + n, nn = next < len ? chunk_len(len, next) : 0;

        shmi_dp_fabric_put(routine, ctx, pe, seg, off + done, stage.buf[k], n,
                           1);
        if (nn > 0)
            ret = g->copy(stage.buf[k ^ 1], src + next, nn, SHMI_GPU_D2H);
        shmi_dp_fabric_quiet(routine, ctx, pe);
        done = next;
        n = nn;
        k ^= 1;
    }
    pthread_mutex_unlock(&stage.lock);
    return ret;
}

/* (seg, off) of pe -> device buffer dst through the fabric. */
static int staged_get(const char *routine, shmem_ctx_t ctx, int pe, int seg,
                      size_t off, char *dst, size_t len)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();
    size_t done = 0, n = chunk_len(len, 0);
    int k = 0, ret;

    pthread_mutex_lock(&stage.lock);
    ret = stage_buffers();
    if (ret == 0)
        shmi_dp_fabric_get(routine, ctx, pe, seg, off, stage.buf[0], n, 1);
    while (ret == 0 && done < len) {
        size_t next = done + n, nn = next < len ? chunk_len(len, next) : 0;

        shmi_dp_fabric_quiet(routine, ctx, pe);
        if (nn > 0)
            shmi_dp_fabric_get(routine, ctx, pe, seg, off + next,
                               stage.buf[k ^ 1], nn, 1);
        ret = g->copy(dst + done, stage.buf[k], n, SHMI_GPU_H2D);
        done = next;
        n = nn;
        k ^= 1;
    }
    if (ret != 0 && n > 0)
        shmi_dp_fabric_quiet(routine, ctx, pe); /* nothing left in flight */
    pthread_mutex_unlock(&stage.lock);
    return ret;
}

/* The fabric reaches pe's device heap (FI_HMEM registration). */
static int fabric_reaches_device(int pe)
{
    const shmt_ops_t *f = shmi_state.fabric;

    return f && f->reachable(pe, SHMI_SEG_DEVICE);
}

int shmi_device_fabric_view(void **addr, size_t *size, shmi_mem_kind_t *kind,
                            int *device)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();
    char *base = shmi_state.seg[SHMI_SEG_DEVICE].base;
    shmi_gpu_hmem_t hm;

    if (!g || !base)
        return SHMI_ENODEV;
    *size = shmi_state.seg[SHMI_SEG_DEVICE].size;
    *device = 0;
    if (g == &shmi_gpu_mock_ops) {
        /* The mock stands for a GPU a NIC reaches only when asked to. */
        const char *dma = shmi_env.DEVICE_MOCK_DMA;

        if (strcmp(dma, "host") != 0 && strcmp(dma, "cuda") != 0)
            return SHMI_ENOTSUP;
        *kind = strcmp(dma, "cuda") == 0 ? SHMI_MEM_CUDA : SHMI_MEM_HOST;
        return shmi_gpu_mock_dma_view(base, *size, addr);
    }
    hm = g->hmem();
    if (hm.kind == SHMI_MEM_HOST) /* device memory it cannot name */
        return SHMI_ENOTSUP;
    *kind = hm.kind;
    *device = hm.device;
    *addr = base;
    fabric_local_direct = 1;
    return 0;
}

/* Copy direction between a host or device buffer and device memory. */
static shmi_gpu_copy_t dir_to_device(const void *src, size_t len)
{
    return shmi_device_touches(src, len) ? SHMI_GPU_D2D : SHMI_GPU_H2D;
}

static shmi_gpu_copy_t dir_from_device(const void *dst, size_t len)
{
    return shmi_device_touches(dst, len) ? SHMI_GPU_D2D : SHMI_GPU_D2H;
}

/* How a call reaches pe's device heap. */
typedef enum dev_route {
    ROUTE_IPC,     /* back-end copy or atomic on the mapping pd */
    ROUTE_FABRIC,  /* the fabric, FI_HMEM registration */
    ROUTE_SERVICE, /* pe's device service */
    ROUTE_NONE
} dev_route_t;

/* The own heap and the IPC mappings of this node's PEs come first, where
 * the local path reaches pe's host heap too (not with SHMEM_LOCAL=0, nor
 * from or to a PE of SHMEM_LOCAL_OFF_PES: device heaps follow the host
 * heap, now that the fabric reaches them) and without
 * SHMEM_DEVICE_SERVICE=all; then the fabric where it reaches the heap,
 * then the owner's service; an IPC mapping last. */
static dev_route_t route(int pe, const char *pd)
{
    int all = shmi_device_svc_all();
    int local = shmi_seg_peer_ptr(pe, SHMI_SEG_HEAP, 0) != NULL;

    if (pd && (pe == shmi_my_pe_fast() || (local && !all)))
        return ROUTE_IPC;
    if (fabric_reaches_device(pe) && !all)
        return ROUTE_FABRIC;
    if (shmi_device_svc_up())
        return ROUTE_SERVICE;
    return pd ? ROUTE_IPC : ROUTE_NONE;
}

/* A local buffer the fabric cannot be handed: device memory outside the
 * registered own heap, or any device memory when the registration is a
 * separate view. */
static int must_stage(const void *buf, size_t len)
{
    return shmi_device_touches(buf, len) &&
           !(fabric_local_direct && shmi_device_heap_contains(buf));
}

static int put_to_device(const char *routine, shmem_ctx_t ctx, int pe,
                         size_t off, const void *src, size_t len, int nbi)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();
    char *pd = shmi_device_peer_ptr(pe, off);

    switch (route(pe, pd)) {
    case ROUTE_IPC: return g->copy(pd, src, len, dir_to_device(src, len));
    case ROUTE_FABRIC:
        if (must_stage(src, len))
            return staged_put(routine, ctx, pe, SHMI_SEG_DEVICE, off, src, len);
        shmi_dp_fabric_put(routine, ctx, pe, SHMI_SEG_DEVICE, off, src, len,
                           nbi);
        return 0;
    case ROUTE_SERVICE:
        return shmi_device_svc_put(routine, ctx, pe, off, src, len);
    default: return SHMI_ENOTSUP;
    }
}

int shmi_device_put(const char *routine, shmem_ctx_t ctx, int pe, int seg,
                    size_t off, const void *src, size_t len, int nbi)
{
    void *p;

    if (len == 0)
        return 0;
    if (!shmi_device_backend())
        return SHMI_ENODEV;
    if (seg == SHMI_SEG_DEVICE)
        return put_to_device(routine, ctx, pe, off, src, len, nbi);
    p = shmi_seg_peer_ptr(pe, seg, off);
    if (!shmi_device_touches(src, len)) { /* nothing on a device after all */
        if (p)
            memcpy(p, src, len);
        else
            shmi_dp_fabric_put(routine, ctx, pe, seg, off, src, len, nbi);
        return 0;
    }
    if (p)
        return shmi_device_backend()->copy(p, src, len, SHMI_GPU_D2H);
    if (!shmi_state.fabric)
        return SHMI_ENOTSUP;
    return staged_put(routine, ctx, pe, seg, off, src, len);
}

static int get_from_device(const char *routine, shmem_ctx_t ctx, int pe,
                           size_t off, void *dst, size_t len, int nbi)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();
    char *pd = shmi_device_peer_ptr(pe, off);

    switch (route(pe, pd)) {
    case ROUTE_IPC: return g->copy(dst, pd, len, dir_from_device(dst, len));
    case ROUTE_FABRIC:
        if (must_stage(dst, len))
            return staged_get(routine, ctx, pe, SHMI_SEG_DEVICE, off, dst, len);
        shmi_dp_fabric_get(routine, ctx, pe, SHMI_SEG_DEVICE, off, dst, len,
                           nbi);
        return 0;
    case ROUTE_SERVICE:
        return shmi_device_svc_get(routine, ctx, pe, off, dst, len);
    default: return SHMI_ENOTSUP;
    }
}

int shmi_device_get(const char *routine, shmem_ctx_t ctx, int pe, int seg,
                    size_t off, void *dst, size_t len, int nbi)
{
    void *p;

    if (len == 0)
        return 0;
    if (!shmi_device_backend())
        return SHMI_ENODEV;
    if (seg == SHMI_SEG_DEVICE)
        return get_from_device(routine, ctx, pe, off, dst, len, nbi);
    p = shmi_seg_peer_ptr(pe, seg, off);
    if (!shmi_device_touches(dst, len)) {
        if (p)
            memcpy(dst, p, len);
        else
            shmi_dp_fabric_get(routine, ctx, pe, seg, off, dst, len, nbi);
        return 0;
    }
    if (p)
        return shmi_device_backend()->copy(dst, p, len, SHMI_GPU_H2D);
    if (!shmi_state.fabric)
        return SHMI_ENOTSUP;
    return staged_get(routine, ctx, pe, seg, off, dst, len);
}

int shmi_device_amo(const char *routine, shmem_ctx_t ctx, int pe, int seg,
                    size_t off, shmi_amo_op_t op, shmi_dtype_t dt,
                    const void *operand, const void *compare, void *fetched,
                    int nbi)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();
    char *pd;
    int ret;

    if (!g)
        return SHMI_ENODEV;
    if (seg != SHMI_SEG_DEVICE)
        return SHMI_EINVAL;
    pd = shmi_device_peer_ptr(pe, off);
    /* One engine per word (docs/design.md, decision 6). NIC atomics on device
     * memory serve every PE, this one included. */
    if (!shmi_dp_cpu_atomics && fabric_reaches_device(pe) &&
        !shmi_device_svc_all()) {
        shmi_dp_fabric_amo(routine, ctx, pe, seg, off, op, dt, operand, compare,
                           fetched, nbi);
        return 0;
    }
    /* Without device atomics the owner's service lock is the engine: the
     * owner's own atomics take it, everybody else's are its requests. */
    if (shmi_device_svc_rmw())
        return pe == shmi_my_pe_fast()
                   ? shmi_device_svc_amo_local(pd, op, dt, operand, compare,
                                               fetched)
                   : shmi_device_svc_amo(routine, ctx, pe, off, op, dt, operand,
                                         compare, fetched);
    switch (route(pe, pd)) {
    case ROUTE_IPC:
        ret = g->atomic(pd, op, dt, operand, compare, fetched);
        return ret == SHMI_ENOTSUP ? SHMI_ENOSYS : ret;
    case ROUTE_FABRIC:
        shmi_dp_fabric_amo(routine, ctx, pe, seg, off, op, dt, operand, compare,
                           fetched, nbi);
        return 0;
    case ROUTE_SERVICE:
        return shmi_device_svc_amo(routine, ctx, pe, off, op, dt, operand,
                                   compare, fetched);
    default: return SHMI_ENOTSUP;
    }
}

/* The signal, after the data is remotely complete. */
static int send_signal(const char *routine, shmem_ctx_t ctx, int pe,
                       int sig_seg, size_t sig_off, uint64_t signal, int sig_op)
{
    shmi_amo_op_t op = sig_op == SHMEM_SIGNAL_ADD ? SHMI_AMO_ADD : SHMI_AMO_SET;
    uint64_t *s;

    if (sig_seg == SHMI_SEG_DEVICE)
        return shmi_device_amo(routine, ctx, pe, sig_seg, sig_off, op,
                               SHMI_DT_UINT64, &signal, NULL, NULL, 0);
    s = shmi_seg_peer_ptr(pe, sig_seg, sig_off);
    if (s && shmi_dp_cpu_atomics) {
        if (op == SHMI_AMO_ADD)
            __atomic_fetch_add(s, signal, __ATOMIC_SEQ_CST);
        else
            __atomic_store_n(s, signal, __ATOMIC_RELEASE);
        return 0;
    }
    shmi_dp_fabric_amo(routine, ctx, pe, sig_seg, sig_off, op, SHMI_DT_UINT64,
                       &signal, NULL, NULL, 0);
    return 0;
}

int shmi_device_put_signal(const char *routine, shmem_ctx_t ctx, int pe,
                           int seg, size_t off, const void *src, size_t len,
                           int sig_seg, size_t sig_off, uint64_t signal,
                           int sig_op, int nbi)
{
    int ret;

    (void)nbi; /* the data must be complete before the signal anyway */
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        return SHMI_EINVAL;
    ret = shmi_device_put(routine, ctx, pe, seg, off, src, len, 0);
    if (ret != 0)
        return ret;
    /* Back-end copies are synchronous; a fabric put is remotely complete
     * only after quiet. */
    if (shmi_state.fabric && len > 0)
        shmi_dp_fabric_quiet(routine, ctx, pe);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return send_signal(routine, ctx, pe, sig_seg, sig_off, signal, sig_op);
}

static int cmp_u64(uint64_t v, int cmp, uint64_t value)
{
    switch (cmp) {
    case SHMEM_CMP_EQ: return v == value;
    case SHMEM_CMP_NE: return v != value;
    case SHMEM_CMP_GT: return v > value;
    case SHMEM_CMP_GE: return v >= value;
    case SHMEM_CMP_LT: return v < value;
    case SHMEM_CMP_LE: return v <= value;
    default: return -1;
    }
}

uint64_t shmi_device_signal_fetch(const char *routine, const uint64_t *sig_addr)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();
    uint64_t v = 0;
    int ret = SHMI_EINVAL;

    if (g && shmi_device_heap_contains(sig_addr))
        ret = g->atomic((void *)sig_addr, SHMI_AMO_FETCH, SHMI_DT_UINT64, NULL,
                        NULL, &v);
    if (ret == SHMI_ENOTSUP) /* no device atomics: a copy reads 8 bytes whole */
        ret = g->copy(&v, sig_addr, sizeof(v), SHMI_GPU_D2H);
    if (ret != 0)
        shmi_device_fail(routine, shmi_my_pe_fast(), ret);
    return v;
}

uint64_t shmi_device_signal_wait(const char *routine, const uint64_t *sig_addr,
                                 int cmp, uint64_t value)
{
    shmi_backoff_t b;
    uint64_t v;
    int ok;

    shmi_backoff_init(&b);
    for (;;) {
        v = shmi_device_signal_fetch(routine, sig_addr);
        ok = cmp_u64(v, cmp, value);
        if (ok < 0)
            SHMI_FATAL("%s: comparison %d is not one of the SHMEM_CMP_* "
                       "constants",
                       routine, cmp);
        if (ok)
            return v;
        shmi_backoff_wait(&b);
    }
}

_Noreturn void shmi_device_fail(const char *routine, int pe, int ret)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();

    switch (ret) {
    case SHMI_ENODEV:
        SHMI_FATAL("%s: PE %d: no device heap here (SHMEM_DEVICE_BACKEND, "
                   "SHMEM_SYMMETRIC_DEVICE_SIZE)",
                   routine, pe);
    case SHMI_ENOTSUP:
        SHMI_FATAL("%s: the device memory of PE %d is not reachable from "
                   "here: neither IPC (same node) nor the fabric (FI_HMEM) "
                   "reaches it, and no device service runs (it starts with "
                   "libfabric, or without it for back ends lacking device "
                   "atomics or with SHMEM_DEVICE_SERVICE=all)",
                   routine, pe);
    case SHMI_ENOSYS:
        SHMI_FATAL("%s: the %s device back end cannot apply this atomic "
                   "operation to device memory (PE %d), and no device "
                   "service serialises it (see the start-up warnings)",
                   routine, g ? g->name : "?", pe);
    default:
        SHMI_FATAL("%s: device data transfer with PE %d failed: %s", routine,
                   pe, shmi_strerror(ret));
    }
}
