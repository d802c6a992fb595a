/*
 * Internals shared by the collective algorithms (src/core/coll/).
 *
 * Synchronization model. Every team slot owns symmetric state (struct
 * shmi_coll_slot, in the symmetric heap) in which other PEs raise *counting*
 * flags: a sender adds 1 (an atomic add, or the signal of a put-with-signal)
 * and the receiver waits until the flag is >= the number of arrivals it
 * expects, then takes them away again with an atomic subtract. Counting
 * flags never lose an arrival, so a PE that runs ahead into the next
 * collective cannot wipe the signal of the previous one.
 *
 * Flags and scratch buffers come in two parities, alternating per flag
 * family from one call to the next (shmi_coll_begin). Every family but the
 * broadcast's is "all-dependent": no member finishes call j+1 before this PE
 * has sent its share of j+1, i.e. finished call j; so traffic of call j+2
 * (same parity as j) never meets this PE still inside call j. Broadcasts and
 * scans, whose roots/first PEs depend on nobody, begin with a sync instead.
 * Every message a PE receives in a call is taken in that call, so a slot is
 * clean between calls and can be handed to a new team.
 *
 * Algorithms (SHMEM_*_ALGORITHM, SHMEM_COLL_LARGE; auto by size and shape):
 *   barrier/sync   dissemination (log2 n rounds), flat, or two-level (flat
 *                  within each node, dissemination among node leaders;
 *                  auto when the team spans several nodes, or when the
 *                  job crowds its cores: barrier.c)
 *   broadcast      sync + binomial tree of put-with-signal into dest; pull
 *                  (every PE gets from the root) for large messages; two-
 *                  level tree (leaders, then node members) across nodes
 *   reduce         recursive doubling in 2 KiB chunks (with fold-in/out for
 *                  sizes that are not powers of two; a chunk of up to
 *                  1 KiB in tagged rounds, its data and the reduction's
 *                  number in one write, shmi_coll_tagged_t); two-level
 *                  (tree in each node, doubling among leaders) across
 *                  nodes, and on crowded cores; for
 *                  large arrays a sliced reduce-scatter + allgather on the
 *                  user's arrays (non-blocking gets from every peer, one
 *                  wait, non-blocking puts; through a symmetric copy when
 *                  the arrays are private)
 *   scan           sync + Hillis-Steele (log2 n rounds) per chunk
 *   fcollect, collect, alltoall(s)
 *                  every PE puts its blocks straight into every dest (n-1
 *                  put-with-signal each, ring order); collect first takes
 *                  an exclusive scan of the sizes for its offset
 */
#ifndef SHMI_COLL_H
#define SHMI_COLL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/core_decl.h"
#include "core/core_api.h"
#include "core/coll/peer_record.h"
#include "core/engine/engine.h"
#include "core/team/team.h"

/* Rounds of a log2 algorithm (dissemination, recursive doubling), plus the
 * two extra steps that fold non-power-of-two sizes in and out. */
#define SHMI_COLL_ROUNDS   24
#define SHMI_COLL_FOLD_IN  (SHMI_COLL_ROUNDS - 2)
#define SHMI_COLL_FOLD_OUT (SHMI_COLL_ROUNDS - 1)
/* Bytes of scratch per round and parity; reductions go in chunks of this. */
#define SHMI_COLL_CHUNK 2048
/* Bytes of data a tagged reduction round carries (reduce.c); chunks up to
 * this size go that way. */
#define SHMI_COLL_TAGGED 1024

/* Which flag family a collective signals on. */
enum shmi_coll_kind {
    SHMI_SIG_BCAST,  /* broadcast tree: data is in dest */
    SHMI_SIG_DIRECT, /* fcollect/collect/alltoall(s): n-1 arrivals in dest */
    SHMI_SIG_REDUCE, /* reduction rounds: data is in buf */
    SHMI_SIG_SCAN,   /* scan rounds: data is in buf */
    SHMI_SIG_KINDS
};

/*
 * The buffer of one tagged reduction round: the data end right before the
 * tag, the number of the reduction that sent them (reduce.c), so that one
 * write carries both and the reader waits for the tag alone. The data
 * start SHMI_COLL_TAGGED - padded bytes into data[], padded being their
 * size rounded up to their elements' alignment (shmi_coll_tagged_span).
 */
typedef struct shmi_coll_tagged {
    _Alignas(16) unsigned char data[SHMI_COLL_TAGGED];
    uint64_t tag;
} shmi_coll_tagged_t;

/* Symmetric state of one team slot (zero when the slot is handed out). */
_Static_assert(SHMI_SIG_KINDS <= 4, "struct shmem_impl_team op_count");

typedef struct shmi_coll_slot {
    uint64_t bar[SHMI_COLL_ROUNDS]; /* counting barriers (flat, two-level,
                                       pSync-less syncs), per step */
    uint64_t bar_word[2][SHMI_COLL_ROUNDS]; /* dissemination barrier:
                                               [parity][round], the number
                                               of the barrier (barrier.c) */
    uint64_t ctx_bar; /* arrivals of shmi_coll_ctx_sync (ctx_sync.c) */
    uint64_t sig[2][SHMI_SIG_KINDS]
                [SHMI_COLL_ROUNDS]; /* [parity][kind][round] */
    /* Aligned for the widest element a reduction reads in place (long
     * double: 16 bytes), whatever the flags before it add up to. */
    _Alignas(64) unsigned char buf[2][SHMI_COLL_ROUNDS]
                                  [SHMI_COLL_CHUNK]; /* [parity][round] */
    _Alignas(64) shmi_coll_tagged_t
        tagged[2][SHMI_COLL_ROUNDS]; /* [number % 2][round] (reduce.c) */
} shmi_coll_slot_t;

/* Algorithms chosen by SHMEM_*_ALGORITHM (read once at start-up); each
 * collective has its own, named as in env_table.h, AUTO (0) picking by the
 * team's shape and the message size. */
typedef enum shmi_barrier_alg {
    SHMI_BARRIER_AUTO,
    SHMI_BARRIER_DISSEMINATION, /* log2(n) rounds of pairwise flags */
    SHMI_BARRIER_FLAT,          /* all signal team PE 0, which releases all */
    SHMI_BARRIER_TWOLEVEL,      /* flat in each node, dissemination among
                                 * node leaders */
} shmi_barrier_alg_t;

typedef enum shmi_bcast_alg {
    SHMI_BCAST_AUTO,
    SHMI_BCAST_TREE,     /* binomial push from the root */
    SHMI_BCAST_PULL,     /* every PE reads the root's source */
    SHMI_BCAST_TWOLEVEL, /* tree among node leaders, then within nodes */
} shmi_bcast_alg_t;

typedef enum shmi_reduce_alg {
    SHMI_REDUCE_AUTO,
    SHMI_REDUCE_DOUBLING, /* recursive doubling */
    SHMI_REDUCE_SLICES,   /* reduce-scatter by slices, then allgather */
    SHMI_REDUCE_TWOLEVEL, /* tree inside each node, doubling among leaders */
} shmi_reduce_alg_t;

typedef struct shmi_coll_algo {
    shmi_barrier_alg_t barrier;
    shmi_bcast_alg_t bcast;
    shmi_reduce_alg_t reduce;
    size_t large; /* SHMEM_COLL_LARGE: bytes per PE */
    int crowded;  /* 1: some PE of the job shares its cores with more PEs
                     of the job than it has cores; alike on every PE
                     (shmi_coll_crowd_agree) */
} shmi_coll_algo_t;
extern shmi_coll_algo_t shmi_coll_algo;

/*
 * Sets shmi_coll_algo.crowded on every PE to the largest of the PEs' own
 * answers (shmi_backoff_job_crowded): one reduction over SHMEM_TEAM_WORLD,
 * within shmem_init's first barrier call once the teams are set up (one
 * collective call of shmem_init for the watchdog and SHMEM_DEBUG), so
 * that every member of any team picks the same algorithm by it.
 */
void shmi_coll_crowd_agree(void);

/*
 * The context of the collectives' own traffic: their flags, the data of
 * their put-with-signal, the gets and puts of the pull broadcast, the
 * sliced reduction and alltoalls, and the fences and quiets between them.
 * Over a fabric it has endpoints of its own, so that the quiet with which
 * shmem_barrier_all starts (on the program's default context) waits only
 * for the program's operations, never for the delivery of the signals of
 * an earlier collective: on tcp;ofi_rxm that delivery is a round trip, and
 * waiting for it made every barrier in a row two round trips long. Without
 * a fabric, or when its endpoints cannot be made, it is the default
 * context. Set by shmi_coll_state_init.
 */
extern shmem_ctx_t shmi_coll_context;

/* A lane of nonblocking collectives (nbc_lane.c) runs the same algorithms
 * on a thread of its own, beside the program's collectives on other teams:
 * its traffic goes through a context of its own, set here for its thread
 * (NULL on every other thread). Initial-exec: one load from the thread
 * pointer, where the general model's call to __tls_get_addr added 40
 * instructions to every barrier (bench/coll/instr-count.sh); 8 bytes of
 * the static TLS that a library loaded later (a Python import) finds
 * reserved. */
extern _Thread_local shmem_ctx_t shmi_coll_lane_ctx
    __attribute__((tls_model("initial-exec")));

/* The context of the calling thread's collective traffic. */
static inline shmem_ctx_t shmi_coll_ctx(void)
{
    shmem_ctx_t lane = shmi_coll_lane_ctx;

    return lane != NULL ? lane : shmi_coll_context;
}

/* From now on the collectives' signals are delivered atomics, never
 * messages or unacknowledged words (route.h, msg and word), so that quiet
 * on shmi_coll_context covers them:
 * shmem_finalize calls it before its barrier, after which a PE may leave
 * and nothing it sent may still be on its way. */
void shmi_coll_msg_stop(void);

/* Places the slots (shmem_init, before any team exists) and the
 * collectives' context, and frees them. */
int shmi_coll_state_init(void);
void shmi_coll_state_finalize(void);

/* The slots; symmetric (same offset on every PE). coll_state.c */
shmi_coll_slot_t *shmi_coll_slot(int slot);

/*
 * A barrier over team t (shmem_team_sync semantics) through context ctx,
 * for threads of the runtime that synchronise beside the program's own
 * collectives (the stream lanes, src/core/stream): it uses only the
 * slot's ctx_bar word, never the flags and buffers the team's collectives
 * use. Each member adds one to ctx_bar of every other member and waits for
 * its own to count n - 1 arrivals more than at its previous call. Members
 * call it on a team in the same order, as for any collective. ctx_sync.c
 */
void shmi_coll_ctx_sync(const char *routine, struct shmem_impl_team *t,
                        shmem_ctx_t ctx);
/* Forgets the arrivals counted on slot (its team is made anew). */
void shmi_coll_ctx_sync_reset(int slot);

/*
 * Where a collective on device buffers runs (reduce_device.c): the context
 * of its RMA, a device stream of its own for its kernels, device scratch
 * kept between calls, and how it synchronises: through the team's own
 * barrier (the program's thread) or shmi_coll_ctx_sync (a stream lane,
 * src/core/stream, beside the program's collectives).
 */
typedef struct shmi_coll_exec {
    shmem_ctx_t ctx;
    void *work_stream; /* NULL until first needed (the program's thread) */
    void *scratch;
    size_t scratch_size;
    int lane; /* 1: synchronise with shmi_coll_ctx_sync */
} shmi_coll_exec_t;

/* The program thread's exec (thread-local; SHMEM_CTX_DEFAULT). */
shmi_coll_exec_t *shmi_coll_exec_self(void);
/* Device scratch of exec of at least size bytes (grown on demand). */
void *shmi_coll_exec_scratch(const char *routine, shmi_coll_exec_t *x,
                             size_t size);
/* The barrier exec uses over team t. */
void shmi_coll_exec_sync(const char *routine, shmi_coll_exec_t *x,
                         struct shmem_impl_team *t);

/* 1 when a reduction of nbytes from src to dest runs on the GPU: both in
 * the device heap (so alike on every PE), SHMEM_DEVICE_REDUCE=gpu and a
 * back-end kernel for (op, dt). */
int shmi_coll_reduce_device_ok(const void *dest, const void *src,
                               size_t nbytes, shmi_dtype_t dt, shmi_op_t op);
/* The reduction on the GPU (reduce_device.c): each PE reads every other
 * member's source into device memory and combines it with the back end's
 * kernel; no host buffer, no host arithmetic. Where the back end has no
 * kernel for (op, dt), or SHMEM_DEVICE_REDUCE=host, the same reads go to
 * host memory and the host combines them (the stream lanes' only path). */
void shmi_coll_reduce_device(const char *routine, shmi_coll_exec_t *x,
                             struct shmem_impl_team *t, void *dest,
                             const void *src, size_t nelems, shmi_dtype_t dt,
                             shmi_op_t op);

/* Zeroes slot's state on this PE (before the team is first used). */
void shmi_coll_slot_reset(int slot);

/* ---- flags --------------------------------------------------------------- */

/* Adds 1 to *flag on world PE wpe. */
void shmi_coll_flag_add(uint64_t *flag, int wpe);

/* Waits until the local *flag >= count, then subtracts count from it. */
void shmi_coll_flag_take(uint64_t *flag, uint64_t count);

/* The same, when the arrivals can only come from world PE from: a wait for
 * a PE that has finalized is then known to be hopeless (peer_record.h). */
void shmi_coll_flag_take_from(uint64_t *flag, uint64_t count, int from);

/* ---- single-writer words (the dissemination barrier's, barrier.c) ------- */

/* The number of the next dissemination barrier on slot: 1, 2, ... (private
 * to this PE; slot_reset restarts it). */
uint64_t shmi_coll_bar_next(int slot);

/* Sets *word on world PE wpe to value (shmi_eng_put_word: a store, or
 * one unacknowledged write or message, until shmem_finalize's barrier). */
void shmi_coll_word_set(uint64_t *word, uint64_t value, int wpe);

/* Waits until the local *word >= want; only world PE from writes it. */
void shmi_coll_word_wait(const uint64_t *word, uint64_t want, int from);

/* ---- tagged buffers (the small reductions' rounds, reduce.c) ------------ */

/* The number of the next tagged reduction on slot: 1, 2, ... (private to
 * this PE; slot_reset restarts it). */
uint64_t shmi_coll_tag_next(int slot);

/* Bytes of a tagged buffer that nbytes of data with elements of esz bytes
 * take, tag included: the data padded to their alignment, then the tag. */
static inline size_t shmi_coll_tagged_span(size_t nbytes, size_t esz)
{
    size_t align = esz > sizeof(uint64_t) ? 16 : sizeof(uint64_t);

    return (nbytes + align - 1) / align * align + sizeof(uint64_t);
}

/* Where the data of a buffer of span bytes (shmi_coll_tagged_span) lie. */
static inline unsigned char *shmi_coll_tagged_data(shmi_coll_tagged_t *b,
                                                   size_t span)
{
    return (unsigned char *)(&b->tag + 1) - span;
}

/* Writes nbytes of src and then tag into *b on world PE wpe (span bytes
 * in all), tag last (shmi_eng_put_tagged: a copy and a store, or one
 * unacknowledged write or message, until shmem_finalize's barrier); src
 * may be reused on return. Only one PE writes b, and a tag lands only
 * after the reader has taken the tag two numbers before it. */
void shmi_coll_tagged_send(shmi_coll_tagged_t *b, const void *src,
                           size_t nbytes, size_t span, uint64_t tag, int wpe);

/* Waits until the local b->tag >= tag and returns the data it ends. */
const void *shmi_coll_tagged_wait(shmi_coll_tagged_t *b, size_t span,
                                  uint64_t tag);

/* Put nbytes from src to dest on world PE wpe and add 1 to *flag there once
 * the data is visible. src may be reused on return. */
void shmi_coll_put_signal(void *dest, const void *src, size_t nbytes,
                          uint64_t *flag, int wpe);

/* Orders this PE's later collective traffic after its earlier traffic. */
void shmi_coll_fence(void);

/* Quiet on the context the collectives use. */
void shmi_coll_quiet(void);

/* The segment of a symmetric buffer of the program, or of the runtime's
 * own state, and its offset there: what the engine takes
 * (src/core/engine/engine.h). Fatal, naming the collective, for an
 * address in no symmetric segment. */
int shmi_coll_at(const void *sym, size_t len, size_t *off);

/*
 * Copies nbytes between two buffers of this PE, either of which may be
 * device memory (the device heap, or other memory of the device back end):
 * then through the back end, which is the only code that may touch device
 * memory. dest == src is a no-op; other overlaps are not allowed. Every
 * local copy of user data in this directory goes through here (or through
 * memcpy after shmi_coll_device said no); data between PEs goes through the
 * core's put/get, which handle device memory themselves.
 */
void shmi_coll_copy(void *dest, const void *src, size_t nbytes);

/* 1 when [dest, dest+nbytes) or [src, src+nbytes) is device memory: for
 * loops that copy in pieces and ask once. */
int shmi_coll_device(const void *dest, const void *src, size_t nbytes);

/* One piece of such a loop: dev is what shmi_coll_device said. */
static inline void shmi_coll_copy_piece(int dev, void *dest, const void *src,
                                        size_t nbytes)
{
    if (dev)
        shmi_coll_copy(dest, src, nbytes);
    else
        memcpy(dest, src, nbytes);
}

/* ---- per-call bookkeeping ------------------------------------------------ */

/*
 * Starts one collective of flag family kind on team: returns the parity of
 * flags and buffers to use. Parities alternate per family, not per team:
 * every family but SHMI_SIG_BCAST is "all-dependent" (no member finishes a
 * call before every member has sent its share of it), so between two calls
 * of one family with the same parity lies a call that no member can finish
 * before this PE finished the first. A broadcast root depends on nobody and
 * may run ahead by any number of calls; that is harmless because broadcast
 * data goes to dest and each broadcast flag has a single sender.
 */
static inline int shmi_coll_begin(struct shmem_impl_team *team, int kind)
{
    return (int)(team->op_count[kind]++ & 1);
}

/* ceil(log2(n)) for n >= 1. */
static inline int shmi_coll_log2_ceil(int n)
{
    int r = 0;

    while ((1L << r) < n)
        r++;
    return r;
}

/* Largest power of two <= n, n >= 1. */
static inline int shmi_coll_pow2_floor(int n)
{
    int p = 1;

    while (p * 2 <= n)
        p *= 2;
    return p;
}

/* Fills *t as a temporary team for an active set (PE_start, 2^logPE_stride,
 * PE_size) on the active-set slot; returns 0, or SHMI_EINVAL with a message
 * naming routine when the triplet is invalid or this PE is not in it. */
int shmi_coll_active_set(const char *routine, int PE_start, int logPE_stride,
                         int PE_size, struct shmem_impl_team *t);

/* Ends the job with a message naming routine when pSync is NULL or device
 * memory (it must be host symmetric memory). */
void shmi_coll_check_psync(const char *routine, const long *pSync);

/* Dissemination barrier over an active set on the user's pSync (counting
 * flags, left at zero once every arrival is taken). */
void shmi_coll_as_sync(const struct shmem_impl_team *t, long *pSync);

/* Validates a team argument: returns the team, or NULL after logging. */
struct shmem_impl_team *shmi_coll_team(const char *routine, shmem_team_t team);

/* ---- algorithms (shared by team and active-set forms) -------------------- */

void shmi_coll_barrier(struct shmem_impl_team *t);
void shmi_coll_broadcast(struct shmem_impl_team *t, void *dest, const void *src,
                         size_t nbytes, int root);
/* Active-set broadcast: no entry sync (the caller synchronised the set) and
 * the root's dest is left alone. */
void shmi_coll_broadcast_as(struct shmem_impl_team *t, void *dest,
                            const void *src, size_t nbytes, int root);
void shmi_coll_fcollect(struct shmem_impl_team *t, void *dest, const void *src,
                        size_t nbytes);
void shmi_coll_collect(struct shmem_impl_team *t, void *dest, const void *src,
                       size_t nbytes);
void shmi_coll_alltoall(struct shmem_impl_team *t, void *dest, const void *src,
                        size_t nbytes);
void shmi_coll_alltoalls(struct shmem_impl_team *t, void *dest, const void *src,
                         ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                         size_t elem_size);
/* The sliced reduction (reduce_slices.c): dest and src symmetric. */
void shmi_coll_reduce_slices(struct shmem_impl_team *t, void *dest,
                             const void *src, size_t nelems, shmi_dtype_t dt,
                             shmi_op_t op);
void shmi_coll_reduce(struct shmem_impl_team *t, void *dest, const void *src,
                      size_t nelems, shmi_dtype_t dt, shmi_op_t op);
void shmi_coll_scan(struct shmem_impl_team *t, void *dest, const void *src,
                    size_t nelems, shmi_dtype_t dt, shmi_op_t op,
                    int exclusive);

#endif /* SHMI_COLL_H */
