/*
 * Fabric, domain and address vector; registration of the symmetric
 * segments; the one-time exchange of endpoint names, bases and keys.
 *
 * Published per PE (job->publish):
 *   "ofi.name": the target endpoint's name (shmt_ofi_name_t)
 *   "ofi.segs": per segment its base, size and remote key (shmt_ofi_seg_t)
 * Remote address of (pe, seg, off): remote base + off, where the remote base
 * is the peer's virtual address with FI_MR_VIRT_ADDR and 0 without.
 *
 * Keys: where the provider lets the application choose (no FI_MR_PROV_KEY),
 * every registration gets a fresh random key of the provider's
 * mr_key_size. On tcp;ofi_rxm and sockets the key is all that stands
 * between a registered segment and anyone who can reach the listening port
 * (docs/security.md, "Fabric keys and what each provider authenticates"): small counters (1, 2, 3) were guessed by a
 * blind fi_write. Peers learn keys only through the boot exchange.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "transports/ofi/ofi_internal.h"

shmt_ofi_t shmt_ofi;

#define SHMT_OFI_NAME_MAX 248

typedef struct shmt_ofi_name {
    uint64_t len;                      /* bytes of name used */
    uint8_t name[SHMT_OFI_NAME_MAX];   /* fi_getname of the target endpoint */
} shmt_ofi_name_t;

typedef struct shmt_ofi_seg {
    uint64_t base; /* virtual address of the segment on its PE */
    uint64_t size; /* bytes; 0 when the PE has no such segment */
    uint64_t key;  /* remote key of the target endpoint's registration */
} shmt_ofi_seg_t;

void shmt_ofi_log_fail(const char *call, int ret)
{
    /* shm maps a region in /dev/shm per endpoint: name the place. */
    int shm_full = ret == -FI_ENOSPC && shmt_ofi.prov &&
                   strcmp(shmt_ofi.prov, "shm") == 0;

    SHMI_LOG(SHMI_LOG_ERROR, "ofi", "%s failed (provider %s): %s%s", call,
             shmt_ofi.prov ? shmt_ofi.prov : "?", shmt_ofi_lib.strerror(-ret),
             shm_full ? " (/dev/shm is full: see `df /dev/shm`; free room or "
                        "use SHMEM_OFI_PROVIDER='tcp;ofi_rxm')"
                      : "");
}

int shmt_ofi_mr_key(uint64_t *key)
{
    size_t bytes = shmt_ofi.info->domain_attr->mr_key_size;
    uint64_t k = 0;
    size_t got = 0;

    if (shmt_ofi.mr_mode & FI_MR_PROV_KEY) {
        *key = 0; /* ignored: the provider chooses */
        return 0;
    }
    while (got < sizeof(k)) {
        ssize_t n = getrandom((char *)&k + got, sizeof(k) - got, 0);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            SHMI_LOG(SHMI_LOG_ERROR, "ofi",
                     "getrandom for a memory registration key (provider "
                     "%s): %s",
                     shmt_ofi.prov, n < 0 ? strerror(errno) : "no bytes");
            return SHMI_EIO;
        }
        got += (size_t)n;
    }
    if (bytes > 0 && bytes < sizeof(k))
        k &= ((uint64_t)1 << (8 * bytes)) - 1;
    /* 0 is what a blind attempt tries first; all ones is FI_KEY_NOTAVAIL. */
    if (k == 0 || k == FI_KEY_NOTAVAIL)
        k = 1;
    *key = k;
    return 0;
}

static int shmt_ofi_mr_reg_keyed(void *base, size_t size, uint64_t access,
                                 struct fid_mr **mr)
{
    int ret = -FI_ENOKEY;

    for (int t = 0; t < SHMT_OFI_KEY_TRIES && ret == -FI_ENOKEY; t++) {
        uint64_t key;

        if (shmt_ofi_mr_key(&key) != 0)
            return -FI_EIO;
        ret = fi_mr_reg(shmt_ofi.domain, base, size, access, 0, key, 0, mr,
                        NULL);
    }
    return ret;
}

int shmt_ofi_mr_one(shmt_ep_t *ep, void *base, size_t size,
                    shmt_ofi_mr_t *out)
{
    uint64_t access = FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    struct fid_mr *mr;
    int ret;

    ret = shmt_ofi_mr_reg_keyed(base, size, access, &mr);
    if (ret) {
        shmt_ofi_log_fail("fi_mr_reg", ret);
        return SHMI_EIO;
    }
    if (shmt_ofi.mr_mode & FI_MR_ENDPOINT) {
        ret = fi_mr_bind(mr, &ep->ep->fid, 0);
        if (ret) {
            shmt_ofi_log_fail("fi_mr_bind", ret);
            goto close_mr;
        }
        ret = fi_mr_enable(mr);
        if (ret) {
            shmt_ofi_log_fail("fi_mr_enable", ret);
            goto close_mr;
        }
    }
    out->mr = mr;
    out->key = fi_mr_key(mr);
    out->desc = (shmt_ofi.mr_mode & FI_MR_LOCAL) ? fi_mr_desc(mr) : NULL;
    return 0;
close_mr:
    fi_close(&mr->fid);
    return SHMI_EIO;
}

int shmt_ofi_mr_register(shmt_ep_t *ep, shmt_ofi_mr_t mr[SHMI_SEG_COUNT])
{
    memset(mr, 0, sizeof(shmt_ofi_mr_t) * SHMI_SEG_COUNT);
    for (int s = 0; s < SHMI_SEG_COUNT; s++) {
        const shmt_seg_t *seg = &shmt_ofi.job->seg[s];
        int ret;

        if (!seg->base || seg->size == 0)
            continue;
        /* The device heap: FI_HMEM registration when possible (ofi_hmem.c). */
        ret = s == SHMI_SEG_DEVICE
                  ? shmt_ofi_hmem_register(ep, &mr[s])
                  : shmt_ofi_mr_one(ep, seg->base, seg->size, &mr[s]);
        if (ret) {
            shmt_ofi_mr_release(mr);
            return ret;
        }
    }
    return 0;
}

void shmt_ofi_mr_release(shmt_ofi_mr_t mr[SHMI_SEG_COUNT])
{
    for (int s = SHMI_SEG_COUNT - 1; s >= 0; s--) {
        if (mr[s].mr)
            fi_close(&mr[s].mr->fid);
        mr[s].mr = NULL;
    }
}

void *shmt_ofi_local_desc(shmt_ep_t *ep, const void *buf, size_t len)
{
    uintptr_t a = (uintptr_t)buf;

    /* FI_MR_HMEM: device buffers need theirs even without FI_MR_LOCAL. */
    if (!(shmt_ofi.mr_mode & (FI_MR_LOCAL | FI_MR_HMEM)))
        return NULL;
    for (int s = 0; s < SHMI_SEG_COUNT; s++) {
        uintptr_t base = (uintptr_t)shmt_ofi.job->seg[s].base;
        size_t size = shmt_ofi.job->seg[s].size;

        if (ep->mr[s].mr && a >= base && a - base <= size &&
            len <= size - (a - base))
            return ep->mr[s].desc;
    }
    return NULL;
}

static int shmt_ofi_open_domain(void)
{
    struct fi_av_attr av_attr = {0};
    int ret;

    ret = shmt_ofi_lib.fabric(shmt_ofi.info->fabric_attr, &shmt_ofi.fabric, NULL);
    if (ret) {
        shmt_ofi_log_fail("fi_fabric", ret);
        return SHMI_EIO;
    }
    ret = fi_domain(shmt_ofi.fabric, shmt_ofi.info, &shmt_ofi.domain, NULL);
    if (ret) {
        shmt_ofi_log_fail("fi_domain", ret);
        return SHMI_EIO;
    }
    av_attr.type = shmt_ofi.info->domain_attr->av_type == FI_AV_UNSPEC
                       ? FI_AV_TABLE
                       : shmt_ofi.info->domain_attr->av_type;
    av_attr.count = (size_t)shmt_ofi.npes;
    ret = fi_av_open(shmt_ofi.domain, &av_attr, &shmt_ofi.av, NULL);
    if (ret) {
        shmt_ofi_log_fail("fi_av_open", ret);
        return SHMI_EIO;
    }
    return 0;
}

static int shmt_ofi_publish(void)
{
    shmt_ofi_name_t name = {0};
    shmt_ofi_seg_t segs[SHMI_SEG_COUNT] = {{0}};
    size_t len = sizeof(name.name);
    int ret;

    ret = fi_getname(&shmt_ofi.target->ep->fid, name.name, &len);
    if (ret) {
        shmt_ofi_log_fail("fi_getname", ret);
        return SHMI_EIO;
    }
    name.len = len;
    for (int s = 0; s < SHMI_SEG_COUNT; s++) {
        if (!shmt_ofi.target->mr[s].mr)
            continue;
        segs[s].base = shmt_ofi_seg_base(s);
        segs[s].size = shmt_ofi.job->seg[s].size;
        segs[s].key = shmt_ofi.target->mr[s].key;
    }
    ret = shmt_ofi.job->publish("ofi.name", &name, sizeof(name));
    if (ret == 0)
        ret = shmt_ofi.job->publish("ofi.segs", segs, sizeof(segs));
    return ret;
}

int shmt_ofi_init(const shmt_job_t *job)
{
    int ret;

    ret = shmt_ofi_lib_load();
    if (ret)
        return ret;
    memset(&shmt_ofi, 0, sizeof(shmt_ofi));
    pthread_mutex_init(&shmt_ofi.eps_lock, NULL);
    shmt_ofi.job = job;
    shmt_ofi.npes = job->size;
    ret = shmt_ofi_provider_choose();
    if (ret)
        return ret;
    shmt_ofi_hmem_caps();
    shmt_ofi_shm_sweep();
    ret = shmt_ofi_open_domain();
    if (ret)
        goto fail;
    if (!(shmt_ofi.mr_mode & FI_MR_ENDPOINT)) {
        ret = shmt_ofi_mr_register(NULL, shmt_ofi.mr);
        if (ret)
            goto fail;
    }
    ret = shmt_ofi_ep_open(&shmt_ofi.target, shmt_ofi.target_writes_on_cq);
    if (ret)
        goto fail;
    ret = shmt_ofi_msg_init();
    if (ret)
        goto fail;
    ret = shmt_ofi_amo_init();
    if (ret)
        goto fail;
    ret = shmt_ofi_publish();
    if (ret)
        goto fail;
    return 0;
fail:
    shmt_ofi_finalize();
    return ret;
}

static int shmt_ofi_alloc_tables(void)
{
    size_t n = (size_t)shmt_ofi.npes;

    shmt_ofi.addr = calloc(n, sizeof(fi_addr_t));
    if (!shmt_ofi.addr)
        return SHMI_ENOMEM;
    for (int s = 0; s < SHMI_SEG_COUNT; s++) {
        shmt_ofi.rkey[s] = calloc(n, sizeof(uint64_t));
        shmt_ofi.rbase[s] = calloc(n, sizeof(uint64_t));
        shmt_ofi.rsize[s] = calloc(n, sizeof(uint64_t));
        if (!shmt_ofi.rkey[s] || !shmt_ofi.rbase[s] || !shmt_ofi.rsize[s])
            return SHMI_ENOMEM;
    }
    return 0;
}

/* Reads pe's published name into names[pe] and its segments into the
 * tables. */
static int shmt_ofi_lookup_pe(int pe, shmt_ofi_name_t *names)
{
    shmt_ofi_seg_t segs[SHMI_SEG_COUNT];
    int ret;

    ret = shmt_ofi.job->lookup(pe, "ofi.name", &names[pe], sizeof(*names));
    if (ret == 0)
        ret = shmt_ofi.job->lookup(pe, "ofi.segs", segs, sizeof(segs));
    if (ret)
        return ret;
    if (names[pe].len == 0 || names[pe].len > SHMT_OFI_NAME_MAX) {
        SHMI_LOG(SHMI_LOG_ERROR, "ofi",
                 "PE %d published an endpoint name of %llu bytes", pe,
                 (unsigned long long)names[pe].len);
        return SHMI_EIO;
    }
    for (int s = 0; s < SHMI_SEG_COUNT; s++) {
        shmt_ofi.rkey[s][pe] = segs[s].key;
        shmt_ofi.rsize[s][pe] = segs[s].size;
        shmt_ofi.rbase[s][pe] =
            (shmt_ofi.mr_mode & FI_MR_VIRT_ADDR) ? segs[s].base : 0;
    }
    return 0;
}

/* 1 when the provider's names are strings (FI_ADDR_STR, as shm's are):
 * an array of them is one NUL-terminated string after the other, whatever
 * the length each was published with. */
static int shmt_ofi_names_are_strings(void)
{
    return shmt_ofi.info->addr_format == FI_ADDR_STR;
}

/* Inserts the names of PEs first..first+n-1 into the address vector in one
 * call, packed one after the other as fi_av_insert takes an array. */
static int shmt_ofi_av_insert(const shmt_ofi_name_t *names, int first, int n,
                              uint8_t *packed)
{
    int strings = shmt_ofi_names_are_strings();
    size_t off = 0;
    int ret;

    for (int i = 0; i < n; i++) {
        const shmt_ofi_name_t *nm = &names[first + i];
        size_t len = strings ? strnlen((const char *)nm->name, nm->len)
                             : nm->len;

        memcpy(packed + off, nm->name, len);
        off += len;
        if (strings)
            packed[off++] = '\0';
    }
    ret = fi_av_insert(shmt_ofi.av, packed, (size_t)n, &shmt_ofi.addr[first],
                       0, NULL);
    if (ret != n) {
        shmt_ofi_log_fail("fi_av_insert", ret < 0 ? ret : -FI_EINVAL);
        return SHMI_EIO;
    }
    return 0;
}

/* Every PE's name and segments, then the names into the address vector:
 * one insertion for all (one per run of names of one length where names
 * are binary, which a provider's names of one format are), rather than one
 * per PE, so that the provider resolves them in bulk. */
static int shmt_ofi_connect_all(void)
{
    int n = shmt_ofi.npes, first = 0, ret = 0;
    int strings = shmt_ofi_names_are_strings();
    shmt_ofi_name_t *names = malloc((size_t)n * sizeof(*names));
    uint8_t *packed = malloc((size_t)n * (SHMT_OFI_NAME_MAX + 1));

    if (!names || !packed)
        ret = SHMI_ENOMEM;
    for (int pe = 0; pe < n && ret == 0; pe++)
        ret = shmt_ofi_lookup_pe(pe, names);
    for (int pe = 1; pe <= n && ret == 0; pe++)
        if (pe == n || (!strings && names[pe].len != names[first].len)) {
            ret = shmt_ofi_av_insert(names, first, pe - first, packed);
            first = pe;
        }
    free(names);
    free(packed);
    return ret;
}

int shmt_ofi_connect(void)
{
    int ret = shmt_ofi_alloc_tables();

    if (ret == 0)
        ret = shmt_ofi_connect_all();
    if (ret == 0)
        ret = shmt_ofi_reach_check();
    if (ret == 0) {
        shmt_ofi.connected = 1;
        shmt_ofi.starting = 1;
    }
    return ret;
}

int shmt_ofi_reachable(int pe, shmi_seg_id_t seg)
{
    if (!shmt_ofi.connected || pe < 0 || pe >= shmt_ofi.npes ||
        seg >= SHMI_SEG_COUNT || shmt_ofi.rsize[seg][pe] == 0)
        return 0;
    /* shm reaches only the PEs of this node. */
    if (strcmp(shmt_ofi.prov, "shm") == 0 && shmt_ofi.job->node_of_pe &&
        shmt_ofi.job->node_of_pe[pe] != shmt_ofi.job->node_id)
        return 0;
    return 1;
}

void shmt_ofi_finalize(void)
{
    shmt_ofi_hmem_finalize();
    while (shmt_ofi.eps)
        shmt_ofi_ep_close(shmt_ofi.eps);
    shmt_ofi.target = NULL;
    shmt_ofi_msg_finalize();
    shmt_ofi_mr_release(shmt_ofi.mr);
    if (shmt_ofi.av)
        fi_close(&shmt_ofi.av->fid);
    if (shmt_ofi.domain)
        fi_close(&shmt_ofi.domain->fid);
    if (shmt_ofi.fabric)
        fi_close(&shmt_ofi.fabric->fid);
    for (int s = 0; s < SHMI_SEG_COUNT; s++) {
        free(shmt_ofi.rkey[s]);
        free(shmt_ofi.rbase[s]);
        free(shmt_ofi.rsize[s]);
    }
    free(shmt_ofi.addr);
    if (shmt_ofi.info)
        shmt_ofi_lib.freeinfo(shmt_ofi.info);
    pthread_mutex_destroy(&shmt_ofi.eps_lock);
    memset(&shmt_ofi, 0, sizeof(shmt_ofi));
}
