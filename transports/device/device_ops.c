/*
 * The device transport's set-up (device.h): the IPC export of this PE's
 * device heap and the import of those of this node's PEs, the path chosen
 * for each PE's device heap, the device service's start and stop, and
 * shmt_device_ops itself.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "services/env.h"
#include "services/error.h"
#include "transports/device/device.h"

/* The bootstrap key of each PE's IPC export. */
#define SHMT_DEV_IPC_KEY "device.ipc"

shmt_dev_t shmt_dev;

/* What each PE publishes: its export of the device heap, if the back end
 * could make one. */
typedef struct shmt_dev_ipc {
    uint64_t size;
    int32_t ok;
    int32_t pad;
    shmi_gpu_ipc_t ipc;
} shmt_dev_ipc_t;

/* [npes]: how each PE's device heap is reached, and whether the fabric
 * reaches it; set by connect. */
static shmt_dev_route_t *routes;
static unsigned char *fabric_reach;

char *shmt_dev_peer_ptr(int pe, size_t off)
{
    if (!shmt_dev.peer || pe < 0 || pe >= shmt_dev.job->size ||
        off >= shmt_dev.size || !shmt_dev.peer[pe])
        return NULL;
    return shmt_dev.peer[pe] + off;
}

int shmt_dev_contains(const void *ptr)
{
    uintptr_t a = (uintptr_t)ptr, base = (uintptr_t)shmt_dev.base;

    return shmt_dev.base && a >= base && a - base < shmt_dev.size;
}

int shmt_dev_touches(const void *addr, size_t len)
{
    const char *a = addr;

    if (!shmt_dev.gpu || !a || len == 0)
        return 0;
    if (shmt_dev_contains(a) || shmt_dev_contains(a + len - 1))
        return 1;
    return shmt_dev.gpu->is_device(a) || shmt_dev.gpu->is_device(a + len - 1);
}

shmt_dev_route_t shmt_dev_route(int pe)
{
    return routes && pe >= 0 && pe < shmt_dev.job->size ? routes[pe]
                                                        : SHMT_DEV_NONE;
}

int shmt_dev_fabric_reaches(int pe)
{
    return fabric_reach && pe >= 0 && pe < shmt_dev.job->size &&
           fabric_reach[pe];
}

static shmt_init_fn shmt_dev_init;
static shmt_connect_fn shmt_dev_connect;
static shmt_finalize_fn shmt_dev_finalize;
static shmt_reachable_fn shmt_dev_reachable;
static shmt_caps_fn shmt_dev_caps;
static shmt_mapped_base_fn shmt_dev_mapped_base;
static shmt_ep_create_fn shmt_dev_ep_create;
static shmt_ep_destroy_fn shmt_dev_ep_destroy;

/* Runs where this PE has a device heap; publishes its IPC export. */
static int shmt_dev_init(const shmt_job_t *job)
{
    const shmt_seg_t *d = &job->seg[SHMI_SEG_DEVICE];
    shmt_dev_ipc_t x;

    if (job->gpu == NULL || d->size == 0 || job->host == NULL)
        return SHMI_ENODEV;
    memset(&shmt_dev, 0, sizeof(shmt_dev));
    shmt_dev.job = job;
    shmt_dev.gpu = job->gpu;
    shmt_dev.host = job->host;
    shmt_dev.base = d->base;
    shmt_dev.size = d->size;
    /* A fabric that registers the heap itself (not another view of it)
     * may be handed a local buffer in it as it is. */
    shmt_dev.fabric_direct = d->reg_base == d->base && d->mem != SHMI_MEM_HOST;
    memset(&x, 0, sizeof(x));
    x.size = d->size;
    x.ok = job->gpu->ipc_export(d->base, d->size, &x.ipc) == 0;
    return job->publish(SHMT_DEV_IPC_KEY, &x, sizeof(x));
}

static void shmt_dev_import(int pe)
{
    shmt_dev_ipc_t x;
    void *p = NULL;
    int ret = shmt_dev.job->lookup(pe, SHMT_DEV_IPC_KEY, &x, sizeof(x));

    if (ret == 0 && (!x.ok || x.size != shmt_dev.size))
        ret = SHMI_ENOTSUP;
    if (ret == 0)
        ret = shmt_dev.gpu->ipc_import(&x.ipc, shmt_dev.size, &p);
    if (ret != 0) {
        SHMI_LOG(SHMI_LOG_WARN, "gpu",
                 "cannot map the device heap of PE %d (same node): %s; "
                 "device RMA to it goes through its device service where "
                 "one runs, else fails",
                 pe, shmi_strerror(ret));
        return;
    }
    shmt_dev.peer[pe] = p;
    shmt_dev.imported[pe] = 1;
}

/* The path to pe's device heap: the own heap and the IPC mappings of this
 * node's PEs first, where the host path reaches pe's host heap by load and
 * store too (not with SHMEM_LOCAL=0, nor from or to a PE of
 * SHMEM_LOCAL_OFF_PES: device heaps follow the host heap, as the fabric
 * reaches them) and without SHMEM_DEVICE_SERVICE=all; then the fabric
 * where it reaches the heap, then the owner's service; an IPC mapping
 * last. */
static shmt_dev_route_t shmt_dev_choose(int pe)
{
    const shmt_host_t *h = shmt_dev.host;
    int all = shmt_dev_svc_all();
    int local = h->mapped(pe, SHMI_SEG_HEAP, 0) != NULL;
    int ipc = shmt_dev.peer[pe] != NULL;

    if (ipc && (pe == shmt_dev.job->rank || (local && !all)))
        return SHMT_DEV_IPC;
    if (fabric_reach[pe] && !all)
        return SHMT_DEV_FABRIC;
    if (shmt_dev_svc_up())
        return SHMT_DEV_SERVICE;
    return ipc ? SHMT_DEV_IPC : SHMT_DEV_NONE;
}

/* The PEs of this node always map each other's device heaps, even with
 * SHMEM_LOCAL=0 (which concerns the host segments): the fabric cannot
 * reach device memory without FI_HMEM. */
static int shmt_dev_connect(void)
{
    const shmt_job_t *job = shmt_dev.job;
    int ret;

    shmt_dev.peer = calloc((size_t)job->size, sizeof(char *));
    shmt_dev.imported = calloc((size_t)job->size, sizeof(int));
    routes = calloc((size_t)job->size, sizeof(*routes));
    fabric_reach = calloc((size_t)job->size, 1);
    if (!shmt_dev.peer || !shmt_dev.imported || !routes || !fabric_reach)
        return SHMI_ENOMEM;
    shmt_dev.cpu_atomics = shmt_dev.host->cpu_atomics();
    for (int pe = 0; pe < job->size; pe++)
        fabric_reach[pe] =
            (unsigned char)shmt_dev.host->fabric_reaches(pe, SHMI_SEG_DEVICE);
    shmt_dev.peer[job->rank] = shmt_dev.base;
    for (int i = 0; i < job->local_size; i++)
        if (job->local_pes[i] != job->rank)
            shmt_dev_import(job->local_pes[i]);
    ret = shmt_dev_svc_connect();
    if (ret != 0)
        return ret;
    for (int pe = 0; pe < job->size; pe++)
        routes[pe] = shmt_dev_choose(pe);
    return 0;
}

static void shmt_dev_finalize(void)
{
    shmt_dev_svc_stop();
    shmt_dev_path_release();
    for (int pe = 0; shmt_dev.peer && pe < shmt_dev.job->size; pe++)
        if (shmt_dev.imported[pe])
            shmt_dev.gpu->ipc_close(shmt_dev.peer[pe], shmt_dev.size);
    free(shmt_dev.peer);
    free(shmt_dev.imported);
    free(routes);
    free(fabric_reach);
    routes = NULL;
    fabric_reach = NULL;
    memset(&shmt_dev, 0, sizeof(shmt_dev));
}

static int shmt_dev_reachable(int pe, shmi_seg_id_t seg)
{
    return seg == SHMI_SEG_DEVICE && shmt_dev_route(pe) != SHMT_DEV_NONE;
}

static void *shmt_dev_mapped_base(int pe, shmi_seg_id_t seg)
{
    return seg == SHMI_SEG_DEVICE ? shmt_dev_peer_ptr(pe, 0) : NULL;
}

static int shmt_dev_ep_create(long options, void *owner, shmt_ep_t **ep)
{
    shmt_dev_ep_t *e = malloc(sizeof(*e));

    (void)options;
    if (e == NULL)
        return SHMI_ENOMEM;
    e->owner = owner;
    *ep = (shmt_ep_t *)e;
    return 0;
}

static void shmt_dev_ep_destroy(shmt_ep_t *ep)
{
    free(ep);
}

/* Its endpoints hold no state but their owner, and its locks are taken
 * before the owner's context lock (which the host path takes): the core
 * must not hold that lock around its calls. */
static unsigned shmt_dev_caps(void)
{
    return SHMT_CAP_HMEM | SHMT_CAP_EP_SHARED;
}

static const shmt_rma_ops_t shmt_dev_rma = {
    .size = sizeof(shmt_rma_ops_t),
    .put = shmt_dev_put,
    .get = shmt_dev_get,
    .put_signal = shmt_dev_put_signal,
};

static const shmt_atomic_ops_t shmt_dev_atomic = {
    .size = sizeof(shmt_atomic_ops_t),
    .amo = shmt_dev_amo,
};

/* No ordering part: every operation is complete on return but for the
 * fabric's puts, which travel on the owner's fabric endpoint and complete
 * at its quiet (the core quiets every transport of a context). */
const shmt_ops_t shmt_device_ops = {
    .size = sizeof(shmt_ops_t),
    .name = "device",
    .kind = SHMT_KIND_DEVICE,
    .init = shmt_dev_init,
    .connect = shmt_dev_connect,
    .finalize = shmt_dev_finalize,
    .reachable = shmt_dev_reachable,
    .caps = shmt_dev_caps,
    .ep_create = shmt_dev_ep_create,
    .ep_destroy = shmt_dev_ep_destroy,
    .mapped_base = shmt_dev_mapped_base,
    .rma = &shmt_dev_rma,
    .atomic = &shmt_dev_atomic,
};
