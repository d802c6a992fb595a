/*
 * Helpers shared by the data-plane routines (rma.c, amo.c, signal.c,
 * order.c): argument checks, PE translation for team contexts, and the
 * calls into a route's transport with the context lock.
 *
 * Path choice, per call (docs/design.md, decision 4): one lookup in the
 * route table (route.h). When the target segment is mapped here (the
 * route's base) the load/store code of src/services/cpu_ops.h runs inline;
 * otherwise the call goes to the route's transport on the context's
 * endpoint. Atomics use CPU instructions only where the route says so
 * (cpu_amo).
 */
#ifndef SHMI_DATAPLANE_H
#define SHMI_DATAPLANE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "core/core_api.h"
#include "core/ctx.h"
#include "core/device_mem.h"
#include "core/route.h"
#include "core/segment.h"
#include "core/state.h"
#include "services/error.h"

/* shmi_X for the non-typed public routines (generated). */
#include "api/gen/core_decl.h"

/* The entry points of the common path (put, get, p, g, their nbi forms,
 * atomics) start on a cache line of their own: each is a handful of
 * instructions, and where the linker happened to place them moved an
 * 8-byte get by a cycle from one build to the next. */
#define SHMI_DP_ENTRY __attribute__((aligned(64)))

#ifndef SHMI_LIKELY
#define SHMI_LIKELY(x)   __builtin_expect(!!(x), 1)
#define SHMI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#endif

/*
 * Atomic engine (set once at connect by shmi_path_engine, path.c, from the
 * capabilities the transports declare): 1 when atomics on a word mapped
 * here may use CPU instructions. It is 0 when a fabric is in use that does
 * not declare SHMT_CAP_ATOMICS_CPU, or with SHMEM_AMO_ENGINE=fabric: then
 * every atomic, even to this PE's own memory, goes through the fabric, the
 * one engine the NIC and all PEs share.
 */
extern int shmi_dp_cpu_atomics;

/* 1 when some PEs are reached by load/store and others through the fabric,
 * so that fence must complete fabric operations (a fabric fence does not
 * order them against later plain stores). Set by path.c. */
extern int shmi_dp_mixed;

/* Fatal, naming routine, when the library is not initialized (before
 * shmem_init, after shmem_finalize): the usual cause of a bad PE or
 * address. Returns otherwise. path.c. */
void shmi_dp_check_state(const char *routine);

/* Never returns: names the routine, the PE and what was wrong.
 * shmi_dp_bad_addr (range_check.c) says which bound the range crossed. */
_Noreturn void shmi_dp_bad_pe(const char *routine, shmem_ctx_t ctx, int pe);
_Noreturn void shmi_dp_bad_addr(const char *routine, const void *addr,
                                size_t len, int pe);
_Noreturn void shmi_dp_bad_ctx(const char *routine);
_Noreturn void shmi_dp_unreachable(const char *routine, int pe, int seg);
_Noreturn void shmi_dp_transport_error(const char *routine,
                                       const shmt_ops_t *t, int pe, int ret);

/*
 * For the collectives' entry points (coll_api.c): fatal, naming routine and
 * nelems, when nelems elements of es bytes exceed any buffer, and, naming
 * the range, when dest or src (NULL: not checked) lies in a symmetric
 * segment without fitting in its user part. range_check.c.
 */
void shmi_coll_check_count(const char *routine, const void *dest,
                           const void *src, size_t nelems, size_t es);

/* Translation of a PE number of a team context into a world PE: slow path. */
int shmi_dp_team_pe(const char *routine, shmem_ctx_t ctx, int pe);

/*
 * Hot-path argument checks. configure --disable-checks (WEFT_NO_CHECKS)
 * leaves out the PE-range check, the NULL check of the local buffer and the
 * length part of the symmetric-range check (shmi_dp_seg), so that
 * bench/check-cost.sh can measure what they cost; each is one predictable
 * branch when on. A
 * symmetric address that lies in no segment stays fatal either way: the call
 * cannot be translated without its segment.
 */
#ifdef WEFT_NO_CHECKS
enum { SHMI_DP_CHECKS = 0 };
#else
enum { SHMI_DP_CHECKS = 1 };
#endif

/* Validates ctx and pe; returns the world PE number. */
static inline int shmi_dp_target(const char *routine, shmem_ctx_t ctx, int pe)
{
    if (SHMI_UNLIKELY(ctx == SHMEM_CTX_INVALID))
        shmi_dp_bad_ctx(routine);
    if (SHMI_LIKELY(ctx->team == SHMEM_TEAM_WORLD)) {
        if (SHMI_DP_CHECKS &&
            SHMI_UNLIKELY((unsigned)pe >= (unsigned)shmi_n_pes_fast()))
            shmi_dp_bad_pe(routine, ctx, pe);
        return pe;
    }
    return shmi_dp_team_pe(routine, ctx, pe);
}

/* Fatal when a local buffer of a non-empty transfer is NULL. */
static inline void shmi_dp_check_local(const char *routine, const void *buf,
                                       size_t len, int pe)
{
    if (SHMI_DP_CHECKS && SHMI_UNLIKELY(buf == NULL))
        shmi_dp_bad_addr(routine, buf, len, pe);
}

/*
 * Finds the segment of the symmetric range [addr, addr+len), len > 0, and
 * its offset from the segment's base; fatal if none. The range must lie in
 * the part of a segment that the program may address (shmi_seg_t.user): a
 * put into the runtime's own state at the start of the heap, into the slack
 * after the user area or past the program's bss is refused like any other
 * address that is not symmetric. One subtraction and one compare per segment
 * find where addr starts (an addr below the start wraps to a huge offset);
 * the check that the range fits is one more compare, and it cannot wrap
 * (d < user_size), so a byte count near SIZE_MAX fails it too.
 */
static inline int shmi_dp_seg(const char *routine, const void *addr, size_t len,
                              int pe, size_t *off)
{
    uintptr_t a = (uintptr_t)addr;
    const shmi_seg_t *g = shmi_state.seg;

    for (int s = 0; s < SHMI_SEG_COUNT; s++, g++) {
        uintptr_t d = a - (uintptr_t)g->user;

        if (d < g->user_size) {
            if (SHMI_DP_CHECKS && SHMI_UNLIKELY(len > g->user_size - d))
                break;
            *off = d + g->user_off;
            return s;
        }
    }
    shmi_dp_bad_addr(routine, addr, len, pe);
}

/*
 * The same for the runtime's own symmetric state (team and collective
 * flags and buffers, src/core/coll/coll_state.c): the whole segment.
 * Only the runtime's own calls use it, never an address from the program.
 */
static inline int shmi_dp_seg_runtime(const char *routine, const void *addr,
                                      size_t len, int pe, size_t *off)
{
    uintptr_t a = (uintptr_t)addr;

    for (int s = 0; s < SHMI_SEG_COUNT; s++) {
        uintptr_t d = a - (uintptr_t)shmi_state.seg[s].base;
        size_t size = shmi_state.seg[s].size;

        if (d < size && len <= size - d) {
            *off = d;
            return s;
        }
    }
    shmi_dp_bad_addr(routine, addr, len, pe);
}

/*
 * The common case of an RMA call, decided with loads and compares only, so
 * that a routine built on it needs no stack frame (bench/check_cost): a world
 * context, a PE in range whose heap is mapped here, a range inside the
 * heap's user area, a non-NULL local buffer and no device heap. Returns
 * where sym lies in that PE's mapping of the heap (heap_user_peer, state.h),
 * or NULL when the full path must decide; that
 * path also names whatever argument was wrong. The checks are the same as
 * the full path's: PE range (one compare), NULL local buffer (one test),
 * range (an add whose carry is tested, and one compare, where the unchecked
 * build needs one compare to know that sym lies in the heap).
 */
static inline void *shmi_dp_fast_peer(shmem_ctx_t ctx, const void *sym,
                                      const void *local, size_t len, int pe)
{
    const shmi_seg_t *heap = &shmi_state.seg[SHMI_SEG_HEAP];
    uintptr_t d = (uintptr_t)sym - (uintptr_t)heap->user;
    char **bases = shmi_state.heap_user_peer;
    char *b;

    if (SHMI_UNLIKELY(ctx == SHMEM_CTX_INVALID || ctx->team != SHMEM_TEAM_WORLD))
        return NULL;
    if (SHMI_DP_CHECKS &&
        SHMI_UNLIKELY((unsigned)pe >= (unsigned)shmi_n_pes_fast() ||
                      local == NULL))
        return NULL;
    if (SHMI_DP_CHECKS) {
        /* [d, d + len) inside the heap's user area, d + len not wrapping
         * around (len 0 at the very end copies nothing) */
        size_t end;

        if (SHMI_UNLIKELY(__builtin_add_overflow(d, len, &end) ||
                          end > heap->user_size))
            return NULL;
    } else if (SHMI_UNLIKELY(d >= heap->user_size)) {
        return NULL;
    }
    if (SHMI_UNLIKELY(shmi_device_active || bases == NULL))
        return NULL;
    b = bases[pe];
    return SHMI_LIKELY(b != NULL) ? b + d : NULL;
}

/* A shareable context (ctx->locked) takes its lock around transport calls
 * when the library runs in SHMEM_THREAD_MULTIPLE. The thread level is read
 * here, not at context creation, because SHMEM_CTX_DEFAULT is set up before
 * shmem_init_thread records the level it grants. */
static inline int shmi_dp_must_lock(shmem_ctx_t ctx)
{
    return ctx->locked && shmi_state.thread_level == SHMEM_THREAD_MULTIPLE;
}

static inline void shmi_dp_lock(shmem_ctx_t ctx)
{
    if (shmi_dp_must_lock(ctx))
        pthread_mutex_lock(&ctx->lock);
}

static inline void shmi_dp_unlock(shmem_ctx_t ctx)
{
    if (shmi_dp_must_lock(ctx))
        pthread_mutex_unlock(&ctx->lock);
}

/*
 * Calls into the transport of route r (r->ops on the context's endpoint of
 * slot r->ep), under the context lock, retried while the transport says
 * SHMI_EAGAIN (after driving progress); any other error is fatal, and so
 * is a route without a transport (shmi_dp_unreachable). path.c.
 */
void shmi_dp_route_put(const char *routine, shmem_ctx_t ctx,
                       const shmi_route_t *r, int pe, int seg, size_t off,
                       const void *src, size_t len, int nbi);
void shmi_dp_route_get(const char *routine, shmem_ctx_t ctx,
                       const shmi_route_t *r, int pe, int seg, size_t off,
                       void *dst, size_t len, int nbi);
void shmi_dp_route_amo(const char *routine, shmem_ctx_t ctx,
                       const shmi_route_t *r, int pe, int seg, size_t off,
                       shmi_amo_op_t op, shmi_dtype_t dt, const void *operand,
                       const void *compare, void *fetched, int nbi);
/* sig_op: SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD. */
void shmi_dp_route_put_signal(const char *routine, shmem_ctx_t ctx,
                              const shmi_route_t *r, int pe, int seg,
                              size_t off, const void *src, size_t len,
                              int sig_seg, size_t sig_off, uint64_t signal,
                              int sig_op, int nbi);
/* The runtime's put-with-signal as one message where the route's
 * transport can (r->msg, SHMT_CAP_SIGNAL_MSG; transports/transport.h):
 * not covered by fence or quiet, only by the signal. */
void shmi_dp_route_put_signal_msg(const char *routine, shmem_ctx_t ctx,
                                  const shmi_route_t *r, int pe, int seg,
                                  size_t off, const void *src, size_t len,
                                  int sig_seg, size_t sig_off, uint64_t signal,
                                  int sig_op);

/* The runtime's single-writer word as one unacknowledged write (r->word,
 * SHMT_CAP_PUT_WORD; transports/transport.h): quiet completes it only
 * locally, and nothing orders it. */
void shmi_dp_route_put_word(const char *routine, shmem_ctx_t ctx,
                            const shmi_route_t *r, int pe, int seg, size_t off,
                            uint64_t value);

/* The runtime's tagged buffer (len bytes, the last 8 its tag) as one
 * unacknowledged write that lands tag last (r->tagged,
 * SHMT_CAP_PUT_TAGGED): quiet completes it only locally. */
void shmi_dp_route_put_tagged(const char *routine, shmem_ctx_t ctx,
                              const shmi_route_t *r, int pe, int seg,
                              size_t off, const void *src, size_t len);

/* The same calls returning the transport's code (0 or SHMI_E*), for the
 * core's host path (host_path.c); r->ops must be set. */
int shmi_dp_call_put(shmem_ctx_t ctx, const shmi_route_t *r, int pe, int seg,
                     size_t off, const void *src, size_t len, int nbi);
int shmi_dp_call_get(shmem_ctx_t ctx, const shmi_route_t *r, int pe, int seg,
                     size_t off, void *dst, size_t len, int nbi);
int shmi_dp_call_amo(shmem_ctx_t ctx, const shmi_route_t *r, int pe, int seg,
                     size_t off, shmi_amo_op_t op, shmi_dtype_t dt,
                     const void *operand, const void *compare, void *fetched,
                     int nbi);
int shmi_dp_call_put_signal(shmem_ctx_t ctx, const shmi_route_t *r, int pe,
                            int seg, size_t off, const void *src, size_t len,
                            int sig_seg, size_t sig_off, uint64_t signal,
                            shmi_amo_op_t sig_op, int nbi);

/*
 * The device transport's route, which takes every call whose local buffer
 * is device memory whatever the route of (pe, seg) says (a host segment's
 * route may be load/store, which must not touch device memory); fatal,
 * naming the routine, without a device transport.
 */
const shmi_route_t *shmi_dp_device_route(const char *routine, int pe, int seg);

/* Quiet of every transport the context has an endpoint on (pe < 0: every
 * PE). order.c. */
void shmi_dp_carriers_quiet(const char *routine, shmem_ctx_t ctx, int pe);

/* Quiet of route r's transport alone (put-with-signal, between data and
 * signal that take different paths). order.c. */
void shmi_dp_route_quiet(const char *routine, shmem_ctx_t ctx,
                         const shmi_route_t *r, int pe);

/* Drives the fabric's progress (target side of emulated operations); safe
 * from several threads (a thread that finds another progressing skips).
 * No-op without a fabric. wait.c. */
void shmi_progress(void);

/* A thread of the runtime that waits, and so drives progress, beside the
 * program's threads (the device service, the kernel proxy, a stream
 * lane) is about to start: shmi_progress_shared() answers 1 from now on.
 * wait.c. */
void shmi_progress_share(void);

/* 1 when another thread of this process may drive progress while the
 * caller does: SHMEM_THREAD_MULTIPLE, or a runtime thread started. */
int shmi_progress_shared(void);

/* One progress pass of every transport, never skipped (shmi_progress
 * skips while another thread progresses): the transports serialise their
 * progress with locks of their own, so a copy into this PE's memory that
 * another thread's pass made is visible here on return
 * (SHMT_CAP_PUT_TAGGED). wait.c. */
void shmi_progress_pass(void);

/* Waits until *ivar compares true with value; returns the value that
 * satisfied the comparison (signal_wait_until). wait.c. */
uint64_t shmi_wait_u64(const char *routine, volatile uint64_t *ivar, int cmp,
                       uint64_t value);

/*
 * shmi_amo and shmi_put_signal on ctx (the collectives' context,
 * src/core/coll/coll.h, or a stream lane's), and shmi_get on the default
 * context, for the runtime's own symmetric state (collective flags and
 * buffers, the SHMEM_DEBUG argument slots: they lie before the heap's user
 * area): the range is checked against the whole segment. Never for an
 * address that comes from the program. amo.c, signal.c, rma.c.
 */
void shmi_amo_runtime(const char *routine, shmem_ctx_t ctx, shmi_amo_op_t op,
                      shmi_dtype_t dt, void *dest, const void *operand,
                      void *fetched, int pe);
/* by_msg: where the route's transport can, as one message the target
 * applies (SHMT_CAP_SIGNAL_MSG): then neither fence nor quiet covers it,
 * only the signal tells of its arrival. */
void shmi_put_signal_runtime(const char *routine, shmem_ctx_t ctx, void *dest,
                             const void *src, size_t nbytes, uint64_t *sig_addr,
                             uint64_t signal, int sig_op, int pe, int by_msg);
void shmi_get_runtime(const char *routine, void *dest, const void *src,
                      size_t nbytes, int pe);
/* Sets the runtime's 64-bit word at `word` on pe to value, for a word that
 * only this PE writes, with values that its reader accepts in whatever
 * order they land (the barrier's parity words, src/core/coll/barrier.c).
 * A CPU store where the word is mapped; else, with `unacked`, one write
 * that nothing acknowledges where the route's transport can (r->word) or
 * one message (r->msg), neither of them covered by quiet; else a signal
 * set that quiet on ctx completes. signal.c. */
void shmi_put_word_runtime(const char *routine, shmem_ctx_t ctx,
                           uint64_t *word, uint64_t value, int pe,
                           int unacked);
/* Writes the nbytes of src (a multiple of 8, more than 8) to dest on pe,
 * for a buffer that only this PE writes, whose last 8 bytes are a tag
 * that its reader waits for (the reductions' tagged rounds,
 * src/core/coll/reduce.c): the tag becomes visible after the rest. A copy
 * and a release store of the tag where dest is mapped; else, with
 * `unacked`, one write that nothing acknowledges where the route's
 * transport can (r->tagged); else a put-with-signal that sets the tag
 * (one message with `unacked` and r->msg). signal.c. */
void shmi_put_tagged_runtime(const char *routine, shmem_ctx_t ctx, void *dest,
                             const void *src, size_t nbytes, int pe,
                             int unacked);

/* Quiet on ctx for every PE (ctx destroy, finalize). order.c. */
void shmi_dp_ctx_quiet(const char *routine, shmem_ctx_t ctx);

#endif /* SHMI_DATAPLANE_H */
