/*
 * The device heap (SHMI_SEG_DEVICE) and the fabric: FI_HMEM registration.
 *
 * The core describes the segment in the job (transports/transport.h,
 * shmt_seg_t): the address a fabric may register (reg_base; NULL: none)
 * and what memory it is (SHMI_MEM_HOST, _CUDA, _ROCM), which this file
 * turns into libfabric's FI_HMEM_* interface. A provider reaches GPU
 * memory when it offers FI_HMEM (cxi; shm with GPU IPC in recent
 * libfabric) and fi_mr_regattr accepts the heap with that interface.
 * Debian's libfabric 1.17 has no CUDA or ROCr support: its providers offer
 * no FI_HMEM, the device heap is simply not published, reachable(pe,
 * SHMI_SEG_DEVICE) is 0 and the device path falls back on the owner's
 * device service. A segment described as host memory (a view of device
 * memory that a NIC reaches as host memory) is registered like the host
 * segments. A failed registration is never fatal.
 *
 * Only a provider with FI_HMEM is handed device memory: some (sockets)
 * accept any attr.iface without looking at it.
 */
#include "config.h"

#include <string.h>
#include <sys/uio.h>

#include "transports/ofi/ofi_internal.h"

/* The address registered for the own device heap (0: none), published in
 * place of the device address: a view of it may differ from it. */
static uint64_t hmem_base;

/* libfabric's name for a kind of memory. */
static enum fi_hmem_iface hmem_iface(shmi_mem_kind_t kind)
{
    switch (kind) {
    case SHMI_MEM_CUDA: return FI_HMEM_CUDA;
    case SHMI_MEM_ROCM: return FI_HMEM_ROCR;
    default: return FI_HMEM_SYSTEM;
    }
}

/* Asks again for the chosen provider with FI_HMEM when the device heap is
 * GPU memory a NIC may be handed; keeps the first answer when it is
 * refused. */
void shmt_ofi_hmem_caps(void)
{
    const shmt_seg_t *d = &shmt_ofi.job->seg[SHMI_SEG_DEVICE];
    struct fi_info *hints, *list = NULL;
    int ret;

    if (d->size == 0 || d->reg_base == NULL || d->mem == SHMI_MEM_HOST ||
        (shmt_ofi.info->caps & FI_HMEM))
        return;
    hints = shmt_ofi_lib.dupinfo(shmt_ofi.info);
    if (!hints)
        return;
    hints->caps |= FI_HMEM;
    hints->domain_attr->mr_mode |= FI_MR_HMEM;
    ret =
        shmt_ofi_lib.getinfo(SHMT_OFI_FI_VERSION, NULL, NULL, 0, hints, &list);
    if (ret == 0 && list &&
        strcmp(list->fabric_attr->prov_name, shmt_ofi.prov) == 0) {
        struct fi_info *info = shmt_ofi_lib.dupinfo(list);

        if (info) {
            shmt_ofi_lib.freeinfo(shmt_ofi.info);
            shmt_ofi.info = info;
            shmt_ofi.prov = info->fabric_attr->prov_name;
            shmt_ofi.mr_mode = (uint64_t)info->domain_attr->mr_mode;
        }
    } else {
        SHMI_LOG(SHMI_LOG_DEBUG, "ofi",
                 "provider %s offers no FI_HMEM: device data goes through "
                 "the device service",
                 shmt_ofi.prov);
    }
    if (list)
        shmt_ofi_lib.freeinfo(list);
    shmt_ofi_lib.freeinfo(hints);
}

static int hmem_bind(shmt_ep_t *ep, struct fid_mr *mr)
{
    int ret;

    if (!(shmt_ofi.mr_mode & FI_MR_ENDPOINT))
        return 0;
    ret = fi_mr_bind(mr, &ep->ep->fid, 0);
    if (ret == 0)
        ret = fi_mr_enable(mr);
    return ret;
}

/* fi_mr_regattr of [addr, addr+size) as memory of interface iface on GPU
 * device, with a random requested key (shmt_ofi_mr_key), another when one
 * is taken. */
static int hmem_regattr(void *addr, size_t size, enum fi_hmem_iface iface,
                        int device, struct fid_mr **mr)
{
    struct iovec iov = {addr, size};
    struct fi_mr_attr attr;
    int ret = -FI_ENOKEY;

    memset(&attr, 0, sizeof(attr));
    attr.mr_iov = &iov;
    attr.iov_count = 1;
    attr.access = FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    attr.iface = iface;
    if (iface != FI_HMEM_SYSTEM)
        attr.device.cuda = device; /* rocr ignores it */
    for (int t = 0; t < SHMT_OFI_KEY_TRIES && ret == -FI_ENOKEY; t++) {
        if (shmt_ofi_mr_key(&attr.requested_key) != 0)
            return -FI_EIO;
        ret = fi_mr_regattr(shmt_ofi.domain, &attr, 0, mr);
    }
    return ret;
}

int shmt_ofi_hmem_register(shmt_ep_t *ep, shmt_ofi_mr_t *out)
{
    const shmt_seg_t *d = &shmt_ofi.job->seg[SHMI_SEG_DEVICE];
    enum fi_hmem_iface iface = hmem_iface(d->mem);
    struct fid_mr *mr;
    int ret;

    memset(out, 0, sizeof(*out));
    if (d->size == 0 || d->reg_base == NULL)
        return 0;
    /* Without FI_HMEM a provider cannot take device memory. */
    if (iface != FI_HMEM_SYSTEM && !(shmt_ofi.info->caps & FI_HMEM)) {
        SHMI_LOG(SHMI_LOG_DEBUG, "ofi",
                 "provider %s offers no FI_HMEM: the device heap is not "
                 "registered, device data goes through the device service",
                 shmt_ofi.prov);
        return 0;
    }
    ret = hmem_regattr(d->reg_base, d->size, iface, d->device, &mr);
    if (ret) {
        SHMI_LOG(ret == -FI_ENOSYS || ret == -FI_EOPNOTSUPP ? SHMI_LOG_DEBUG
                                                            : SHMI_LOG_WARN,
                 "ofi",
                 "device heap not registered with %s (fi_mr_regattr: %s): "
                 "device data goes through the device service",
                 shmt_ofi.prov, shmt_ofi_lib.strerror(-ret));
        return 0;
    }
    ret = hmem_bind(ep, mr);
    if (ret) {
        shmt_ofi_log_fail("fi_mr_bind (device heap)", ret);
        fi_close(&mr->fid);
        return 0;
    }
    out->mr = mr;
    out->key = fi_mr_key(mr);
    out->desc =
        (shmt_ofi.mr_mode & (FI_MR_LOCAL | FI_MR_HMEM)) ? fi_mr_desc(mr) : NULL;
    hmem_base = (uint64_t)(uintptr_t)d->reg_base;
    return 0;
}

uint64_t shmt_ofi_seg_base(int seg)
{
    if (seg == SHMI_SEG_DEVICE)
        return hmem_base;
    return (uint64_t)(uintptr_t)shmt_ofi.job->seg[seg].base;
}

void shmt_ofi_hmem_finalize(void)
{
    hmem_base = 0;
}
