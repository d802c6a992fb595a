/*
 * The device transport's data members (device.h): put, get, atomics and
 * put-with-signal where device memory is on either side.
 *
 * Staging. Without FI_HMEM the fabric cannot read or write device memory,
 * so a transfer between a device buffer here and a host segment of a PE
 * reached through the fabric goes through two host bounce buffers of
 * SHMT_DEV_STAGE_CHUNK bytes, locked in memory (pinned) when the system
 * allows it. For a put, chunk k+1 is copied out of the device while the
 * fabric carries chunk k (posted non-blocking); the quiet that follows
 * frees the buffer of chunk k for chunk k+2. A get mirrors it. One lock
 * serialises the bounce buffers between threads; it is always taken before
 * a context's lock (inside the host path's calls), never after.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "services/cpu_ops.h"
#include "services/error.h"
#include "transports/device/device.h"

static struct {
    pthread_mutex_t lock;
    char *buf[2]; /* SHMT_DEV_STAGE_CHUNK bytes each, lazily */
} stage = {.lock = PTHREAD_MUTEX_INITIALIZER};

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
        if (posix_memalign(&p, 4096, SHMT_DEV_STAGE_CHUNK) != 0)
            return SHMI_ENOMEM;
        /* Pinned pages let a GPU's copy engine reach them directly; when
         * the memlock limit forbids it the copies are merely slower. */
        (void)mlock(p, SHMT_DEV_STAGE_CHUNK);
        stage.buf[i] = p;
    }
    return 0;
}

void shmt_dev_path_release(void)
{
    pthread_mutex_lock(&stage.lock);
    for (int i = 0; i < 2; i++) {
        if (stage.buf[i]) {
            munlock(stage.buf[i], SHMT_DEV_STAGE_CHUNK);
            free(stage.buf[i]);
        }
        stage.buf[i] = NULL;
    }
    pthread_mutex_unlock(&stage.lock);
}

static size_t chunk_len(size_t len, size_t done)
{
    return len - done < SHMT_DEV_STAGE_CHUNK ? len - done
                                             : SHMT_DEV_STAGE_CHUNK;
}

/* Device buffer src -> (seg, off) of pe through the fabric. */
static int staged_put(void *owner, int pe, shmi_seg_id_t seg, size_t off,
                      const char *src, size_t len)
{
    const shmi_gpu_ops_t *g = shmt_dev.gpu;
    const shmt_host_t *h = shmt_dev.host;
    size_t done = 0, n = chunk_len(len, 0);
    int k = 0, ret;

    pthread_mutex_lock(&stage.lock);
    ret = stage_buffers();
    if (ret == 0)
        ret = g->copy(stage.buf[0], src, n, SHMI_GPU_D2H);
    while (ret == 0 && done < len) {
        size_t next = done + n, nn = next < len ? chunk_len(len, next) : 0;

        ret = h->fabric_put(owner, pe, seg, off + done, stage.buf[k], n, 1);
        if (ret == 0 && nn > 0)
            ret = g->copy(stage.buf[k ^ 1], src + next, nn, SHMI_GPU_D2H);
        if (ret == 0)
            ret = h->fabric_quiet(owner, pe);
        done = next;
        n = nn;
        k ^= 1;
    }
    pthread_mutex_unlock(&stage.lock);
    return ret;
}

/* (seg, off) of pe -> device buffer dst through the fabric. */
static int staged_get(void *owner, int pe, shmi_seg_id_t seg, size_t off,
                      char *dst, size_t len)
{
    const shmi_gpu_ops_t *g = shmt_dev.gpu;
    const shmt_host_t *h = shmt_dev.host;
    size_t done = 0, n = chunk_len(len, 0);
    int k = 0, ret;

    pthread_mutex_lock(&stage.lock);
    ret = stage_buffers();
    if (ret == 0)
        ret = h->fabric_get(owner, pe, seg, off, stage.buf[0], n, 1);
    while (ret == 0 && done < len) {
        size_t next = done + n, nn = next < len ? chunk_len(len, next) : 0;

        ret = h->fabric_quiet(owner, pe);
        if (ret == 0 && nn > 0)
            ret = h->fabric_get(owner, pe, seg, off + next, stage.buf[k ^ 1],
                                nn, 1);
        if (ret == 0)
            ret = g->copy(dst + done, stage.buf[k], n, SHMI_GPU_H2D);
        done = next;
        n = nn;
        k ^= 1;
    }
    if (ret != 0 && n > 0)
        (void)h->fabric_quiet(owner, pe); /* nothing left in flight */
    pthread_mutex_unlock(&stage.lock);
    return ret;
}

/* Copy direction between a host or device buffer and device memory. */
static shmi_gpu_copy_t dir_to_device(const void *src, size_t len)
{
    return shmt_dev_touches(src, len) ? SHMI_GPU_D2D : SHMI_GPU_H2D;
}

static shmi_gpu_copy_t dir_from_device(const void *dst, size_t len)
{
    return shmt_dev_touches(dst, len) ? SHMI_GPU_D2D : SHMI_GPU_D2H;
}

/* A local buffer the fabric cannot be handed: device memory outside the
 * registered own heap, or any device memory when the registration is a
 * separate view. */
static int must_stage(const void *buf, size_t len)
{
    return shmt_dev_touches(buf, len) &&
           !(shmt_dev.fabric_direct && shmt_dev_contains(buf));
}

static int put_to_device(void *owner, int pe, size_t off, const void *src,
                         size_t len, int nbi)
{
    char *pd = shmt_dev_peer_ptr(pe, off);

    switch (shmt_dev_route(pe)) {
    case SHMT_DEV_IPC:
        return shmt_dev.gpu->copy(pd, src, len, dir_to_device(src, len));
    case SHMT_DEV_FABRIC:
        if (must_stage(src, len))
            return staged_put(owner, pe, SHMI_SEG_DEVICE, off, src, len);
        return shmt_dev.host->fabric_put(owner, pe, SHMI_SEG_DEVICE, off, src,
                                         len, nbi);
    case SHMT_DEV_SERVICE: return shmt_dev_svc_put(owner, pe, off, src, len);
    default: return SHMI_ENOTSUP;
    }
}

int shmt_dev_put(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                 const void *src, size_t len, int nbi)
{
    void *owner = shmt_dev_owner(ep);
    void *p;

    if (len == 0)
        return 0;
    if (!shmt_dev.gpu)
        return SHMI_ENODEV;
    if (seg == SHMI_SEG_DEVICE)
        return put_to_device(owner, pe, off, src, len, nbi);
    /* A device buffer here, a host segment there. */
    p = shmt_dev.host->mapped(pe, seg, off);
    if (!shmt_dev_touches(src, len)) { /* nothing on a device after all */
        if (p) {
            memcpy(p, src, len);
            return 0;
        }
        return shmt_dev.host->fabric_put(owner, pe, seg, off, src, len, nbi);
    }
    if (p)
        return shmt_dev.gpu->copy(p, src, len, SHMI_GPU_D2H);
    if (!shmt_dev.host->fabric_up)
        return SHMI_ENOTSUP;
    return staged_put(owner, pe, seg, off, src, len);
}

static int get_from_device(void *owner, int pe, size_t off, void *dst,
                           size_t len, int nbi)
{
    char *pd = shmt_dev_peer_ptr(pe, off);

    switch (shmt_dev_route(pe)) {
    case SHMT_DEV_IPC:
        return shmt_dev.gpu->copy(dst, pd, len, dir_from_device(dst, len));
    case SHMT_DEV_FABRIC:
        if (must_stage(dst, len))
            return staged_get(owner, pe, SHMI_SEG_DEVICE, off, dst, len);
        return shmt_dev.host->fabric_get(owner, pe, SHMI_SEG_DEVICE, off, dst,
                                         len, nbi);
    case SHMT_DEV_SERVICE: return shmt_dev_svc_get(owner, pe, off, dst, len);
    default: return SHMI_ENOTSUP;
    }
}

int shmt_dev_get(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                 void *dst, size_t len, int nbi)
{
    void *owner = shmt_dev_owner(ep);
    void *p;

    if (len == 0)
        return 0;
    if (!shmt_dev.gpu)
        return SHMI_ENODEV;
    if (seg == SHMI_SEG_DEVICE)
        return get_from_device(owner, pe, off, dst, len, nbi);
    p = shmt_dev.host->mapped(pe, seg, off);
    if (!shmt_dev_touches(dst, len)) {
        if (p) {
            memcpy(dst, p, len);
            return 0;
        }
        return shmt_dev.host->fabric_get(owner, pe, seg, off, dst, len, nbi);
    }
    if (p)
        return shmt_dev.gpu->copy(dst, p, len, SHMI_GPU_H2D);
    if (!shmt_dev.host->fabric_up)
        return SHMI_ENOTSUP;
    return staged_get(owner, pe, seg, off, dst, len);
}

int shmt_dev_amo(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                 shmi_amo_op_t op, shmi_dtype_t dt, const void *operand,
                 const void *compare, void *fetched, int nbi)
{
    const shmt_host_t *h = shmt_dev.host;
    void *owner = shmt_dev_owner(ep);
    char *pd;
    int ret;

    if (!shmt_dev.gpu)
        return SHMI_ENODEV;
    if (seg != SHMI_SEG_DEVICE)
        return SHMI_EINVAL;
    pd = shmt_dev_peer_ptr(pe, off);
    /* One engine per word (docs/design.md, decision 6). NIC atomics on
     * device memory serve every PE, this one included. */
    if (!shmt_dev.cpu_atomics && shmt_dev_fabric_reaches(pe) &&
        !shmt_dev_svc_all())
        return h->fabric_amo(owner, pe, seg, off, op, dt, operand, compare,
                             fetched, nbi);
    /* Without device atomics the owner's service lock is the engine: the
     * owner's own atomics take it, everybody else's are its requests. */
    if (shmt_dev_svc_rmw())
        return pe == shmt_dev.job->rank
                   ? shmt_dev_svc_amo_local(pd, op, dt, operand, compare,
                                            fetched)
                   : shmt_dev_svc_amo(owner, pe, off, op, dt, operand, compare,
                                      fetched);
    switch (shmt_dev_route(pe)) {
    case SHMT_DEV_IPC:
        ret = shmt_dev.gpu->atomic(pd, op, dt, operand, compare, fetched);
        return ret == SHMI_ENOTSUP ? SHMI_ENOSYS : ret;
    case SHMT_DEV_FABRIC:
        return h->fabric_amo(owner, pe, seg, off, op, dt, operand, compare,
                             fetched, nbi);
    case SHMT_DEV_SERVICE:
        return shmt_dev_svc_amo(owner, pe, off, op, dt, operand, compare,
                                fetched);
    default: return SHMI_ENOTSUP;
    }
}

/* The signal, after the data is remotely complete. */
static int send_signal(shmt_ep_t *ep, int pe, shmi_seg_id_t sig_seg,
                       size_t sig_off, uint64_t signal, shmi_amo_op_t op)
{
    const shmt_host_t *h = shmt_dev.host;
    uint64_t *s;

    if (sig_seg == SHMI_SEG_DEVICE)
        return shmt_dev_amo(ep, pe, sig_seg, sig_off, op, SHMI_DT_UINT64,
                            &signal, NULL, NULL, 0);
    s = h->mapped(pe, sig_seg, sig_off);
    if (s && shmt_dev.cpu_atomics) {
        shmi_cpu_signal(s, signal, op == SHMI_AMO_ADD);
        return 0;
    }
    return h->fabric_amo(shmt_dev_owner(ep), pe, sig_seg, sig_off, op,
                         SHMI_DT_UINT64, &signal, NULL, NULL, 0);
}

int shmt_dev_put_signal(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                        const void *src, size_t len, shmi_seg_id_t sig_seg,
                        size_t sig_off, uint64_t signal, shmi_amo_op_t sig_op,
                        int nbi)
{
    int ret;

    (void)nbi; /* the data must be complete before the signal anyway */
    if (sig_op != SHMI_AMO_SET && sig_op != SHMI_AMO_ADD)
        return SHMI_EINVAL;
    ret = shmt_dev_put(ep, pe, seg, off, src, len, 0);
    if (ret != 0)
        return ret;
    /* Back-end copies are synchronous; a fabric put is remotely complete
     * only after quiet. */
    if (shmt_dev.host->fabric_up && len > 0) {
        ret = shmt_dev.host->fabric_quiet(shmt_dev_owner(ep), pe);
        if (ret != 0)
            return ret;
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return send_signal(ep, pe, sig_seg, sig_off, signal, sig_op);
}
