/*
 * The route table (docs/design.md, decision 4): for every segment and PE,
 * how this PE reaches it, decided once at connect from what the transports
 * declare (route.c) and then only read. Every routine of the data plane
 * (the engine, src/core/engine, for every caller) finds its way with one
 * lookup, shmi_route_of(pe, seg):
 *
 *   base     the segment is mapped here: puts and gets are loads and stores
 *            on base + offset, inline (src/services/cpu_ops.h);
 *   map      SHMI_ROUTE_MAP_ON_USE: not mapped yet, but the load/store
 *            transport maps it at the first access (shmi_route_map, which
 *            sets base and cpu_amo; the paths that find base NULL ask it
 *            first); SHMI_ROUTE_MAP_FAILED: that mapping failed, because
 *            its owner has closed the segment at its shmem_finalize;
 *   cpu_amo  atomics on it may be CPU instructions too (base is set and
 *            every path that reaches the word applies CPU atomics: the
 *            engine rule of docs/dataplane.md, "Atomic coherence");
 *   ops, ep  otherwise the transport that carries the operation, and the
 *            slot of its endpoint in a context (struct shmem_impl_ctx.ep);
 *            ops is NULL when nothing reaches the segment (a call there is
 *            an error that names the routine, shmi_eng_unreachable);
 *   rma, atomic  ops' RMA and atomics parts (transports/transport.h), kept
 *            here so that a call costs the loads it cost when they were
 *            members of ops; NULL where ops lacks the part (a call is then
 *            an error naming the routine, SHMI_ENOSYS);
 *   lock     whether a call into ops takes the context's lock;
 *   msg      whether ops sends the collectives' put-with-signal as one
 *            message (its collectives part has put_signal_msg);
 *   word     whether ops writes the collectives' single-writer words with
 *            no acknowledgement (put_word);
 *   tagged   whether ops writes a buffer that ends in its tag as one such
 *            write, the tag landing last (put_tagged);
 *   copy     for the device heap: where the back end's own copies reach
 *            it from here (this PE's heap, or a peer's imported over IPC
 *            on the node; never with SHMEM_DEVICE_SERVICE=all), so that a
 *            stream-ordered put or get is one copy on the stream; NULL
 *            otherwise.
 *
 * The engine (src/core/engine/engine.h) is what reads the table.
 *
 * A transport's keys and remote addresses stay in its own per-peer tables:
 * the core hands it (pe, segment, offset), never an address of another
 * process, so the route names the transport and its endpoint, and the
 * transport finds the key.
 */
#ifndef SHMI_ROUTE_H
#define SHMI_ROUTE_H

#include <stddef.h>

#include "core/state.h"
#include "transports/transport.h"

typedef struct shmi_route {
    char *base;            /* the segment mapped here, or NULL */
    const shmt_ops_t *ops; /* the transport for the rest; NULL: none */
    const shmt_rma_ops_t *rma;       /* ops->rma; NULL: none */
    const shmt_atomic_ops_t *atomic; /* ops->atomic; NULL: none */
    char *copy;            /* device heap: reached by the back end's
                              copies here, or NULL */
    unsigned char ep;      /* slot of ops' endpoint in a context */
    unsigned char cpu_amo; /* 1: atomics by CPU instructions on base */
    unsigned char lock;    /* 1: calls into ops take the context's lock
                              (it does not declare SHMT_CAP_EP_SHARED) */
    unsigned char msg;     /* 1: ops->coll->put_signal_msg is there */
    unsigned char word;    /* 1: ops->coll->put_word is there */
    unsigned char tagged;  /* 1: ops->coll->put_tagged is there */
    unsigned char map;     /* SHMI_ROUTE_MAP_* */
} shmi_route_t;

/* shmi_route_t.map */
enum {
    SHMI_ROUTE_MAP_NONE = 0,   /* mapped, or never mapped here */
    SHMI_ROUTE_MAP_ON_USE = 1, /* mapped at the first access */
    SHMI_ROUTE_MAP_FAILED = 2  /* that mapping failed: the owner finalized */
};

/* The route to segment seg of pe. The table exists from shmi_paths_connect
 * to shmi_paths_finalize; the data plane reaches this only in between (its
 * argument checks stop a call outside the library's lifetime first), and
 * code that may run outside tests shmi_state.route[seg] itself. */
static inline const shmi_route_t *shmi_route_of(int pe, int seg)
{
    return &shmi_state.route[seg][pe];
}

/* Maps segment seg of pe now, when its route says SHMI_ROUTE_MAP_ON_USE,
 * and publishes the mapping in the route (base, cpu_amo) and in the heap's
 * table of user areas (heap_user_peer, state.h), so that later calls take
 * the inline paths. Returns the route's base, NULL when (pe, seg) is not
 * mapped here after all. Thread-safe; cheap once done. route.c. */
char *shmi_route_map(int pe, int seg);

/* The route to (pe, seg) with its first-use mapping made: for the paths
 * that look at base after the inline fast paths found it NULL. */
static inline const shmi_route_t *shmi_route_ready(int pe, int seg)
{
    const shmi_route_t *r = shmi_route_of(pe, seg);

    if (__builtin_expect(__atomic_load_n(&r->map, __ATOMIC_ACQUIRE) ==
                             SHMI_ROUTE_MAP_ON_USE,
                         0))
        (void)shmi_route_map(pe, seg);
    return r;
}

/* The fabric's route, the same for every (pe, seg) it reaches: its
 * transport and endpoint slot while a fabric runs (path_start.c sets it when it
 * starts one), empty otherwise. */
extern shmi_route_t shmi_route_fabric;

/* The device transport's route, likewise (path_start.c sets it when a device
 * transport starts): every (pe, SHMI_SEG_DEVICE), and any call whose local
 * buffer is device memory. */
extern shmi_route_t shmi_route_device;

/* "heap", "data", "device": the segments' names in messages. */
extern const char *const shmi_route_seg_name[SHMI_SEG_COUNT];

/* Builds the table (path_start.c calls it at connect, after every transport
 * connected and the atomics engine is chosen): local is the load/store
 * transport when it runs (NULL otherwise); hide_peers (SHMEM_LOCAL_OFF_PES
 * lists this PE) leaves every other PE to the fabric. 0 or a negative
 * SHMI_E* code, with the reason logged. */
int shmi_routes_build(const shmt_ops_t *local, int hide_peers);

/* Frees it (shmi_paths_finalize). */
void shmi_routes_free(void);

#endif /* SHMI_ROUTE_H */
