/*
 * The transport contract (docs/design.md, decision 4): a base every
 * transport fills (shmt_ops_t: name, kind, lifecycle, reach, capabilities,
 * the optional hooks) and optional parts, each a struct of its own that
 * begins with its size: RMA (shmt_rma_ops_t), atomics (shmt_atomic_ops_t),
 * ordering (shmt_order_ops_t) and the collectives' shortcuts
 * (shmt_coll_ops_t). A part the base does not point at is absent: the
 * transport cannot do what it names, and the core derives its routes from
 * that (src/core/route.c), never from a stub. Every function signature is
 * a type declared here once (shmt_put_fn, ...). Adding a transport means
 * filling a base and the parts it has and listing it in
 * transports/registry.c (docs/adding-a-transport.md).
 *
 * Addressing. The core translates a symmetric address into a segment id and
 * an offset from that segment's base (the same offset on every PE, because
 * the heap allocator is deterministic and segments are laid out alike), and
 * passes (pe, seg, offset) to the transport, which keeps whatever per-PE
 * table it needs (remote base, key, ...) to reach it.
 *
 * Completion. "Locally complete": the source buffer may be reused.
 * "Remotely complete": the target PE sees the data; a transport reaches it
 * at quiet(). Blocking calls return locally complete (gets: data arrived).
 * Non-blocking (nbi) calls may return before local completion; quiet() makes
 * all of an endpoint's earlier operations locally and remotely complete.
 * fence() orders an endpoint's earlier puts, atomics and signals to each PE
 * before its later ones to that PE. A transport without the ordering part
 * completes every operation on return.
 *
 * What a transport knows of the job is what the core hands it in init()
 * (shmt_job_t: the PEs, the node map, this PE's segments, the bootstrap
 * exchange); a transport includes no header of src/core or src/gpu and
 * reads none of their state (docs/architecture.md, "The layers").
 *
 * Threads. An endpoint (shmt_ep_t) belongs to one context; the core
 * serialises calls on one endpoint when the context may be shared between
 * threads, so the transport need not lock per endpoint (unless it declares
 * SHMT_CAP_EP_SHARED, below). init/finalize and ep_create/ep_destroy are
 * called by one thread at a time.
 *
 * Return values: 0 or a negative SHMI_E* code (src/services/error.h).
 */
#ifndef SHMT_TRANSPORT_H
#define SHMT_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "services/amo_op.h"
#include "services/dtype.h"
#include "services/gpu_ops.h"
#include "services/mem_kind.h"

/* Segments every PE has at the same offsets (see src/core/segment.h). */
typedef enum shmi_seg_id {
    SHMI_SEG_HEAP = 0,   /* the symmetric heap (shared-mappable) */
    SHMI_SEG_DATA = 1,   /* the program's data and bss */
    SHMI_SEG_DEVICE = 2, /* the device (GPU) symmetric heap, if any */
    SHMI_SEG_COUNT
} shmi_seg_id_t;

/* One segment of this PE, as the core hands it to the transports. */
typedef struct shmt_seg {
    char *base;  /* first byte in this process; NULL (size 0): none */
    size_t size; /* bytes */
    /* What a fabric may register for it: reg_base (base itself, or another
     * view of the same memory) as memory of kind mem on GPU `device`; NULL
     * when no network device may be handed it (device memory that only its
     * owner's copies reach). */
    void *reg_base;
    shmi_mem_kind_t mem;
    int device;
} shmt_seg_t;

/*
 * The core's host data path, for a transport that moves its data over it
 * (shmt_job_t.host): the device transport keeps its service ring in the
 * host heap and stages device data through the fabric. owner is the handle
 * ep_create was given (or ctx_create returned); routine names the public
 * routine in messages. Functions returning int give 0 or a negative
 * SHMI_E* code; the core retries what is only busy.
 */
typedef struct shmt_host {
    int fabric_up; /* 1 when a fabric transport runs in this job */

    /* Where (pe, seg, off) is mapped here for CPU loads and stores, or
     * NULL. */
    void *(*mapped)(int pe, shmi_seg_id_t seg, size_t off);
    /* 1 when words mapped here take CPU atomics: the job's one atomics
     * engine (docs/dataplane.md, "Atomic coherence"); known from connect,
     * so a transport reads it there, once, not on its data path. */
    int (*cpu_atomics)(void);
    /* 1 when the fabric reaches (pe, seg); fixed from connect likewise. */
    int (*fabric_reaches)(int pe, shmi_seg_id_t seg);

    /* Operations through the fabric on owner's endpoint, with the
     * semantics of the part members of the same names (shmt_put_fn, ...). */
    int (*fabric_put)(void *owner, int pe, shmi_seg_id_t seg, size_t off,
                      const void *src, size_t len, int nbi);
    int (*fabric_get)(void *owner, int pe, shmi_seg_id_t seg, size_t off,
                      void *dst, size_t len, int nbi);
    int (*fabric_amo)(void *owner, int pe, shmi_seg_id_t seg, size_t off,
                      shmi_amo_op_t op, shmi_dtype_t dt, const void *operand,
                      const void *compare, void *fetched, int nbi);
    int (*fabric_put_signal)(void *owner, int pe, shmi_seg_id_t seg,
                             size_t off, const void *src, size_t len,
                             shmi_seg_id_t sig_seg, size_t sig_off,
                             uint64_t signal, shmi_amo_op_t sig_op, int nbi);
    int (*fabric_quiet)(void *owner, int pe);

    /* A context of the transport's own, for a thread of its own (the
     * device service), with an endpoint on every transport; NULL when none
     * can be made. ctx_destroy completes and releases it. */
    void *(*ctx_create)(void);
    void (*ctx_destroy)(void *owner);

    /* Drives every transport's progress (cheap when nothing is pending). */
    void (*progress)(void);

    /* Collective, at the same point on every PE: a block of the host heap
     * (not cleared), at the same offset *off on every PE; NULL when the
     * heap has no room. sym_free releases it (collective as well). */
    void *(*sym_alloc)(size_t size, size_t align, size_t *off);
    void (*sym_free)(void *p);
} shmt_host_t;

/*
 * What the core hands every transport at init() (owned by the core, valid
 * until the transport's finalize()): the job, this PE's segments and the
 * bootstrap exchange.
 */
typedef struct shmt_job {
    int rank;             /* this PE, 0..size-1 */
    int size;             /* PEs in the job */
    int node_id;          /* this PE's node, 0..n_nodes-1 */
    int n_nodes;          /* nodes of the job */
    const int *node_of_pe; /* [size]: the node of every PE */
    int local_rank;       /* this PE's index among the PEs of its node */
    int local_size;       /* PEs on this node */
    const int *local_pes; /* [local_size]: those PEs, ascending */
    shmt_seg_t seg[SHMI_SEG_COUNT]; /* this PE's segments */

    /* The bootstrap exchange: publish() in init() what peers need under a
     * key of the transport's own ("ofi.name"); the core's fence follows;
     * lookup() in connect() reads a peer's. 0 or a negative SHMI_E* code. */
    int (*publish)(const char *key, const void *val, size_t len);
    int (*lookup)(int pe, const char *key, void *val, size_t len);

    /* For a load/store transport: opens and maps segment seg of pe (a PE
     * of this node) into this process; *base and *len give what to
     * munmap. SHMI_ENOTSUP when pe did not share that segment, another
     * negative code (logged) when it cannot be mapped. */
    int (*map_peer)(int pe, shmi_seg_id_t seg, void **base, size_t *len);
    /* Segments (bit 1 << seg) that a load/store transport may map on the
     * first access to a peer instead of at connect: their owners keep
     * them openable until their shmem_finalize (src/core/heap/segments.c,
     * shmi_segments_map_on_use). 0: map everything at connect. */
    unsigned map_on_use;

    /* For a transport that reaches device memory: the device back end of
     * the device heap (seg[SHMI_SEG_DEVICE]), NULL without one; and the
     * core's host path (above). */
    const shmi_gpu_ops_t *gpu;
    const shmt_host_t *host;
} shmt_job_t;

/* A transport's state for one context (libfabric: an endpoint + counters). */
typedef struct shmt_ep shmt_ep_t;

/*
 * What a transport can do, as data (shmt_caps_fn). The core chooses from
 * these bits, never from a transport's or provider's name.
 *
 * SHMT_CAP_LOAD_STORE  it reaches peers' memory with CPU loads and stores
 *                      (the segments it maps are handed to the core, which
 *                      then needs no call into the transport).
 * SHMT_CAP_ATOMICS_CPU the atomics it carries are applied at the target by
 *                      a CPU's atomic instructions, so they compose with CPU
 *                      atomics that other PEs apply to the same word.
 * SHMT_CAP_ATOMICS_NIC the atomics it carries are applied by the network
 *                      device (or anything else that is not coherent with
 *                      CPU atomics): a word it reaches must get every atomic
 *                      through it, from every PE (one engine per word,
 *                      docs/dataplane.md). A transport that carries atomics
 *                      reports exactly one of the two ATOMICS bits; one that
 *                      cannot tell reports NIC, the safe answer.
 * SHMT_CAP_ORDERED     writes and atomics from one endpoint to one peer are
 *                      applied in issue order, data included, so fence and
 *                      put-with-signal need not wait for delivery.
 * SHMT_CAP_HMEM        it reaches device (GPU) memory registered with it.
 * SHMT_CAP_EP_SHARED   several threads may call it on one endpoint at once
 *                      (it serialises what needs serialising itself, as a
 *                      transport calling the core's host path must), so the
 *                      core takes no context lock around its calls.
 *
 * What a transport can call is not a bit: it is the presence of a part
 * (and, in the collectives' part, of a member), below.
 * Remote completion at quiet() is not a bit: the contract above asks it of
 * every transport.
 */
#define SHMT_CAP_LOAD_STORE (1u << 0)
#define SHMT_CAP_ATOMICS_CPU (1u << 1)
#define SHMT_CAP_ATOMICS_NIC (1u << 2)
#define SHMT_CAP_ORDERED (1u << 3)
#define SHMT_CAP_HMEM (1u << 4)
#define SHMT_CAP_EP_SHARED (1u << 5)
#define SHMT_CAP_COUNT 6

/* The kinds of transport (shmt_ops_t.kind). */
#define SHMT_KIND_LOAD_STORE 1u /* maps the segments of this node's PEs */
#define SHMT_KIND_NETWORK    2u /* reaches any PE's registered segments */
#define SHMT_KIND_DEVICE     3u /* reaches device heaps (IPC, service) */

/* The name of a kind, as shmem_info prints it. */
static inline const char *shmt_kind_name(unsigned kind)
{
    switch (kind) {
    case SHMT_KIND_LOAD_STORE: return "load-store";
    case SHMT_KIND_NETWORK: return "network";
    case SHMT_KIND_DEVICE: return "device";
    default: return "?";
    }
}

/* The name of capability bit `bit` (0 .. SHMT_CAP_COUNT - 1), as logs and
 * shmem_info print it. */
static inline const char *shmt_cap_name(int bit)
{
    static const char *const names[SHMT_CAP_COUNT] = {
        "load-store", "atomics-cpu", "atomics-nic", "ordered", "hmem",
        "ep-shared"};

    return bit >= 0 && bit < SHMT_CAP_COUNT ? names[bit] : "?";
}

/*
 * ---- The function types ----
 *
 * Each signature is spelled here once: a part's member is a pointer to one
 * of these, and a transport declares its function with the type
 * (`static shmt_put_fn ofi_put;`) before defining it.
 */

/* Brings the transport up after bootstrap and segment set-up; publishes
 * what peers need (addresses, keys) with job->publish. Returns SHMI_ENODEV
 * when it cannot run here (then it is simply not used). The transport
 * keeps job until finalize(). */
typedef int shmt_init_fn(const shmt_job_t *job);
/* Called after the bootstrap fence: reads the peers' published data. */
typedef int shmt_connect_fn(void);
/* Releases everything; all endpoints were destroyed before. */
typedef void shmt_finalize_fn(void);
/* 1 when this transport can reach segment seg of pe. */
typedef int shmt_reachable_fn(int pe, shmi_seg_id_t seg);
/* What the transport can do here: SHMT_CAP_* bits. Valid from a
 * successful init() to finalize() (a fabric's answer depends on the
 * provider init() chose); the core asks once, at connect, never on the
 * data path. */
typedef unsigned shmt_caps_fn(void);

/* Endpoint per context; options are the SHMEM_CTX_* bits. owner is the
 * core's handle of the context it serves, for a transport that calls the
 * core's host path on its behalf (shmt_host_t); others ignore it. */
typedef int shmt_ep_create_fn(long options, void *owner, shmt_ep_t **ep);
typedef void shmt_ep_destroy_fn(shmt_ep_t *ep);

/* Drives manual progress (target-side emulated RMA/atomics); cheap when
 * nothing is pending. Called from every waiting loop. */
typedef void shmt_progress_fn(void);

/* Called (instead of init) when the job does not need this transport:
 * warns, naming the variable, about a setting of it that could not be
 * honoured were it used. */
typedef void shmt_check_unused_fn(const shmt_job_t *job);

/* Called once shmem_init's barrier has completed, when every PE has
 * reached the peers it must reach at start-up. Until then a peer that stays
 * unreachable is a broken network rather than a busy peer (every PE is
 * inside shmem_init, driving progress), so the transport may give up on it
 * after a bounded time. */
typedef void shmt_started_fn(void);

/* Where segment seg of pe is mapped in this process by this transport,
 * from connect() to finalize(), or NULL. A load/store transport
 * (SHMT_CAP_LOAD_STORE) maps host segments: the core asks once per (PE,
 * segment), at connect, and does the loads and stores itself, routing what
 * is neither mapped nor mapped on first use (map_now) elsewhere. The device transport maps peers' device heaps
 * through the back end's IPC: device addresses, which only the back end's
 * functions may touch (shmem_ptr returns them). */
typedef void *shmt_mapped_base_fn(int pe, shmi_seg_id_t seg);

/* For a load/store transport that maps some peers on first use
 * (shmt_job_t.map_on_use): maps segment seg of pe now, when reachable()
 * says the transport reaches it and mapped_base() has no mapping yet, and
 * returns mapped_base(pe, seg); NULL when it cannot be mapped (its owner
 * has closed it: it finalized), then and ever after. Safe to call from
 * several threads; the core calls it once per (PE, segment), on the first
 * access (src/core/route.c, shmi_route_map). */
typedef void *shmt_map_now_fn(int pe, shmi_seg_id_t seg);

/* The SHMT_CAP_* bits the transport would declare had it started on
 * `candidate`, one of the choices of its own that a tool lists (for the
 * libfabric transport a provider's struct fi_info: tools/shmem_info prints
 * the atomics engine of every provider it shows), with the job's settings
 * of the environment applied; asked before init, starts nothing. */
typedef unsigned shmt_caps_of_fn(const void *candidate);

/* RMA. nbi = 0: blocking as described at the top of this file. */
typedef int shmt_put_fn(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                        const void *src, size_t len, int nbi);
typedef int shmt_get_fn(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                        void *dst, size_t len, int nbi);
/* Put then a 64-bit signal update at (sig_seg, sig_off), sig_op
 * SHMI_AMO_SET or SHMI_AMO_ADD, that the target observes only after the
 * data. */
typedef int shmt_put_signal_fn(shmt_ep_t *ep, int pe, shmi_seg_id_t seg,
                               size_t off, const void *src, size_t len,
                               shmi_seg_id_t sig_seg, size_t sig_off,
                               uint64_t signal, shmi_amo_op_t sig_op, int nbi);

/* One atomic on a dtype-sized word (see shmi_amo in core_api.h). nbi = 0:
 * for fetching ops *fetched is valid on return; non-fetching ops are
 * complete at quiet. nbi = 1: *fetched is valid after quiet. */
typedef int shmt_amo_fn(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                        shmi_amo_op_t op, shmi_dtype_t dt,
                        const void *operand, const void *compare,
                        void *fetched, int nbi);

/* Ordering and completion (pe < 0: every PE). */
typedef int shmt_fence_fn(shmt_ep_t *ep);
typedef int shmt_quiet_fn(shmt_ep_t *ep, int pe);

/* put_signal with nbi = 0, except that where the data and its header fit
 * in one message, it is sent as such and the target applies it when it
 * next drives progress (data, then the signal with a CPU atomic): no
 * delivery round trip before the signal, no acknowledgement after it. Such
 * a message is not covered by fence or quiet on ep: the target learns of it
 * through the signal alone, which is all a collective waits for. Host
 * segments only. Only a transport whose atomics are CPU atomics
 * (SHMT_CAP_ATOMICS_CPU) provides it, so the signal composes with every
 * other update of the word. */
typedef int shmt_put_signal_msg_fn(shmt_ep_t *ep, int pe, shmi_seg_id_t seg,
                                   size_t off, const void *src, size_t len,
                                   shmi_seg_id_t sig_seg, size_t sig_off,
                                   uint64_t signal, shmi_amo_op_t sig_op);

/* Writes value into the 8-byte-aligned host word at (seg, off) of pe and
 * returns once the source may be reused: one message on the wire that
 * nothing acknowledges, and no work for the target's CPU beyond the
 * provider placing the bytes (no receive, no completion entry). Quiet on ep
 * completes it locally, never remotely, and nothing orders it after ep's
 * earlier operations or its own earlier words: only for a word that one PE
 * writes, with values the reader's wait accepts in any order of landing
 * (the barrier's parity words, src/core/coll/barrier.c). */
typedef int shmt_put_word_fn(shmt_ep_t *ep, int pe, shmi_seg_id_t seg,
                             size_t off, uint64_t value);

/* Writes the len bytes of src (len > 8, a multiple of 8) to the
 * 8-byte-aligned host address (seg, off) of pe, such that the last 8
 * bytes, the tag, become visible only after all the others: a reader that
 * waits for the tag, and then drives progress once when other threads of
 * its process may be progressing too, sees the whole buffer. A fabric does
 * it where its provider places a write's bytes in address order in the
 * target's own progress (a byte stream copied in order, under the
 * provider's progress lock): one write that nothing acknowledges, like
 * put_word. Returns once src may be reused; like put_word it is neither
 * ordered after ep's earlier operations nor covered by quiet beyond local
 * completion: only for a buffer that one PE writes and whose tag the
 * reader accepts in any order of landing (the reductions' tagged rounds,
 * src/core/coll/reduce.c). */
typedef int shmt_put_tagged_fn(shmt_ep_t *ep, int pe, shmi_seg_id_t seg,
                               size_t off, const void *src, size_t len);

/*
 * ---- The optional parts ----
 *
 * Each part begins with its size (sizeof the part the transport was built
 * with), so that a part can grow at its end: the core reads a member added
 * later only where the part's size covers it, and treats it as absent
 * otherwise. A part the base does not point at (NULL) is absent: the
 * transport cannot do any of its operations, and the core routes nothing
 * of that kind to it (an operation a route's transport lacks is an error
 * naming the routine, shmi_eng_transport_error in
 * src/core/engine/eng_call.c, with
 * SHMI_ENOSYS). A transport that has a part fills every member the part
 * names, except where a member says otherwise.
 */

/* RMA: what a transport that carries operations has. */
typedef struct shmt_rma_ops {
    size_t size;
    shmt_put_fn *put;
    shmt_get_fn *get;
    shmt_put_signal_fn *put_signal;
} shmt_rma_ops_t;

/* Atomics; which engine applies them is a capability bit
 * (SHMT_CAP_ATOMICS_CPU or _NIC). */
typedef struct shmt_atomic_ops {
    size_t size;
    shmt_amo_fn *amo;
} shmt_atomic_ops_t;

/* Ordering and completion. Absent: every operation of the transport is
 * complete, locally and remotely, on return (the core's fence and quiet
 * have nothing to ask it). */
typedef struct shmt_order_ops {
    size_t size;
    shmt_fence_fn *fence;
    shmt_quiet_fn *quiet;
} shmt_order_ops_t;

/* The runtime's own collectives' shortcuts (src/core/coll): cheaper forms
 * of put_signal and put that skip acknowledgements, for a fabric whose
 * provider allows them. Each member may be NULL, when the transport cannot
 * do that one here; like caps, the members are valid from a successful
 * init() to finalize() (a fabric fills them from the provider init()
 * chose), and the core reads them once, at connect (route.msg, .word and
 * .tagged, src/core/route.h). Without one the collectives use put_signal
 * and put. */
typedef struct shmt_coll_ops {
    size_t size;
    shmt_put_signal_msg_fn *put_signal_msg;
    shmt_put_word_fn *put_word;
    shmt_put_tagged_fn *put_tagged;
} shmt_coll_ops_t;

/*
 * ---- The base ----
 *
 * What every transport fills: its name and kind, its lifecycle, its reach
 * and capabilities, and a pointer to each part it has. The hooks marked
 * "NULL:" may be left NULL by a transport that has nothing to do there.
 */
typedef struct shmt_ops {
    size_t size;      /* sizeof(shmt_ops_t) the transport was built with */
    const char *name; /* "local", "ofi" */
    /* What the transport is for, as data the core reads before init()
     * (SHMT_KIND_*): the core starts a load/store transport on every job,
     * the first network transport of the registry that starts where a PE
     * is not mapped, and a device transport where a device heap exists. */
    unsigned kind;

    shmt_init_fn *init;
    shmt_connect_fn *connect;
    shmt_finalize_fn *finalize;
    shmt_reachable_fn *reachable;
    shmt_caps_fn *caps;

    /* A transport of kind network or device carries operations: it has
     * endpoints (one per context). NULL for a load/store transport, whose
     * operations the core does itself. */
    shmt_ep_create_fn *ep_create;
    shmt_ep_destroy_fn *ep_destroy;

    shmt_progress_fn *progress;         /* NULL: nothing to drive */
    shmt_check_unused_fn *check_unused; /* NULL: nothing to check */
    shmt_started_fn *started;           /* NULL: nothing to do */
    shmt_mapped_base_fn *mapped_base;   /* NULL: maps nothing */
    shmt_map_now_fn *map_now;           /* NULL: maps all at connect */
    shmt_caps_of_fn *caps_of;           /* NULL: no choices to list */

    /* The parts (above); NULL: the transport lacks it. */
    const shmt_rma_ops_t *rma;
    const shmt_atomic_ops_t *atomic;
    const shmt_order_ops_t *order;
    const shmt_coll_ops_t *coll;
} shmt_ops_t;

/* The transport's capabilities. */
static inline unsigned shmt_caps(const shmt_ops_t *t)
{
    return t->caps();
}

/* The transports built into this library. */
extern const shmt_ops_t shmt_local_ops;
extern const shmt_ops_t shmt_ofi_ops;
extern const shmt_ops_t shmt_device_ops;

/* transports/registry.c: every transport built in, in the order the core
 * prefers them, ending with NULL. */
extern const shmt_ops_t *const shmt_registry[];

/* The smallest `size` the core accepts for the base: every member it
 * reads, coll the last. */
#define SHMT_OPS_MIN_SIZE                                                      \
    (offsetof(shmt_ops_t, coll) + sizeof(((shmt_ops_t *)0)->coll))

/* 0 when t can be used: its base covers SHMT_OPS_MIN_SIZE, every part it
 * has covers the members the core reads, and it has the members its kind
 * needs (ep_create, ep_destroy and the RMA part for a transport that
 * carries operations). Otherwise SHMI_EINVAL with a message naming the
 * transport and what is missing written to why. */
int shmt_registry_check(const shmt_ops_t *t, char *why, size_t len);

#endif /* SHMT_TRANSPORT_H */
