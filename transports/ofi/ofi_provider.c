/*
 * Which libfabric provider Weft uses, and what it asks of it.
 *
 * Order (docs/design.md, decision 5): SHMEM_OFI_PROVIDER, else libfabric's own
 * FI_PROVIDER (fi_getinfo filters by it), else by preference: cxi, shm when
 * every PE is on one node, tcp;ofi_rxm, sockets, then whatever else offers
 * what we need. The hints ask for every MR mode bit the code obeys; the rest
 * of the transport reads what came back in shmt_ofi.mr_mode.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "services/env.h"
#include "transports/ofi/ofi_internal.h"

/* Providers in order of preference; "shm" only for single-node jobs. */
static const char *const shmt_ofi_preference[] = {
    "cxi", "shm", "tcp;ofi_rxm", "sockets",
};

/* Providers that offer what the hints ask for but fail at it: ofi_rxd
 * (udp;ofi_rxd) of libfabric 1.17 crashes or hangs in atomics. */
static const char *const shmt_ofi_broken[] = {"ofi_rxd"};

/* The broken component of a provider name ("udp;ofi_rxd"), or NULL. */
static const char *shmt_ofi_broken_part(const char *name)
{
    size_t n = sizeof(shmt_ofi_broken) / sizeof(shmt_ofi_broken[0]);

    for (const char *p = name; *p;) {
        size_t len = strcspn(p, ";");

        for (size_t i = 0; i < n; i++)
            if (strlen(shmt_ofi_broken[i]) == len &&
                strncmp(p, shmt_ofi_broken[i], len) == 0)
                return shmt_ofi_broken[i];
        p += len + (p[len] == ';');
    }
    return NULL;
}

/* Free bytes in /dev/shm below which libfabric's shm provider declines to
 * offer itself (1.17 on this tree's CI: it answers fi_getinfo with ENOSPC
 * at 28 MiB free and works at 32 MiB; each endpoint then maps a 16 MiB
 * region there). */
#define SHMT_OFI_SHM_MIN_FREE ((unsigned long long)32 << 20)

/* Whether the provider list `name` ("shm", "shm;...") has a component
 * `part`. */
static int shmt_ofi_names(const char *name, const char *part)
{
    size_t n = strlen(part);

    for (const char *p = name; p && *p;) {
        size_t len = strcspn(p, ";");

        if (len == n && strncmp(p, part, n) == 0)
            return 1;
        p += len + (p[len] == ';');
    }
    return 0;
}

/* When the provider asked for by `var`=`name` is shm and /dev/shm is too
 * full for it, says so (instead of "no usable provider") and returns 1. */
static int shmt_ofi_shm_full(const char *var, const char *name)
{
    struct statvfs vfs;
    unsigned long long avail;

    if (!name || !shmt_ofi_names(name, "shm") ||
        statvfs("/dev/shm", &vfs) != 0)
        return 0;
    avail = (unsigned long long)vfs.f_bavail * vfs.f_frsize;
    if (avail >= SHMT_OFI_SHM_MIN_FREE)
        return 0;
    SHMI_LOG(SHMI_LOG_ERROR, "ofi",
             "%s=%s: the libfabric shm provider does not start because "
             "/dev/shm is full (%llu bytes free; it wants %llu MiB free, and "
             "16 MiB per endpoint of every PE). See `df /dev/shm` and "
             "`ls -l /dev/shm`: remove what dead jobs left there, make "
             "/dev/shm larger (containers: --shm-size), or use "
             "SHMEM_OFI_PROVIDER='tcp;ofi_rxm' or SHMEM_LOCAL=1",
             var, name, avail, SHMT_OFI_SHM_MIN_FREE >> 20);
    return 1;
}

static struct fi_info *shmt_ofi_hints(const char *prov)
{
    struct fi_info *h = shmt_ofi_lib.dupinfo(NULL);

    if (!h)
        return NULL;
    /* FI_MSG: the collectives' signals by message (ofi_msg.c). */
    h->caps = FI_RMA | FI_ATOMIC | FI_READ | FI_WRITE | FI_REMOTE_READ |
              FI_REMOTE_WRITE | FI_MSG | FI_SEND | FI_RECV;
    h->mode = 0; /* we pass no per-operation contexts */
    h->addr_format = FI_FORMAT_UNSPEC;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR |
                              FI_MR_ALLOCATED | FI_MR_PROV_KEY |
                              FI_MR_ENDPOINT;
    h->domain_attr->threading = FI_THREAD_SAFE; /* see ofi_internal.h */
    h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    h->domain_attr->av_type = FI_AV_TABLE;
    h->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    if (prov && prov[0]) {
        h->fabric_attr->prov_name = strdup(prov);
        if (!h->fabric_attr->prov_name)
            goto fail;
    }
    /* SHMEM_OFI_DOMAIN is not a hint: tcp and sockets ignore a domain
     * name they do not have and return their own (shmt_ofi_domain_only). */
    return h;
fail:
    shmt_ofi_lib.freeinfo(h);
    return NULL;
}

/* Writes the distinct provider names libfabric offers (for any endpoint
 * type) into buf, comma separated. */
static void shmt_ofi_list_providers(char *buf, size_t len)
{
    struct fi_info *list = NULL;
    size_t used = 0;

    buf[0] = '\0';
    if (shmt_ofi_lib.getinfo(SHMT_OFI_FI_VERSION, NULL, NULL, 0, NULL, &list) != 0) {
        snprintf(buf, len, "(none)");
        return;
    }
    for (struct fi_info *i = list; i; i = i->next) {
        const char *name = i->fabric_attr->prov_name;
        int seen = 0;

        for (struct fi_info *j = list; j != i; j = j->next)
            seen |= strcmp(j->fabric_attr->prov_name, name) == 0;
        if (seen || used + strlen(name) + 3 > len)
            continue;
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 used ? ", " : "", name);
    }
    shmt_ofi_lib.freeinfo(list);
}

/* Writes the distinct domain names of list into buf, comma separated. */
static void shmt_ofi_list_domains(const struct fi_info *list, char *buf,
                                  size_t len)
{
    size_t used = 0;

    snprintf(buf, len, "(none)");
    for (const struct fi_info *i = list; i; i = i->next) {
        const char *name = i->domain_attr->name ? i->domain_attr->name : "?";
        int seen = 0;

        for (const struct fi_info *j = list; j != i; j = j->next)
            seen |= j->domain_attr->name &&
                    strcmp(j->domain_attr->name, name) == 0;
        if (seen || used + strlen(name) + 3 > len)
            continue;
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 used ? ", " : "", name);
    }
}

static int shmt_ofi_domain_is(const struct fi_info *i, const char *name)
{
    return i->domain_attr->name && strcmp(i->domain_attr->name, name) == 0;
}

/* Keeps in *list only the entries of domain SHMEM_OFI_DOMAIN (all when it
 * is empty). SHMI_EINVAL, with a message at `level` naming the variable
 * and the domains there are, when none is left (*list is then untouched). */
static int shmt_ofi_domain_only(struct fi_info **list, int level,
                                const char *consequence)
{
    const char *want = shmi_env.OFI_DOMAIN;
    struct fi_info *keep = NULL, **tail = &keep, *next;
    char found[256];
    int any = 0;

    if (!want[0])
        return 0;
    for (struct fi_info *i = *list; i; i = i->next)
        any |= shmt_ofi_domain_is(i, want);
    if (!any) {
        shmt_ofi_list_domains(*list, found, sizeof(found));
        SHMI_LOG(level, "ofi",
                 "SHMEM_OFI_DOMAIN=%s: libfabric has no domain of that name%s%s;"
                 " domains found: %s (fi_info lists them)%s",
                 want, shmi_env.OFI_PROVIDER[0] ? " for provider " : "",
                 shmi_env.OFI_PROVIDER, found, consequence);
        return SHMI_EINVAL;
    }
    for (struct fi_info *i = *list; i; i = next) {
        next = i->next;
        i->next = NULL;
        if (shmt_ofi_domain_is(i, want)) {
            *tail = i;
            tail = &i->next;
        } else {
            shmt_ofi_lib.freeinfo(i);
        }
    }
    *list = keep;
    return 0;
}

/* Rank of a provider name in the preference list (lower is better); -1 when
 * it must not be used here. */
static int shmt_ofi_rank(const char *name)
{
    size_t n = sizeof(shmt_ofi_preference) / sizeof(shmt_ofi_preference[0]);

    for (size_t r = 0; r < n; r++) {
        if (strcmp(name, shmt_ofi_preference[r]) != 0)
            continue;
        if (strcmp(name, "shm") == 0 && shmt_ofi.job->n_nodes > 1)
            return -1;
        return (int)r;
    }
    /* shm reaches only this node; anything else unknown comes last. */
    if (strcmp(name, "shm") == 0 || shmt_ofi_broken_part(name))
        return -1;
    return (int)n;
}

static struct fi_info *shmt_ofi_pick(struct fi_info *list)
{
    struct fi_info *best = NULL;
    int best_rank = 0;

    for (struct fi_info *i = list; i; i = i->next) {
        int r = shmt_ofi_rank(i->fabric_attr->prov_name);

        if (r >= 0 && (!best || r < best_rank)) {
            best = i;
            best_rank = r;
        }
    }
    return best;
}

/* On one node, tcp and sockets would otherwise pick the first interface
 * (eth0): prefer loopback unless the user chose. */
static void shmt_ofi_prefer_loopback(void)
{
    if (shmt_ofi.job->n_nodes != 1 || shmi_env.OFI_DOMAIN[0])
        return;
    setenv("FI_TCP_IFACE", "lo", 0);
    setenv("FI_SOCKETS_IFACE", "lo", 0);
}

/*
 * Whether a write and a later write or atomic to the same peer are applied
 * in that order, the data of the first placed before the second is (message
 * and data ordering for every size Weft posts). Then put-with-signal and
 * fence need not wait for the data's delivery: the signal or the later
 * operation cannot overtake it. Of the providers here only sockets says so
 * (shm: max_order_waw_size 0 for what Weft asks; tcp;ofi_rxm with atomics:
 * no FI_ORDER_WAW). SHMEM_OFI_ORDERED=0 turns this off.
 */
static int shmt_ofi_is_ordered(const struct fi_info *info)
{
    const uint64_t need = FI_ORDER_WAW | FI_ORDER_RAW | FI_ORDER_RMA_WAW |
                          FI_ORDER_ATOMIC_WAW | FI_ORDER_ATOMIC_RAW;

    if (!shmi_env.OFI_ORDERED || (info->tx_attr->msg_order & need) != need)
        return 0;
    return info->ep_attr->max_order_waw_size >= shmt_ofi.max_msg &&
           info->ep_attr->max_order_raw_size >= shmt_ofi.max_msg;
}

static void shmt_ofi_take(struct fi_info *chosen)
{
    struct fi_info *info = shmt_ofi_lib.dupinfo(chosen);

    shmt_ofi.info = info;
    if (!info)
        return;
    shmt_ofi.prov = info->fabric_attr->prov_name;
    shmt_ofi.mr_mode = (uint64_t)info->domain_attr->mr_mode;
    shmt_ofi.max_msg = info->ep_attr->max_msg_size;
    if (shmi_env.OFI_MAX_MSG_SIZE &&
        shmi_env.OFI_MAX_MSG_SIZE < shmt_ofi.max_msg)
        shmt_ofi.max_msg = shmi_env.OFI_MAX_MSG_SIZE;
    if (shmt_ofi.max_msg == 0)
        shmt_ofi.max_msg = 1;
    shmt_ofi.inject_size = info->tx_attr->inject_size;
    shmt_ofi.thread_safe = info->domain_attr->threading == FI_THREAD_SAFE;
    /* shm (1.17 at least) corrupts its inject buffers once a non-fetching
     * atomic carries FI_DELIVERY_COMPLETE: fetching atomics in flight
     * afterwards share buffers, return wrong values and apply wrong
     * operands (seen with plain libfabric calls: one such fi_atomicmsg,
     * then several fi_fetch_atomicmsg in flight on one endpoint). */
    shmt_ofi.amo_as_fetch = strcmp(shmt_ofi.prov, "shm") == 0;
    shmt_ofi.ordered = shmt_ofi_is_ordered(info);
    /* sockets moves a write only while its endpoint is progressed, and the
     * collectives' endpoint is read once in 8 polls (ofi_progress.c):
     * its barrier words go by message instead. */
    shmt_ofi.put_word = shmi_env.OFI_SIGNAL_MSG &&
                        shmt_ofi.inject_size >= sizeof(uint64_t) &&
                        strcmp(shmt_ofi.prov, "sockets") != 0;
    /* shm (1.17) crashes inside fi_cq_read once receives are posted on
     * the target endpoint and two threads read its CQ (the program's and
     * a device service's: gpu_wait_mock_shm_2), so its collectives keep
     * the writes and atomics (ofi_msg.c). */
    shmt_ofi.signal_msg = shmi_env.OFI_SIGNAL_MSG &&
                          (info->caps & FI_MSG) != 0 &&
                          (shmt_ofi_caps_of(info) & SHMT_CAP_ATOMICS_CPU) &&
                          strcmp(shmt_ofi.prov, "shm") != 0;
    /* tcp (alone or under ofi_rxm) receives a write from its byte stream
     * straight into the target's memory, in order, in the progress pass
     * of the target process (ofi_rma.c, put_tagged); shm has the
     * initiator's process copy, sockets a thread of its own, others
     * promise no order of placement. */
    shmt_ofi.put_tagged = shmt_ofi.put_word && shmt_ofi.signal_msg &&
                          (strcmp(shmt_ofi.prov, "tcp") == 0 ||
                           strncmp(shmt_ofi.prov, "tcp;", 4) == 0);
    /* ofi_rxm injects a write into its connection only from an endpoint
     * with no write counter bound; from one with a counter it copies the
     * write into a buffer of its own and reports its completion, which
     * over tcp also wakes the progress's signal descriptor (a write and a
     * read system call a word). So the words leave from the target
     * endpoint, bound to no write counter (ofi_ep.c): one connection
     * carries a pair of PEs' words both ways, and nothing answers them. */
    shmt_ofi.target_writes_on_cq = shmt_ofi.put_word &&
                                   strstr(shmt_ofi.prov, "ofi_rxm") != NULL;
}

static int shmt_ofi_getinfo(const char *prov, struct fi_info **list)
{
    struct fi_info *hints = shmt_ofi_hints(prov);
    int ret;

    if (!hints)
        return -FI_ENOMEM;
    ret = shmt_ofi_lib.getinfo(SHMT_OFI_FI_VERSION, NULL, NULL, 0, hints, list);
    shmt_ofi_lib.freeinfo(hints);
    return ret;
}

/* Says why fi_getinfo (status ret) offered nothing for `want` (may be
 * empty) and returns the code shmt_ofi_provider_choose gives back. */
static int shmt_ofi_none_found(const char *want, int ret)
{
    const char *fi_prov = getenv("FI_PROVIDER");
    char found[256];

    if (want[0] ? shmt_ofi_shm_full("SHMEM_OFI_PROVIDER", want)
                : shmt_ofi_shm_full("FI_PROVIDER", fi_prov))
        return SHMI_ENOSPC;
    shmt_ofi_list_providers(found, sizeof(found));
    if (want[0]) {
        SHMI_LOG(SHMI_LOG_ERROR, "ofi",
                 "SHMEM_OFI_PROVIDER=%s: no usable libfabric provider of that "
                 "name (fi_getinfo: %s; Weft needs RDM endpoints with RMA and "
                 "atomics); providers found: %s",
                 want, shmt_ofi_lib.strerror(-ret), found);
        return SHMI_EINVAL;
    }
    SHMI_LOG(SHMI_LOG_WARN, "ofi",
             "no libfabric provider offers RDM endpoints with RMA and "
             "atomics%s%s (fi_getinfo: %s); providers found: %s",
             fi_prov ? " with FI_PROVIDER=" : "", fi_prov ? fi_prov : "",
             shmt_ofi_lib.strerror(-ret), found);
    return SHMI_ENODEV;
}

int shmt_ofi_provider_choose(void)
{
    const char *want = shmi_env.OFI_PROVIDER;
    struct fi_info *list = NULL, *chosen;
    int ret;

    shmt_ofi_prefer_loopback();
    ret = shmt_ofi_getinfo(want, &list);
    if (ret != 0)
        return shmt_ofi_none_found(want, ret);
    if (shmt_ofi_domain_only(&list, SHMI_LOG_ERROR, "") != 0) {
        shmt_ofi_lib.freeinfo(list);
        return SHMI_EINVAL;
    }
    /* An explicit choice (ours or FI_PROVIDER) is taken as libfabric
     * ordered it; otherwise ours. */
    chosen = (want[0] || getenv("FI_PROVIDER")) ? list : shmt_ofi_pick(list);
    if (!chosen) {
        SHMI_LOG(SHMI_LOG_WARN, "ofi",
                 "only single-node libfabric providers found for a %d-node "
                 "job", shmt_ofi.job->n_nodes);
        shmt_ofi_lib.freeinfo(list);
        return SHMI_ENODEV;
    }
    if (shmt_ofi_broken_part(chosen->fabric_attr->prov_name)) {
        SHMI_LOG(SHMI_LOG_ERROR, "ofi",
                 "%s=%s: the libfabric provider %s does not work with Weft "
                 "(its atomics crash or hang); use tcp;ofi_rxm, shm or "
                 "sockets",
                 want[0] ? "SHMEM_OFI_PROVIDER" : "FI_PROVIDER",
                 want[0] ? want : getenv("FI_PROVIDER"),
                 shmt_ofi_broken_part(chosen->fabric_attr->prov_name));
        shmt_ofi_lib.freeinfo(list);
        return SHMI_EINVAL;
    }
    shmt_ofi_take(chosen);
    shmt_ofi_lib.freeinfo(list);
    if (!shmt_ofi.info)
        return SHMI_ENOMEM;
    SHMI_LOG(SHMI_LOG_DEBUG, "ofi",
             "provider %s, domain %s, mr_mode 0x%llx, max_msg %zu, inject %zu, "
             "%s, %s",
             shmt_ofi.prov, shmt_ofi.info->domain_attr->name,
             (unsigned long long)shmt_ofi.mr_mode, shmt_ofi.max_msg,
             shmt_ofi.inject_size,
             shmt_ofi.thread_safe ? "thread-safe" : "thread-safe NOT granted",
             shmt_ofi.ordered ? "ordered writes" : "unordered writes");
    return 0;
}

/* Once per job (PE 0), where no PE uses libfabric: says which of
 * SHMEM_OFI_PROVIDER and SHMEM_OFI_DOMAIN could not be honoured if it were
 * used. A warning, not an error: this job runs correctly without them. */
void shmt_ofi_check_unused(const shmt_job_t *job)
{
    static const char unused[] =
        "; this job does not use libfabric (one node, SHMEM_LOCAL=1), so it "
        "runs, but with several nodes or SHMEM_LOCAL=0 this is an error";
    const char *want = shmi_env.OFI_PROVIDER;
    struct fi_info *list = NULL;
    char found[256];
    int ret;

    if ((!want[0] && !shmi_env.OFI_DOMAIN[0]) || job->rank != 0 ||
        shmt_ofi_lib_load() != 0)
        return;
    ret = shmt_ofi_getinfo(want, &list);
    if (ret != 0 && want[0]) {
        shmt_ofi_list_providers(found, sizeof(found));
        SHMI_LOG(SHMI_LOG_WARN, "ofi",
                 "SHMEM_OFI_PROVIDER=%s: no usable libfabric provider of that "
                 "name (fi_getinfo: %s); providers found: %s%s",
                 want, shmt_ofi_lib.strerror(-ret), found, unused);
        return;
    }
    if (ret == 0)
        (void)shmt_ofi_domain_only(&list, SHMI_LOG_WARN, unused);
    shmt_ofi_lib.freeinfo(list);
}
