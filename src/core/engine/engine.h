/*
 * The engine (docs/architecture.md, "The engine"): RMA, atomics, signals
 * and ordering on (world PE, segment, offset), through the route table
 * (route.h), with no argument checks.
 *
 * Two kinds of callers reach it. The entry points (rma.c, amo.c, signal.c,
 * order.c, under the generated API) check the program's arguments and
 * translate them once: a team PE into a world PE, a symmetric address
 * into a segment and an offset (dataplane.h). The runtime's own code (the
 * collectives, the stream lanes, the kernel proxy, the locks, the heap)
 * computed its PEs and offsets itself, or checked them at its own door,
 * and calls the engine directly. Either way nothing here checks again.
 *
 * What the engine still reports: a route without a transport and a
 * transport's error, each naming `routine`, the public routine on whose
 * behalf the operation runs (a collective passes its own name).
 *
 * Per operation it makes one lookup in the route table; where the segment
 * is mapped here (route.base) the operation is a load, store or CPU
 * atomic inline, else the route's transport runs it on the context's
 * endpoint, under the context lock where threads share the context,
 * retried while the transport is out of resources (eng_call.c: the one
 * place that loop is written).
 */
#ifndef SHMI_ENGINE_H
#define SHMI_ENGINE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ctx.h"
#include "core/device_mem.h"
#include "core/route.h"
#include "core/state.h"
#include "services/cpu_ops.h"
#include "services/error.h"

#ifndef SHMI_LIKELY
#define SHMI_LIKELY(x)   __builtin_expect(!!(x), 1)
#define SHMI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#endif

/*
 * The atomics engine (set once at connect by shmi_path_engine, path_start.c,
 * from the capabilities the transports declare): 1 when atomics on a word
 * mapped here may use CPU instructions. It is 0 when a fabric is in use
 * that does not declare SHMT_CAP_ATOMICS_CPU, or with
 * SHMEM_AMO_ENGINE=fabric: then every atomic, even to this PE's own
 * memory, goes through the fabric, the one engine the NIC and all PEs
 * share. route.c folds it into each route's cpu_amo.
 */
extern int shmi_dp_cpu_atomics;

/* 1 when some PEs are reached by load/store and others through the
 * fabric, so that fence must complete fabric operations (a fabric fence
 * does not order them against later plain stores). Set by route.c. */
extern int shmi_dp_mixed;

/* ---- the context lock ---------------------------------------------------- */

/* A shareable context (ctx->locked) takes its lock around transport calls
 * when the library runs in SHMEM_THREAD_MULTIPLE. The thread level is read
 * here, not at context creation, because SHMEM_CTX_DEFAULT is set up before
 * shmem_init_thread records the level it grants. */
static inline int shmi_eng_must_lock(shmem_ctx_t ctx)
{
    return ctx->locked && shmi_state.thread_level == SHMEM_THREAD_MULTIPLE;
}

static inline void shmi_eng_lock(shmem_ctx_t ctx)
{
    if (shmi_eng_must_lock(ctx))
        pthread_mutex_lock(&ctx->lock);
}

static inline void shmi_eng_unlock(shmem_ctx_t ctx)
{
    if (shmi_eng_must_lock(ctx))
        pthread_mutex_unlock(&ctx->lock);
}

/* ---- addresses of the runtime's own symmetric state ----------------------- */

_Noreturn void shmi_eng_lost(const char *routine, const void *addr, size_t len);

/*
 * The segment of [addr, addr+len) and its offset, for an address the
 * caller knows to be symmetric: the runtime's own state (collective flags
 * and buffers, call records: they lie before the heap's user area) or a
 * buffer an entry point already checked. Anything else is a bug of the
 * runtime (shmi_eng_lost says so), not an argument to report.
 */
static inline int shmi_eng_seg_at(const char *routine, const void *addr,
                                  size_t len, size_t *off)
{
    uintptr_t a = (uintptr_t)addr;

    for (int s = 0; s < SHMI_SEG_COUNT; s++) {
        uintptr_t d = a - (uintptr_t)shmi_state.seg[s].base;

        if (d < shmi_state.seg[s].size && len <= shmi_state.seg[s].size - d) {
            *off = d;
            return s;
        }
    }
    shmi_eng_lost(routine, addr, len);
}

/* ---- calls into a route's transport (eng_call.c) --------------------------- */

/*
 * Each runs the operation on route r's transport, on the context's
 * endpoint of slot r->ep, under the context lock where r->lock, retried
 * while the transport answers SHMI_EAGAIN (after driving progress). The
 * shmi_eng_route_* forms end the job naming routine, the PE and the error
 * for anything else, and for a route without a transport; the
 * shmi_eng_call_* forms return the transport's code (the host path,
 * host_path.c, hands them to the device transport, which reports its own
 * errors; finalize's marks, coll/peer_gone.c, ignore a departed peer's).
 */
void shmi_eng_route_put(const char *routine, shmem_ctx_t ctx,
                        const shmi_route_t *r, int pe, int seg, size_t off,
                        const void *src, size_t len, int nbi);
void shmi_eng_route_get(const char *routine, shmem_ctx_t ctx,
                        const shmi_route_t *r, int pe, int seg, size_t off,
                        void *dst, size_t len, int nbi);
void shmi_eng_route_amo(const char *routine, shmem_ctx_t ctx,
                        const shmi_route_t *r, int pe, int seg, size_t off,
                        shmi_amo_op_t op, shmi_dtype_t dt, const void *operand,
                        const void *compare, void *fetched, int nbi);
void shmi_eng_route_put_signal(const char *routine, shmem_ctx_t ctx,
                               const shmi_route_t *r, int pe, int seg,
                               size_t off, const void *src, size_t len,
                               int sig_seg, size_t sig_off, uint64_t signal,
                               shmi_amo_op_t sig_op, int nbi);
/* The runtime's put-with-signal as one message (r->msg): not covered by
 * fence or quiet, only by the signal. */
void shmi_eng_route_put_signal_msg(const char *routine, shmem_ctx_t ctx,
                                   const shmi_route_t *r, int pe, int seg,
                                   size_t off, const void *src, size_t len,
                                   int sig_seg, size_t sig_off, uint64_t signal,
                                   shmi_amo_op_t sig_op);
/* The runtime's single-writer word as one unacknowledged write (r->word):
 * quiet completes it only locally, and nothing orders it. */
void shmi_eng_route_put_word(const char *routine, shmem_ctx_t ctx,
                             const shmi_route_t *r, int pe, int seg, size_t off,
                             uint64_t value);
/* The runtime's tagged buffer (len bytes, the last 8 its tag) as one
 * unacknowledged write that lands tag last (r->tagged). */
void shmi_eng_route_put_tagged(const char *routine, shmem_ctx_t ctx,
                               const shmi_route_t *r, int pe, int seg,
                               size_t off, const void *src, size_t len);

int shmi_eng_call_put(shmem_ctx_t ctx, const shmi_route_t *r, int pe, int seg,
                      size_t off, const void *src, size_t len, int nbi);
int shmi_eng_call_get(shmem_ctx_t ctx, const shmi_route_t *r, int pe, int seg,
                      size_t off, void *dst, size_t len, int nbi);
int shmi_eng_call_amo(shmem_ctx_t ctx, const shmi_route_t *r, int pe, int seg,
                      size_t off, shmi_amo_op_t op, shmi_dtype_t dt,
                      const void *operand, const void *compare, void *fetched,
                      int nbi);
int shmi_eng_call_put_signal(shmem_ctx_t ctx, const shmi_route_t *r, int pe,
                             int seg, size_t off, const void *src, size_t len,
                             int sig_seg, size_t sig_off, uint64_t signal,
                             shmi_amo_op_t sig_op, int nbi);

/* Ends the job naming routine: a transport's error, and nothing that
 * reaches (pe, seg). eng_call.c. */
_Noreturn void shmi_eng_transport_error(const char *routine,
                                        const shmt_ops_t *t, int pe, int ret);
_Noreturn void shmi_eng_unreachable(const char *routine, int pe, int seg);

/*
 * The device transport's route, which takes every operation whose local
 * buffer is device memory whatever the route of (pe, seg) says (a host
 * segment's route may be load/store, which must not touch device memory);
 * fatal, naming the routine, without a device transport.
 */
const shmi_route_t *shmi_eng_device_route(const char *routine, int pe, int seg);

/* ---- RMA and atomics -------------------------------------------------------- */

/* len bytes of src to offset off of segment seg of world PE pe. */
static inline __attribute__((always_inline)) void
shmi_eng_put(const char *routine, shmem_ctx_t ctx, int pe, int seg, size_t off,
             const void *src, size_t len, int nbi)
{
    const shmi_route_t *r = shmi_route_of(pe, seg);

    if (SHMI_UNLIKELY(shmi_device_touches(src, len)))
        r = shmi_eng_device_route(routine, pe, seg);
    if (SHMI_LIKELY(r->base != NULL)) {
        shmi_cpu_copy(r->base + off, src, len, SHMI_CPU_TO_PEER);
        return;
    }
    shmi_eng_route_put(routine, ctx, r, pe, seg, off, src, len, nbi);
}

/* len bytes at offset off of segment seg of world PE pe into dst. */
static inline __attribute__((always_inline)) void
shmi_eng_get(const char *routine, shmem_ctx_t ctx, int pe, int seg, size_t off,
             void *dst, size_t len, int nbi)
{
    const shmi_route_t *r = shmi_route_of(pe, seg);

    if (SHMI_UNLIKELY(shmi_device_touches(dst, len)))
        r = shmi_eng_device_route(routine, pe, seg);
    if (SHMI_LIKELY(r->base != NULL)) {
        shmi_cpu_copy(dst, r->base + off, len, SHMI_CPU_FROM_PEER);
        return;
    }
    shmi_eng_route_get(routine, ctx, r, pe, seg, off, dst, len, nbi);
}

/* An atomic on the word at (pe, seg, off): CPU instructions where the
 * route says the word's engine is the CPU (route.h, cpu_amo; docs/design.md,
 * decision 6), else the route's transport. */
static inline __attribute__((always_inline)) void
shmi_eng_amo(const char *routine, shmem_ctx_t ctx, int pe, int seg, size_t off,
             shmi_amo_op_t op, shmi_dtype_t dt, const void *operand,
             const void *compare, void *fetched, int nbi)
{
    const shmi_route_t *r = shmi_route_of(pe, seg);

    /* cpu_amo before base: a first-use mapping sets base, then cpu_amo
     * (route.c, shmi_route_map); the compiler may not load base first
     * (a signal fence: no instruction, unlike an acquire load here). */
    if (SHMI_LIKELY(r->cpu_amo)) {
        __atomic_signal_fence(__ATOMIC_ACQUIRE);
        shmi_cpu_amo_apply(r->base + off, op, dt, operand, compare, fetched);
        return;
    }
    shmi_eng_route_amo(routine, ctx, r, pe, seg, off, op, dt, operand, compare,
                       fetched, nbi);
}

/* ---- signals (eng_signal.c) ------------------------------------------------- */

/* How a put-with-signal may travel (shmi_eng_put_signal's `how`). */
typedef enum shmi_eng_signal_how {
    SHMI_ENG_SIGNAL_PROGRAM = 0, /* the program's: fence and quiet cover it */
    SHMI_ENG_SIGNAL_RUNTIME = 1, /* the runtime's own state */
    SHMI_ENG_SIGNAL_ONE_MSG = 2  /* the runtime's, as one message where the
                                    route's transport can (route.h, msg):
                                    only the signal tells of its arrival */
} shmi_eng_signal_how_t;

/* Every case but "data and signal mapped here, CPU atomics". */
void shmi_eng_put_signal_slow(const char *routine, shmem_ctx_t ctx, int pe,
                              int seg, size_t off, const void *src,
                              size_t nbytes, int sseg, size_t soff,
                              uint64_t signal, shmi_amo_op_t sig_op, int nbi,
                              shmi_eng_signal_how_t how);

/*
 * nbytes of src to (pe, seg, off), then the signal word at (pe, sseg, soff)
 * set to or increased by signal (sig_op SHMI_AMO_SET or SHMI_AMO_ADD),
 * visible only after the data. nbytes 0: the signal alone.
 */
static inline __attribute__((always_inline)) void
shmi_eng_put_signal(const char *routine, shmem_ctx_t ctx, int pe, int seg,
                    size_t off, const void *src, size_t nbytes, int sseg,
                    size_t soff, uint64_t signal, shmi_amo_op_t sig_op, int nbi,
                    shmi_eng_signal_how_t how)
{
    const shmi_route_t *dr = shmi_route_of(pe, seg),
                       *sr = shmi_route_of(pe, sseg);

    if (SHMI_LIKELY(nbytes > 0 && dr->base != NULL && sr->cpu_amo &&
                    !shmi_device_touches(src, nbytes))) {
        __atomic_signal_fence(__ATOMIC_ACQUIRE); /* as in shmi_eng_amo */
        shmi_cpu_put_signal(dr->base + off, src, nbytes,
                            (uint64_t *)(void *)(sr->base + soff), signal,
                            sig_op == SHMI_AMO_ADD);
        return;
    }
    shmi_eng_put_signal_slow(routine, ctx, pe, seg, off, src, nbytes, sseg,
                             soff, signal, sig_op, nbi, how);
}

/*
 * Sets the runtime's 64-bit word at (pe, seg, off) to value, for a word
 * that only this PE writes, with values that its reader accepts in
 * whatever order they land (the barrier's parity words, coll/barrier.c).
 * A CPU store where the word is mapped; else, with `unacked`, one write
 * that nothing acknowledges where the route's transport can (r->word) or
 * one message (r->msg), neither of them covered by quiet; else a signal
 * set that quiet on ctx completes.
 */
void shmi_eng_put_word(const char *routine, shmem_ctx_t ctx, int pe, int seg,
                       size_t off, uint64_t value, int unacked);

/*
 * Writes the nbytes of src (a multiple of 8, more than 8) to (pe, seg,
 * off), for a buffer that only this PE writes, whose last 8 bytes are a
 * tag that its reader waits for (the reductions' tagged rounds,
 * coll/reduce.c): the tag becomes visible after the rest. A copy and a
 * release store of the tag where mapped; else, with `unacked`, one write
 * that nothing acknowledges where the route's transport can (r->tagged);
 * else a put-with-signal that sets the tag (one message with `unacked` and
 * r->msg).
 */
void shmi_eng_put_tagged(const char *routine, shmem_ctx_t ctx, int pe, int seg,
                         size_t off, const void *src, size_t nbytes,
                         int unacked);

/* ---- ordering and completion (eng_order.c) ---------------------------------- */

/* Every transport ctx has an endpoint on: its fence, or its quiet where
 * some PEs are reached by load/store and others through it
 * (shmi_dp_mixed: a fabric fence does not order a later plain store). */
void shmi_eng_fence(const char *routine, shmem_ctx_t ctx);

/* Quiet of every transport ctx has an endpoint on (pe < 0: every PE),
 * then a full fence, so stores of the load/store path are visible too. */
void shmi_eng_quiet(const char *routine, shmem_ctx_t ctx, int pe);

/* Quiet of route r's transport alone (between data and signal that take
 * different paths). */
void shmi_eng_route_quiet(const char *routine, shmem_ctx_t ctx,
                          const shmi_route_t *r, int pe);

#endif /* SHMI_ENGINE_H */
