/*
 * Path selection (docs/design.md, decision 4): which transport reaches which
 * (PE, segment), brought up in shmem_init (init_seq.h), and the slow paths
 * of the data plane (fabric calls, fatal argument errors).
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
#include "core/heap/heap.h"
#include "core/init_seq.h"
#include "core/route.h"
#include "core/segment.h"
#include "core/team/team.h"
#include "gpu/device_path.h"
#include "gpu/device_proxy.h"
#include "services/backoff.h"
#include "services/env.h"

int shmi_dp_cpu_atomics = 1;
int shmi_dp_mixed = 0;

static int shmi_path_local_up;

static const char *const shmi_seg_names[SHMI_SEG_COUNT] = {"heap", "data",
                                                           "device"};

/* ---- fatal errors of the data plane --------------------------------------- */

/* The usual cause of a bad PE or segment outside a job: say so. */
void shmi_dp_check_state(const char *routine)
{
    if (shmi_state.finalized)
        SHMI_FATAL("%s: called after shmem_finalize", routine);
    if (!shmi_state.initialized)
        SHMI_FATAL("%s: called before shmem_init", routine);
}

_Noreturn void shmi_dp_bad_pe(const char *routine, shmem_ctx_t ctx, int pe)
{
    shmi_dp_check_state(routine);
    if (ctx != SHMEM_CTX_INVALID && ctx->team && ctx->team != SHMEM_TEAM_WORLD)
        SHMI_FATAL("%s: PE %d is not a PE of the context's team (%d PEs)",
                   routine, pe, ctx->team->n_pes);
    SHMI_FATAL("%s: PE %d is out of range (the job has PEs 0..%d)", routine, pe,
               shmi_n_pes_fast() - 1);
}

_Noreturn void shmi_dp_bad_ctx(const char *routine)
{
    SHMI_FATAL("%s: the context is SHMEM_CTX_INVALID (not created, or "
               "creation failed)",
               routine);
}

_Noreturn void shmi_dp_unreachable(const char *routine, int pe, int seg)
{
    shmi_dp_check_state(routine);
    if (shmi_state.fabric == NULL)
        SHMI_FATAL("%s: the %s segment of PE %d is not mapped here and no "
                   "fabric transport is running (libfabric could not start: "
                   "see the earlier messages, SHMEM_OFI_PROVIDER and fi_info)",
                   routine, shmi_seg_names[seg], pe);
    SHMI_FATAL("%s: the %s segment of PE %d is not mapped here and the %s "
               "transport does not reach it (see the start-up warnings)",
               routine, shmi_seg_names[seg], pe, shmi_state.fabric->name);
}

_Noreturn void shmi_dp_transport_error(const char *routine,
                                       const shmt_ops_t *t, int pe, int ret)
{
    SHMI_FATAL("%s: the %s transport failed (target PE %d): %s", routine,
               t ? t->name : "fabric", pe, shmi_strerror(ret));
}

int shmi_dp_team_pe(const char *routine, shmem_ctx_t ctx, int pe)
{
    const struct shmem_impl_team *t = ctx->team;

    if (SHMI_UNLIKELY(t == &shmi_ctx_dead_team))
        shmi_ctx_bad_destroyed(routine, ctx);
    if (t == NULL)
        shmi_dp_check_state(routine);
    if (t != NULL && t->destroyed)
        SHMI_FATAL("%s: the team of context %p was destroyed "
                   "(shmem_team_destroy)",
                   routine, (void *)ctx);
    if (t == NULL || (unsigned)pe >= (unsigned)t->n_pes)
        shmi_dp_bad_pe(routine, ctx, pe);
    return shmi_team_world_pe(t, pe);
}

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
 * shmi_path_survey.
 */
static int shmi_path_local_covers_all(void)
{
    const shmi_boot_info_t *b = &shmi_state.boot;
    shmi_shm_desc_t d;

    /* The device heap needs no fabric on one node: src/gpu/device_path.c
     * reaches the peers' device heaps through the back end's IPC. */
    if (!shmi_path_local_up || b->n_nodes > 1 || !shmi_env.LOCAL)
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
}

int shmi_paths_init(void)
{
    int any_off, ret;

    shmi_backoff_configure(shmi_state.boot.local_size);
    shmi_path_job_fill(&shmi_path_job);
    ret = shmt_local_ops.init(&shmi_path_job);
    if (ret && ret != SHMI_ENODEV)
        return ret;
    shmi_path_local_up = ret == 0;
    if (shmi_path_local_off(shmi_my_pe_fast(), &any_off) < 0) {
        SHMI_LOG(SHMI_LOG_ERROR, "path",
                 "SHMEM_LOCAL_OFF_PES=\"%s\" is not a comma-separated list of "
                 "PE numbers (e.g. 1,3)",
                 shmi_env.LOCAL_OFF_PES);
        return SHMI_EINVAL;
    }
    /* SHMEM_AMO_ENGINE=fabric asks for the fabric even where load/store
     * would reach everything: all atomics then go through it. */
    if (shmi_n_pes_fast() == 1 ||
        (!any_off && strcmp(shmi_env.AMO_ENGINE, "fabric") != 0 &&
         shmi_path_local_covers_all())) {
        /* SHMEM_OFI_PROVIDER=nonexistent was silently ignored here. */
        shmt_ofi_ops.check_unused(&shmi_path_job);
        return 0;
    }
    if (!shmi_path_fabric_allowed)
        return shmi_paths_fabric_refused(any_off);
    ret = shmt_ofi_ops.init(&shmi_path_job);
    if (ret == 0) {
        shmi_state.fabric = &shmt_ofi_ops;
        shmi_route_fabric.ops = &shmt_ofi_ops;
        shmi_route_fabric.ep = (unsigned char)shmi_state.n_carriers;
        shmi_state.carrier[shmi_state.n_carriers++] = &shmt_ofi_ops;
        shmi_backoff_progress = shmi_progress;
        return 0;
    }
    SHMI_LOG(SHMI_LOG_WARN, "path",
             "the libfabric transport did not start (%s)", shmi_strerror(ret));
    /* Without a fabric, connect checks what stays unreachable. */
    return ret == SHMI_ENODEV ? 0 : ret;
}

void shmi_paths_started(void)
{
    if (shmi_state.fabric)
        shmi_state.fabric->started();
}

/* caps as text ("load-store,atomics-cpu"), or "none". */
static void shmi_path_caps_text(unsigned caps, char *buf, size_t len)
{
    size_t used = 0;

    snprintf(buf, len, "none");
    for (int b = 0; b < SHMT_CAP_COUNT && used < len; b++)
        if (caps & (1u << b))
            used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                     used ? "," : "", shmt_cap_name(b));
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

    shmi_path_caps_text(caps, text, sizeof(text));
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
    int any, ret;

    if (shmi_path_local_up) {
        ret = shmt_local_ops.connect();
        if (ret)
            return ret;
    }
    if (shmi_state.fabric) {
        ret = shmi_state.fabric->connect();
        if (ret)
            return ret;
        /* The device service lives while the fabric is connected: every
         * PE starts it here, at the same point of start-up (its ring is a
         * symmetric allocation). */
        shmi_device_service_start();
    }
    ret = shmi_path_engine();
    if (ret)
        return ret;
    /* SHMEM_LOCAL_OFF_PES: a PE listed reaches every other PE through the
     * fabric while the others keep load/store, so that one job mixes both
     * paths on the same words (tests of atomic coherence). */
    return shmi_routes_build(shmi_path_local_up ? &shmt_local_ops : NULL,
                             shmi_path_local_off(shmi_my_pe_fast(), &any) ==
                                 1);
}

void shmi_paths_finalize(void)
{
    shmi_routes_free();
    if (shmi_state.fabric) {
        shmi_device_service_stop();
        shmi_backoff_progress = NULL;
        shmi_state.fabric->finalize();
        shmi_state.fabric = NULL;
    }
    shmi_state.n_carriers = 0;
    shmi_route_fabric = (shmi_route_t){0};
    if (shmi_path_local_up) {
        shmt_local_ops.finalize();
        shmi_path_local_up = 0;
    }
    shmi_dp_mixed = 0;
    shmi_dp_cpu_atomics = 1;
}
