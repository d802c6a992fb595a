/*
 * The start-up of the paths (docs/design.md, decision 4): which transport
 * reaches which (PE, segment), brought up in shmem_init (init_seq.h), and
 * the atomics engine the data plane then uses (shmi_dp_cpu_atomics,
 * shmi_dp_mixed, decided here at connect). SHMEM_TRANSPORT's checks are
 * path_select.c; the data plane's fatal argument reports are dp_check.c.
 *
 * The load/store transport maps what it can (heaps on this node, unless
 * SHMEM_LOCAL=0). The fabric (libfabric) is started when anything could be
 * left unmapped: other nodes, SHMEM_LOCAL=0, a segment the local transport
 * cannot share (typically data+bss), or SHMEM_LOCAL_OFF_PES. The decision
 * uses only job-wide facts, so every PE takes the same one without an
 * extra exchange.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "core/dataplane.h"
#include "core/device_mem.h"
#include "core/heap/device_heap.h"
#include "core/heap/heap.h"
#include "core/host_path.h"
#include "core/init_seq.h"
#include "core/route.h"
#include "core/segment.h"
#include "core/team/team.h"
#include "services/backoff.h"
#include "services/env.h"
#include "topo/cpu_share.h"

/* The atomics engine (dataplane.h), set by shmi_path_engine at connect. */
int shmi_dp_cpu_atomics = 1;
int shmi_dp_mixed = 0;

/* The load/store transport in use, or NULL. */
static const shmt_ops_t *shmi_path_local;


/* ---- start-up ------------------------------------------------------------ */

/* 1 when this PE is listed in SHMEM_LOCAL_OFF_PES (a comma list); *any is
 * set when the list names a PE. Returns -1 on a malformed list. */
static int shmi_path_local_off(int pe, int *any)
{
    const char *s = shmi_env.LOCAL_OFF_PES;
    int found = 0;
    char *end;

    *any = 0;
    while (*s) {
        long v = strtol(s, &end, 10);

        if (end == s || v < 0 || (*end != ',' && *end != '\0'))
            return -1;
        *any = 1;
        found |= v == pe;
        s = *end == ',' ? end + 1 : end;
    }
    return found;
}

/*
 * Will the local transport map every segment of every PE? Only on one node
 * with SHMEM_LOCAL=1, and only when this PE's data segment is shared (its
 * descriptor, published by shmi_segments_init, is readable before the
 * fence; the remap decision is the same on every PE of one executable).
 * A mapping that still fails at connect time is reported by
 * shmi_routes_survey (route.c).
 */
static int shmi_path_local_covers_all(void)
{
    const shmi_boot_info_t *b = &shmi_state.boot;
    shmi_shm_desc_t d;

    /* The device heap needs no fabric on one node: the device transport
     * reaches the peers' device heaps through the back end's IPC. */
    if (!shmi_path_local || b->n_nodes > 1 || !shmi_env.LOCAL)
        return 0;
    if (shmi_state.seg[SHMI_SEG_DATA].size == 0)
        return 1;
    return shmi_segments_peer_desc(b->rank, SHMI_SEG_DATA, &d) == 0 &&
           d.kind != SHMI_SHM_NONE;
}

/* What the transports are handed at init (transports/transport.h): the
 * job, this PE's segments and the bootstrap exchange. Kept until
 * shmi_paths_finalize. */
static shmt_job_t shmi_path_job;

static void shmi_path_job_fill(shmt_job_t *j)
{
    const shmi_boot_info_t *b = &shmi_state.boot;

    memset(j, 0, sizeof(*j));
    j->rank = b->rank;
    j->size = b->size;
    j->node_id = b->node_id;
    j->n_nodes = b->n_nodes;
    j->node_of_pe = b->node_of_pe;
    j->local_rank = b->local_rank;
    j->local_size = b->local_size;
    j->local_pes = b->local_pes;
    for (int s = 0; s < SHMI_SEG_COUNT; s++) {
        j->seg[s].base = shmi_state.seg[s].base;
        j->seg[s].size = shmi_state.seg[s].size;
        j->seg[s].reg_base = j->seg[s].base;
        j->seg[s].mem = SHMI_MEM_HOST;
    }
    /* A device heap: what a NIC may be handed of it, if anything. */
    if (shmi_device_fabric_view(&j->seg[SHMI_SEG_DEVICE].reg_base,
                                &j->seg[SHMI_SEG_DEVICE].size,
                                &j->seg[SHMI_SEG_DEVICE].mem,
                                &j->seg[SHMI_SEG_DEVICE].device) != 0)
        j->seg[SHMI_SEG_DEVICE].reg_base = NULL;
    j->publish = shmi_boot_put;
    j->lookup = shmi_boot_get;
    j->map_peer = shmi_segments_map_peer;
    j->map_on_use = shmi_segments_map_on_use();
    j->gpu = shmi_device_backend();
}

/* Gives t an endpoint slot in every context (route.h); rt, when set, is
 * the route that names t, its slot and its parts (what it can do is what
 * parts it has: the collectives' shortcuts are the members of its coll
 * part, read here, after init, once). */
static int shmi_path_carry(const shmt_ops_t *t, shmi_route_t *rt)
{
    if (shmi_state.n_carriers == SHMI_CARRIERS_MAX) {
        SHMI_LOG(SHMI_LOG_ERROR, "path",
                 "more than %d transports carry operations in this job",
                 SHMI_CARRIERS_MAX);
        return SHMI_EINVAL;
    }
    if (rt) {
        const shmt_coll_ops_t *c = t->coll;

        rt->ops = t;
        rt->rma = t->rma;
        rt->atomic = t->atomic;
        rt->ep = (unsigned char)shmi_state.n_carriers;
        rt->lock = !(shmt_caps(t) & SHMT_CAP_EP_SHARED);
        rt->msg = c && c->put_signal_msg;
        rt->word = c && c->put_word;
        rt->tagged = c && c->put_tagged;
    }
    shmi_state.carrier[shmi_state.n_carriers++] = t;
    return 0;
}

/*
 * Starts the first transport of kind k in the registry's order that this
 * job may use and that runs here (init 0; SHMI_ENODEV passes to the next).
 * *up is that transport, NULL when none runs; another error stops
 * start-up.
 */
static int shmi_path_start_kind(unsigned k, const shmt_ops_t **up)
{
    *up = NULL;
    for (int i = 0; shmt_registry[i]; i++) {
        const shmt_ops_t *t = shmt_registry[i];
        int ret;

        if (t->kind != k || !shmi_path_may_use(t))
            continue;
        ret = t->init(&shmi_path_job);
        if (ret == 0) {
            *up = t;
            return 0;
        }
        if (ret != SHMI_ENODEV) {
            SHMI_LOG(SHMI_LOG_WARN, "path",
                     "the %s transport did not start (%s)", t->name,
                     shmi_strerror(ret));
            return ret;
        }
        SHMI_LOG(SHMI_LOG_DEBUG, "path", "the %s transport does not run here",
                 t->name);
    }
    return 0;
}

/* The network transports are not needed: each warns about its variables
 * (SHMEM_OFI_PROVIDER=nonexistent was silently ignored here). */
static void shmi_path_network_unused(void)
{
    for (int i = 0; shmt_registry[i]; i++)
        if (shmt_registry[i]->kind == SHMT_KIND_NETWORK &&
            shmt_registry[i]->check_unused)
            shmt_registry[i]->check_unused(&shmi_path_job);
}

/* The network transport, when something could stay unmapped: 0 with
 * shmi_state.fabric set or left NULL (connect then checks what stays
 * unreachable), or an error that stops start-up. */
static int shmi_path_start_network(int any_off)
{
    const shmt_ops_t *f;
    int ret;

    /* SHMEM_AMO_ENGINE=fabric asks for the fabric even where load/store
     * would reach everything: all atomics then go through it. */
    if (shmi_n_pes_fast() == 1 ||
        (!any_off && strcmp(shmi_env.AMO_ENGINE, "fabric") != 0 &&
         shmi_path_local_covers_all())) {
        shmi_path_network_unused();
        return 0;
    }
    if (!shmi_path_network_allowed())
        return shmi_paths_fabric_refused(any_off);
    ret = shmi_path_start_kind(SHMT_KIND_NETWORK, &f);
    if (ret != 0)
        return ret == SHMI_ENODEV ? 0 : ret;
    if (f == NULL)
        return 0;
    shmi_state.fabric = f;
    return shmi_path_carry(f, &shmi_route_fabric);
}

int shmi_paths_init(void)
{
    const shmt_ops_t *dev;
    int any_off, ret;

    /* Until the cores of the node's PEs are known (shmi_paths_connect),
     * waiting spins first, as on a node with a core per PE. */
    (void)shmi_backoff_configure(1, 1, 1);
    shmi_path_job_fill(&shmi_path_job);
    ret = shmi_path_start_kind(SHMT_KIND_LOAD_STORE, &shmi_path_local);
    if (ret)
        return ret;
    if (shmi_path_local_off(shmi_my_pe_fast(), &any_off) < 0) {
        SHMI_LOG(SHMI_LOG_ERROR, "path",
                 "SHMEM_LOCAL_OFF_PES=\"%s\" is not a comma-separated list of "
                 "PE numbers (e.g. 1,3)",
                 shmi_env.LOCAL_OFF_PES);
        return SHMI_EINVAL;
    }
    ret = shmi_path_start_network(any_off);
    if (ret)
        return ret;
    /* The device transport rides on the host path (and its fabric). */
    shmi_path_job.host = shmi_host_path(shmi_state.fabric != NULL);
    ret = shmi_path_start_kind(SHMT_KIND_DEVICE, &dev);
    if (ret == 0 && dev) {
        shmi_state.device = dev;
        ret = shmi_path_carry(dev, &shmi_route_device);
    }
    /* Waiting loops drive progress only where a transport has some to
     * drive (one without a progress hook has none). */
    for (int i = 0; ret == 0 && i < shmi_state.n_carriers; i++)
        if (shmi_state.carrier[i]->progress != NULL)
            shmi_backoff_progress = shmi_progress;
    return ret;
}

void shmi_paths_started(void)
{
    if (shmi_state.fabric && shmi_state.fabric->started)
        shmi_state.fabric->started();
}

/* What t can do as text: its capability bits, then the collectives'
 * shortcuts its coll part has ("atomics-cpu,signal-msg,put-word"), or
 * "none". */
static void shmi_path_caps_text(const shmt_ops_t *t, unsigned caps, char *buf,
                                size_t len)
{
    const shmt_coll_ops_t *c = t ? t->coll : NULL;
    const char *name[SHMT_CAP_COUNT + 3];
    size_t used = 0;
    int n = 0;

    for (int b = 0; b < SHMT_CAP_COUNT; b++)
        if (caps & (1u << b))
            name[n++] = shmt_cap_name(b);
    if (c && c->put_signal_msg)
        name[n++] = "signal-msg";
    if (c && c->put_word)
        name[n++] = "put-word";
    if (c && c->put_tagged)
        name[n++] = "put-tagged";
    snprintf(buf, len, "none");
    for (int i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 used ? "," : "", name[i]);
}

/*
 * The atomics engine of the words mapped here (shmi_dp_cpu_atomics), from
 * the capabilities of the transports that reach them (docs/dataplane.md,
 * "Atomic coherence"). The load/store transport applies CPU atomics; a word
 * it maps may also be reached through the fabric (by PEs of other nodes, or
 * of SHMEM_LOCAL_OFF_PES), so it keeps CPU atomics only when the fabric
 * declares that it applies atomics with the target's CPU too. A fabric that
 * declares NIC atomics, or nothing, gets every atomic (one engine per word).
 * Decided once here: the data path reads the one flag.
 */
static int shmi_path_engine(void)
{
    const shmt_ops_t *f = shmi_state.fabric;
    unsigned caps = f ? shmt_caps(f) : 0;
    int cpu_ok = !f || ((caps & SHMT_CAP_ATOMICS_CPU) &&
                        !(caps & SHMT_CAP_ATOMICS_NIC));
    char text[128];

    shmi_path_caps_text(f, caps, text, sizeof(text));
    if (f && !cpu_ok && strcmp(shmi_env.AMO_ENGINE, "cpu") == 0) {
        SHMI_LOG(SHMI_LOG_ERROR, "path",
                 "SHMEM_AMO_ENGINE=cpu: the %s transport declares that it "
                 "does not apply atomics with the target's CPU (%s), so CPU "
                 "atomics on mapped words would race with the ones it "
                 "applies; use SHMEM_AMO_ENGINE=auto or fabric",
                 f->name, text);
        return SHMI_EINVAL;
    }
    shmi_dp_cpu_atomics =
        !f || (cpu_ok && strcmp(shmi_env.AMO_ENGINE, "fabric") != 0);
    SHMI_LOG(SHMI_LOG_DEBUG, "path", "fabric %s (%s), atomics by %s",
             f ? f->name : "none", text,
             shmi_dp_cpu_atomics ? "CPU on mapped words" : "the fabric only");
    return 0;
}

int shmi_paths_connect(void)
{
    int any, ret, sharers, ncpus, crowded;

    /* The PEs published their cores before the fence (shmi_topo_init). */
    ret = shmi_topo_cpu_sharers(&sharers, &ncpus);
    if (ret)
        return ret;
    crowded = shmi_backoff_configure(sharers, ncpus,
                                     shmi_state.boot.local_size);
    SHMI_LOG(SHMI_LOG_DEBUG, "wait",
             "%s%d PE(s) of the job may run on this PE's %d core(s): "
             "waiting %s",
             crowded ? "at least " : "", sharers, ncpus,
             crowded ? "yields at once and sleeps" : "spins first");
    if (shmi_path_local) {
        ret = shmi_path_local->connect();
        if (ret)
            return ret;
    }
    if (shmi_state.fabric) {
        ret = shmi_state.fabric->connect();
        if (ret)
            return ret;
    }
    ret = shmi_path_engine();
    if (ret)
        return ret;
    /* SHMEM_LOCAL_OFF_PES: a PE listed reaches every other PE through the
     * fabric while the others keep load/store, so that one job mixes both
     * paths on the same words (tests of atomic coherence). */
    ret = shmi_routes_build(shmi_path_local,
                            shmi_path_local_off(shmi_my_pe_fast(), &any) == 1);
    /* Last: the device transport reaches host memory over those routes
     * (its service's ring is a symmetric block of the host heap: every PE
     * allocates it here, at the same point). */
    if (ret == 0 && shmi_state.device)
        ret = shmi_state.device->connect();
    return ret;
}

void shmi_paths_finalize(void)
{
    shmi_backoff_progress = NULL;
    if (shmi_state.device) {
        shmi_state.device->finalize();
        shmi_state.device = NULL;
    }
    shmi_routes_free();
    if (shmi_state.fabric) {
        shmi_state.fabric->finalize();
        shmi_state.fabric = NULL;
    }
    shmi_state.n_carriers = 0;
    shmi_route_fabric = (shmi_route_t){0};
    shmi_route_device = (shmi_route_t){0};
    if (shmi_path_local) {
        shmi_path_local->finalize();
        shmi_path_local = NULL;
    }
    shmi_dp_mixed = 0;
    shmi_dp_cpu_atomics = 1;
}
