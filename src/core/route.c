/*
 * Building the route table (route.h) at connect, from what the transports
 * declare: the load/store transport's mappings (mapped_base, and those it
 * makes on first use: map_now, through shmi_route_map), the fabric's
 * reach (reachable), the parts it has (shmi_route_fabric, which
 * path_start.c fills from them: rma, atomic, msg, word, tagged) and the
 * atomics engine (shmi_dp_cpu_atomics, chosen by path_start.c from the
 * fabric's SHMT_CAP_* bits).
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/device_mem.h"
#include "core/engine/engine.h"
#include "core/init_seq.h"
#include "core/route.h"
#include "services/env.h"

shmi_route_t shmi_route_fabric;
shmi_route_t shmi_route_device;

/* The load/store transport of the table, for shmi_route_map. */
static const shmt_ops_t *shmi_route_local;

const char *const shmi_route_seg_name[SHMI_SEG_COUNT] = {"heap", "data",
                                                         "device"};

/* The route to (pe, s), s a host segment that this PE has. */
static void shmi_route_host(shmi_route_t *r, int pe, int s,
                            const shmt_ops_t *local, int hide_peers)
{
    const shmt_ops_t *f = shmi_state.fabric;

    if (pe == shmi_my_pe_fast())
        r->base = shmi_state.seg[s].base;
    else if (local && !hide_peers)
        r->base = local->mapped_base ? local->mapped_base(pe, (shmi_seg_id_t)s)
                                     : NULL;
    /* Reached by load/store, but mapped at the first access. */
    if (r->base == NULL && local && !hide_peers && local->map_now &&
        local->reachable(pe, (shmi_seg_id_t)s))
        r->map = SHMI_ROUTE_MAP_ON_USE;
    if (f && f->reachable(pe, (shmi_seg_id_t)s)) {
        r->ops = f;
        r->rma = shmi_route_fabric.rma;
        r->atomic = shmi_route_fabric.atomic;
        r->ep = shmi_route_fabric.ep;
        r->lock = shmi_route_fabric.lock;
        r->msg = shmi_route_fabric.msg;
        r->word = shmi_route_fabric.word;
        r->tagged = shmi_route_fabric.tagged;
    }
    r->cpu_amo = r->base != NULL && shmi_dp_cpu_atomics;
}

/*
 * Checks that every (PE, host segment) has a route and sets shmi_dp_mixed:
 * a PE this one reaches by load/store while some others (or its atomics) go
 * through the fabric needs fence to complete fabric operations. A heap
 * nothing reaches stops start-up; another segment is a warning (RMA to it
 * fails, naming the routine).
 */
static int shmi_routes_survey(void)
{
    int me = shmi_my_pe_fast(), warned = 0, by_load_store = 0;

    for (int pe = 0; pe < shmi_n_pes_fast(); pe++) {
        int mapped = 0, unmapped = 0;

        for (int s = 0; s < SHMI_SEG_COUNT; s++) {
            const shmi_route_t *r;

            /* Device heaps are never load/store targets: src/gpu routes
             * them (IPC, FI_HMEM or the owner's service). */
            if (shmi_state.seg[s].size == 0 || s == SHMI_SEG_DEVICE)
                continue;
            r = shmi_route_of(pe, s);
            if (r->base || r->map == SHMI_ROUTE_MAP_ON_USE) {
                mapped = 1;
                continue;
            }
            unmapped = 1;
            if (r->ops)
                continue;
            if (s == SHMI_SEG_HEAP) {
                SHMI_LOG(SHMI_LOG_ERROR, "path",
                         "the symmetric heap of PE %d is neither mapped here "
                         "nor reachable through libfabric",
                         pe);
                return SHMI_ENODEV;
            }
            if (!warned++)
                SHMI_LOG(SHMI_LOG_WARN, "path",
                         "the %s segment of PE %d (and maybe others) is not "
                         "reachable without libfabric: RMA to it will fail",
                         shmi_route_seg_name[s], pe);
        }
        if (shmi_state.fabric && mapped &&
            ((unmapped && pe != me) || !shmi_dp_cpu_atomics))
            shmi_dp_mixed = 1;
        by_load_store += mapped && pe != me;
    }
    shmi_paths_report_reach(by_load_store);
    return 0;
}

/* The route to (pe, device heap): the device transport's, plus where the
 * back end's copies reach it directly. Its own heap always; a peer's where
 * its host heap is mapped here too (same node) and the device transport
 * imported its device heap, unless SHMEM_DEVICE_SERVICE=all sends every
 * access to another PE's device memory through that PE's service. */
static void shmi_route_device_seg(shmi_route_t *r, int pe, int service_all)
{
    const shmt_ops_t *d = shmi_state.device;

    *r = shmi_route_device;
    if (pe == shmi_my_pe_fast())
        r->copy = shmi_state.seg[SHMI_SEG_DEVICE].base;
    else if (d && !service_all &&
             (shmi_route_of(pe, SHMI_SEG_HEAP)->base ||
              shmi_route_of(pe, SHMI_SEG_HEAP)->map == SHMI_ROUTE_MAP_ON_USE))
        r->copy = d->mapped_base(pe, SHMI_SEG_DEVICE);
}

int shmi_routes_build(const shmt_ops_t *local, int hide_peers)
{
    int n = shmi_n_pes_fast();
    int service_all = strcmp(shmi_env.DEVICE_SERVICE, "all") == 0;

    shmi_route_local = local;
    for (int s = 0; s < SHMI_SEG_COUNT; s++) {
        /* A segment this PE lacks has no table: nothing is looked up in
         * it (shmi_seg_lookup finds no address there). */
        if (shmi_state.seg[s].size == 0)
            continue;
        shmi_state.route[s] = calloc((size_t)n, sizeof(shmi_route_t));
        if (shmi_state.route[s] == NULL)
            return SHMI_ENOMEM;
        for (int pe = 0; pe < n; pe++)
            if (s == SHMI_SEG_DEVICE)
                /* Never load/store: only the back end touches it. */
                shmi_route_device_seg(&shmi_state.route[s][pe], pe,
                                      service_all);
            else
                shmi_route_host(&shmi_state.route[s][pe], pe, s, local,
                                hide_peers);
    }
    return shmi_routes_survey();
}

/* Serializes the table's first-use mappings with each other. */
static pthread_mutex_t shmi_route_map_lock = PTHREAD_MUTEX_INITIALIZER;

char *shmi_route_map(int pe, int seg)
{
    shmi_route_t *r = &shmi_state.route[seg][pe];
    char *b;

    pthread_mutex_lock(&shmi_route_map_lock);
    b = r->base;
    if (b == NULL && r->map == SHMI_ROUTE_MAP_ON_USE) {
        b = shmi_route_local->map_now(pe, (shmi_seg_id_t)seg);
        if (b != NULL) {
            /* base before cpu_amo: the inline atomic reads cpu_amo first
             * (acquire) and then base (engine.h). */
            __atomic_store_n(&r->base, b, __ATOMIC_RELEASE);
            __atomic_store_n(&r->cpu_amo, (unsigned char)shmi_dp_cpu_atomics,
                             __ATOMIC_RELEASE);
            if (seg == SHMI_SEG_HEAP && shmi_state.heap_user_peer)
                __atomic_store_n(&shmi_state.heap_user_peer[pe],
                                 b + shmi_state.seg[seg].user_off,
                                 __ATOMIC_RELEASE);
        }
        __atomic_store_n(&r->map,
                         b ? SHMI_ROUTE_MAP_NONE : SHMI_ROUTE_MAP_FAILED,
                         __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&shmi_route_map_lock);
    return b;
}

void shmi_routes_free(void)
{
    for (int s = 0; s < SHMI_SEG_COUNT; s++) {
        free(shmi_state.route[s]);
        shmi_state.route[s] = NULL;
    }
}
