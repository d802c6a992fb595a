/*
 * The libfabric transport's private state, shared by the files of
 * transports/ofi/ (one concept per file):
 *   ofi_provider.c  which provider and what to ask of it (fi_getinfo)
 *   ofi_caps.c      what the chosen provider can do (SHMT_CAP_* bits)
 *   ofi_domain.c    fabric, domain, address vector, segment registration,
 *                   address/key exchange (init, connect, finalize)
 *   ofi_ep.c        endpoints with their counters and completion queue
 *   ofi_progress.c  manual progress, waiting for counters, back-off
 *   ofi_rma.c       put and get (chunking, inject, local descriptors), and
 *                   put_word and put_tagged, the collectives'
 *                   unacknowledged writes
 *   ofi_amo.c       atomics (datatype/op mapping, emulation)
 *   ofi_order.c    put-with-signal, fence, quiet
 *   ofi_msg.c       put-with-signal by message, for the collectives
 *   ofi_hmem.c      the device heap: FI_HMEM registration, device service
 *   ofi_ops.c       the shmt_ofi_ops table
 *
 * Completion model (docs/design.md, decision 5): every operation is posted with
 * FI_DELIVERY_COMPLETE and without FI_COMPLETION, so it produces no CQ entry
 * on success and is counted by the initiator's counters only: wcntr counts
 * puts and non-fetching atomics, rcntr gets and fetching atomics. Quiet waits
 * until each counter (successes + errors) reaches what was issued. The CQ
 * carries errors, and on the target endpoint the arrival of the
 * collectives' signal messages (ofi_msg.c, the one kind of operation that
 * is neither counted nor covered by quiet). put_word and put_tagged
 * (ofi_rma.c) are the other exception: injected with FI_INJECT_COMPLETE,
 * counted, and so complete at quiet once sent, not delivered; or, under
 * ofi_rxm, injected from the target endpoint and not counted at all.
 * There the target endpoint has no write counter: ofi_rxm injects a
 * write straight into its connection only from an endpoint without one.
 * Its writes and non-fetching atomics carry FI_COMPLETION instead and
 * are counted from its CQ (writes_on_cq, ofi_progress.c), which every
 * progress call reads anyway. Remote counters are never used (ofi_rxm
 * has none).
 * Blocking puts up to inject_size are injected; up to SHMEM_OFI_BOUNCE bytes
 * they are copied into the endpoint's registered bounce space; both return
 * at once and complete at quiet. Providers that apply writes and atomics to
 * a peer in issue order (shmt_ofi.ordered) spare put-with-signal and fence
 * the wait for delivery.
 *
 * Threads: the domain is opened FI_THREAD_SAFE. The core serialises calls
 * per endpoint only; at SHMEM_THREAD_MULTIPLE contexts on different threads
 * use their endpoints concurrently while any thread may run progress() on
 * the target endpoint, which FI_THREAD_DOMAIN forbids. shmem_init sets the
 * thread level before the transports start, but the contract does not hand
 * it to init(), and a device service thread (transports/device) uses
 * its own endpoint beside the program's even in SHMEM_THREAD_SINGLE, so the
 * domain is thread-safe for every program; the provider's locks are
 * uncontended and cheap in single-threaded ones. The endpoint list is
 * guarded by eps_lock (ep_create may run while another thread progresses).
 */
#ifndef SHMT_OFI_INTERNAL_H
#define SHMT_OFI_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "services/error.h"
#include "transports/ofi/ofi_caps.h"
#include "transports/transport.h"

/* The libfabric API version Weft is written against. */
#define SHMT_OFI_FI_VERSION FI_VERSION(1, 17)

/* Slots for the operands of non-blocking fetching atomics: the caller's
 * operand may live on its stack, so it is copied here until quiet. */
#define SHMT_OFI_AMO_SLOTS 64

/* Bytes of registered copy space per endpoint for blocking puts a little
 * over inject_size (SHMEM_OFI_BOUNCE): they return at once and complete at
 * quiet; the space is free again whenever every write has completed. */
#define SHMT_OFI_BOUNCE_AREA ((size_t)64 * 1024)

/* The libfabric functions Weft calls that are not inline (ofi_dl.c): the
 * library is dlopen'ed on first use, so these are reached through here. */
typedef struct shmt_ofi_lib {
    __typeof__(&fi_getinfo) getinfo;
    __typeof__(&fi_freeinfo) freeinfo;
    __typeof__(&fi_dupinfo) dupinfo;
    __typeof__(&fi_fabric) fabric;
    __typeof__(&fi_strerror) strerror;
} shmt_ofi_lib_t;

extern shmt_ofi_lib_t shmt_ofi_lib;

/* Loads libfabric once; 0, or SHMI_ENODEV (logged) when it cannot. */
int shmt_ofi_lib_load(void);

/* One registered segment as seen by one endpoint (or the whole domain). */
typedef struct shmt_ofi_mr {
    struct fid_mr *mr; /* NULL when the segment does not exist */
    void *desc;        /* local descriptor (FI_MR_LOCAL), else NULL */
    uint64_t key;      /* remote key peers use */
} shmt_ofi_mr_t;

/* Operand storage of one in-flight non-blocking fetching atomic. */
typedef struct shmt_ofi_amo_slot {
    uint64_t operand; /* up to 8 bytes */
    uint64_t compare;
    uint64_t result;  /* used when results need a local descriptor */
} shmt_ofi_amo_slot_t;

struct shmt_ep {
    struct fid_ep *ep;
    struct fid_cq *cq;      /* errors only (FI_SELECTIVE_COMPLETION) */
    struct fid_cntr *wcntr; /* completed puts and non-fetching atomics */
    struct fid_cntr *rcntr; /* completed gets and fetching atomics */
    uint64_t w_issued;      /* operations issued that count on wcntr */
    uint64_t r_issued;      /* operations issued that count on rcntr */
    uint64_t w_waited;      /* w_issued when a wait last found all done */
    uint64_t r_waited;      /* r_issued likewise */
    uint64_t w_done;        /* writes completed, counted from cq entries
                               (writes_on_cq) */
    uint64_t cq_errs;       /* error entries read from cq */
    uint64_t errs_reported; /* failures already turned into SHMI_EIO */
    int id;                 /* 0: the target endpoint whose name peers hold */
    int in_use;             /* handed out by ep_create */
    int writes_on_cq;       /* no write counter: writes and non-fetching
                               atomics carry FI_COMPLETION, counted in
                               w_done (the target endpoint, when
                               shmt_ofi.target_writes_on_cq) */
    /* Per-endpoint registrations (FI_MR_ENDPOINT); else copies of the
     * domain-wide ones. */
    shmt_ofi_mr_t mr[SHMI_SEG_COUNT];
    shmt_ofi_amo_slot_t *amo_slots; /* SHMT_OFI_AMO_SLOTS, lazily */
    shmt_ofi_mr_t amo_mr;            /* amo_slots' registration (FI_MR_LOCAL) */
    unsigned amo_next;               /* next free slot since last quiet */
    char *bounce;                    /* SHMT_OFI_BOUNCE_AREA, lazily */
    shmt_ofi_mr_t bounce_mr;         /* its registration */
    size_t bounce_used;              /* bytes handed out since all writes
                                        last completed */
    struct shmt_ep *next;            /* list of every endpoint */
};

/* What the provider returned and obeys; set by shmt_ofi_provider_choose. */
typedef struct shmt_ofi {
    struct fi_info *info;  /* the chosen entry (owned; fi_freeinfo) */
    const char *prov;      /* info->fabric_attr->prov_name */
    uint64_t mr_mode;      /* FI_MR_* bits the provider requires */
    size_t max_msg;        /* chunk size for put/get */
    size_t inject_size;    /* largest FI_INJECT write */
    int thread_safe;       /* the provider granted FI_THREAD_SAFE */
    int amo_as_fetch;      /* quirk: post non-fetching atomics as fetching
                              ones (see ofi_amo.c) */
    int ordered;           /* writes and atomics from one endpoint to one
                              peer are applied in issue order, data
                              included (msg_order WAW/RAW, any size) */
    int signal_msg;        /* put_signal_msg sends messages (ofi_msg.c):
                              the provider's atomics are CPU atomics and
                              SHMEM_OFI_SIGNAL_MSG=1 */
    int put_word;          /* put_word injects unacknowledged writes
                              (ofi_rma.c): SHMEM_OFI_SIGNAL_MSG=1 and a
                              provider that sends them when posted */
    int put_tagged;        /* put_tagged injects unacknowledged writes
                              (ofi_rma.c): put_word and signal_msg, and a
                              provider that places a write's bytes in
                              address order (tcp) */
    int target_writes_on_cq; /* the target endpoint counts its writes on
                                its CQ, and put_word and put_tagged inject
                                from it uncounted: put_word under ofi_rxm
                                (ofi_provider.c) */

    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;

    shmt_ofi_mr_t mr[SHMI_SEG_COUNT]; /* domain-wide (no FI_MR_ENDPOINT) */

    const shmt_job_t *job;             /* what the core handed init() */
    int npes;
    fi_addr_t *addr;                   /* [npes] */
    uint64_t *rkey[SHMI_SEG_COUNT];    /* [npes] remote keys */
    uint64_t *rbase[SHMI_SEG_COUNT];   /* [npes] remote bases (0 w/o VIRT_ADDR) */
    uint64_t *rsize[SHMI_SEG_COUNT];   /* [npes] segment sizes (0: none) */
    int connected;                     /* connect() completed */
    int starting; /* from connect() to started(): shmem_init is running, so
                     a peer out of reach is given up on (ofi_reach.c) */

    shmt_ep_t *target; /* endpoint 0: the one peers address */
    shmt_ep_t *eps;    /* every endpoint (guarded by eps_lock) */
    pthread_mutex_t eps_lock;
    int next_ep_id;
} shmt_ofi_t;

extern shmt_ofi_t shmt_ofi;

/* ---- ofi_provider.c ---- */
/* Chooses the provider (SHMEM_OFI_PROVIDER, FI_PROVIDER, preference) and
 * fills shmt_ofi.info and the limits; SHMI_EINVAL on a bad variable
 * (SHMEM_OFI_PROVIDER, or a SHMEM_OFI_DOMAIN the provider does not have),
 * SHMI_ENOSPC when the shm provider asked for has no room in /dev/shm,
 * SHMI_ENODEV when nothing usable is there. */
int shmt_ofi_provider_choose(void);
/* The transport's check_unused (transports/transport.h). */
shmt_check_unused_fn shmt_ofi_check_unused;

/* ---- ofi_shm_region.c: regions of the shm provider ---- */
/* Removes this user's regions whose process is gone; reports (local PE 0)
 * a file in this user's region names that another user owns. Before the
 * domain is opened; nothing unless the provider is shm. */
void shmt_ofi_shm_sweep(void);
/* Gives ep an unguessable region name (fi_setname) before fi_enable; id is
 * the endpoint's number. 0, or SHMI_EIO when that fails. */
int shmt_ofi_shm_name(struct fid_ep *ep, int id);
/* Says which region file fi_enable (which returned ret) could not make. */
void shmt_ofi_shm_enable_failed(struct fid_ep *ep, int ret);

/* ---- ofi_domain.c ---- */
shmt_init_fn shmt_ofi_init;
shmt_connect_fn shmt_ofi_connect;
shmt_finalize_fn shmt_ofi_finalize;
shmt_reachable_fn shmt_ofi_reachable;
/* Registers every existing segment for ep (FI_MR_ENDPOINT) or the domain
 * (ep == NULL); fills mr[]. */
int shmt_ofi_mr_register(shmt_ep_t *ep, shmt_ofi_mr_t mr[SHMI_SEG_COUNT]);
void shmt_ofi_mr_release(shmt_ofi_mr_t mr[SHMI_SEG_COUNT]);
/* The key to request for a new registration: 0 when the provider chooses
 * (FI_MR_PROV_KEY), else random bits of the provider's mr_key_size, never 0
 * (see ofi_domain.c). 0, or SHMI_EIO (logged) when no random bytes came. */
int shmt_ofi_mr_key(uint64_t *key);
/* Random keys tried per registration when the provider says one is taken
 * (-FI_ENOKEY: another registration of this domain has it). */
#define SHMT_OFI_KEY_TRIES 8
/* Registers [base, base+size) for ep (bound to it with FI_MR_ENDPOINT). */
int shmt_ofi_mr_one(shmt_ep_t *ep, void *base, size_t size,
                    shmt_ofi_mr_t *out);
/* Local descriptor for [buf, buf+len) on ep, or NULL when none applies. */
void *shmt_ofi_local_desc(shmt_ep_t *ep, const void *buf, size_t len);
/* Remote address of (pe, seg, off) as the provider wants it. */
static inline uint64_t shmt_ofi_raddr(int pe, shmi_seg_id_t seg, size_t off)
{
    return shmt_ofi.rbase[seg][pe] + (uint64_t)off;
}

/* ---- ofi_hmem.c ---- */
/* Asks for FI_HMEM when the device heap needs it (after the choice). */
void shmt_ofi_hmem_caps(void);
/* Registers the device heap with FI_HMEM for ep (or the domain); out->mr
 * stays NULL when the provider cannot reach it. Never fails. */
int shmt_ofi_hmem_register(shmt_ep_t *ep, shmt_ofi_mr_t *out);
/* The address published for segment seg (the registered one). */
uint64_t shmt_ofi_seg_base(int seg);
void shmt_ofi_hmem_finalize(void);

/* ---- ofi_msg.c ---- */
/* Posts the target endpoint's receive buffers (after it is open) and
 * releases them (after it is closed). */
int shmt_ofi_msg_init(void);
void shmt_ofi_msg_finalize(void);
/* An entry of a CQ completed with context: a signal message that arrived
 * (applied, its buffer reposted) or a long one that was sent; anything
 * else is ignored. */
void shmt_ofi_msg_completed(void *context);
shmt_put_signal_msg_fn shmt_ofi_put_signal_msg;

/* The context of every write and non-fetching atomic: what marks, on a
 * writes_on_cq endpoint's CQ, the completion of one counted write. */
extern char shmt_ofi_write_ctx;

/* The flags that make a counted write or non-fetching atomic on ep
 * report its completion where ep counts it. */
static inline uint64_t shmt_ofi_count_flags(const shmt_ep_t *ep)
{
    return ep->writes_on_cq ? FI_COMPLETION : 0;
}

/* ---- ofi_ep.c ---- */
/* writes_on_cq: count writes from the CQ, bind no write counter. */
int shmt_ofi_ep_open(shmt_ep_t **out, int writes_on_cq);
void shmt_ofi_ep_close(shmt_ep_t *ep);
shmt_ep_create_fn shmt_ofi_ep_create;
shmt_ep_destroy_fn shmt_ofi_ep_destroy;

/* ---- ofi_progress.c ---- */
shmt_progress_fn shmt_ofi_progress;
/* Drives progress on ep (and the target endpoint). */
void shmt_ofi_ep_progress(shmt_ep_t *ep);
/* Waits until ep's counters reach what was issued (w: writes, r: reads).
 * SHMI_EIO when an operation failed. */
int shmt_ofi_wait_writes(shmt_ep_t *ep);
int shmt_ofi_wait_reads(shmt_ep_t *ep);

/* Back-off for waiting loops: spins first, then yields, then sleeps. */
typedef struct shmt_ofi_backoff {
    unsigned polls;
} shmt_ofi_backoff_t;
void shmt_ofi_backoff(shmt_ofi_backoff_t *b);

/* Posts with `post` (an operation to pe) until it stops returning
 * -FI_EAGAIN, progressing ep between attempts. Logs and maps a failure to
 * SHMI_EIO; during shmem_init, SHMI_ETIMEDOUT when pe stayed out of reach
 * (shmt_ofi_reach_gave_up). */
typedef ssize_t (*shmt_ofi_post_fn)(shmt_ep_t *ep, void *arg);
int shmt_ofi_post(shmt_ep_t *ep, int pe, const char *call,
                  shmt_ofi_post_fn post, void *arg);

/* Logs a failed libfabric call with the provider and fi_strerror. */
void shmt_ofi_log_fail(const char *call, int ret);

/* ---- ofi_reach.c ---- */
/* 1 when name (an endpoint address of libfabric format fmt) is a loopback
 * address (127.0.0.0/8, ::1, ::ffff:127.x.y.z); 0 for any other address or
 * format. */
int shmt_ofi_addr_loopback(uint32_t fmt, const void *name, size_t len);
/* name as "a.b.c.d:port" or "[v6]:port" (or its format and size). */
void shmt_ofi_addr_text(uint32_t fmt, const void *name, size_t len, char *buf,
                        size_t size);
/* Reads pe's endpoint address into name (*len bytes of room, set to the
 * length); 0 or a negative SHMI_E* code. */
typedef int (*shmt_ofi_name_fn)(int pe, void *name, size_t *len, void *arg);
/* The first PE on another node than me (node_of_pe) that cannot reach me or
 * be reached by me because either address is a loopback one, or -1. */
int shmt_ofi_reach_find(uint32_t fmt, int me, int npes, const int *node_of_pe,
                        shmt_ofi_name_fn name_of, void *arg);
/* Start-up check of a job spanning nodes, once every peer is in the address
 * vector: 0, or SHMI_EIO after a message naming two PEs of different nodes
 * that cannot reach each other (a loopback address on either side), the
 * provider and both addresses. */
int shmt_ofi_reach_check(void);
/* Called between attempts of a post to pe that keep returning -FI_EAGAIN
 * (*since: when they began, 0 at first). During shmem_init only, 1 after
 * SHMT_OFI_REACH_LIMIT_S of them, with a message naming both PEs, their
 * nodes and addresses, the provider and the call; 0 otherwise. */
int shmt_ofi_reach_gave_up(int pe, const char *call, double *since);
/* The transport's started (transports/transport.h). */
shmt_started_fn shmt_ofi_started;

/* ---- ofi_rma.c ---- */
shmt_put_fn shmt_ofi_put;
shmt_get_fn shmt_ofi_get;
shmt_put_word_fn shmt_ofi_put_word;
shmt_put_tagged_fn shmt_ofi_put_tagged;

/* ---- ofi_amo.c ---- */
/* Queries which atomics the provider has (on the target endpoint). */
int shmt_ofi_amo_init(void);
/* Forgets every atomic but compare-swap, so that all others are emulated
 * (tests of the emulation; call after init). */
void shmt_ofi_amo_only_cswap(void);
shmt_amo_fn shmt_ofi_amo;

/* ---- ofi_order.c ---- */
shmt_put_signal_fn shmt_ofi_put_signal;
shmt_fence_fn shmt_ofi_fence;
shmt_quiet_fn shmt_ofi_quiet;

#endif /* SHMT_OFI_INTERNAL_H */
