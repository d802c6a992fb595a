/*
 * Departed peers over a fabric (peer_record.h): the mark a finalizing PE sets in
 * every peer's record, and the question the transports ask when an
 * operation does not go on (shmi_backoff_peer_gone, services/backoff.h).
 *
 * Why the marks are pushed by the PE that leaves: a PE waiting for a peer
 * of its node reads the peer's record through its mapping, but it cannot
 * read the record of a peer off its node (a get to a PE that has left is
 * never answered, and one in flight when it leaves may never complete). So
 * the leaving PE writes into every peer's memory before it leaves, and a
 * waiting PE finds a departed peer among its own bytes, with the loads
 * that its waits already make every SHMI_WATCH_PERIOD_NS. A PE whose
 * operation cannot go on (a post refused for want of resources, an error
 * completion, a wait for completions that stalls) asks the same bytes
 * through the transport's hook.
 */
#include "config.h"

#include <time.h>

#include "core/coll/coll.h"
#include "core/coll/peer_record.h"
#include "core/dataplane.h"
#include "core/route.h"
#include "core/segment.h"
#include "core/state.h"
#include "services/backoff.h"
#include "services/error.h"

/* When this PE stops trying to reach its peers: 0 while it is not
 * finalizing. Set by the finalizing thread; read by any thread that asks
 * shmi_backoff_peer_gone. */
static unsigned long long shmi_gone_deadline;

/* When the stall that a stalled wait of this PE reports began (its first
 * question), and when it last asked (0: never). */
static unsigned long long shmi_gone_stall_ns;
static unsigned long long shmi_gone_asked_ns;

/* How long a wait for completions may stall, with a finalized peer known,
 * before that peer is taken for the cause: 2 s, twice the most a finalized
 * PE stays (SHMI_WATCH_TELL_NS), so that the peer has left by then (until
 * it leaves, it answers what it is sent). A stalled wait asks every few
 * milliseconds; questions further apart than SHMI_GONE_GAP_NS belong to
 * another stall, which starts the clock again. */
#define SHMI_GONE_STALL_NS 2000000000ULL
#define SHMI_GONE_GAP_NS 100000000ULL

/* The byte a PE writes into its peers (a put's source stays valid until
 * the put completes). */
static const uint8_t shmi_gone_one = 1;

static unsigned long long shmi_gone_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ULL +
           (unsigned long long)ts.tv_nsec;
}

/* Ends the job: this PE needs PE gone, which has finalized. Inside a
 * collective, with the collective's message. */
static _Noreturn void shmi_gone_fatal(int gone)
{
    if (shmi_coll_in_call())
        shmi_coll_gone_fatal(gone);
    SHMI_FATAL("PE %d communicates with PE %d, which has already called "
               "shmem_finalize and exited: a PE cannot be reached after its "
               "shmem_finalize (the PEs made different sequences of "
               "collective calls, or one called shmem_finalize early)",
               shmi_my_pe_fast(), gone);
}

/* shmi_backoff_peer_gone (services/backoff.h). */
static int shmi_gone_ask(int pe, int why)
{
    unsigned long long deadline =
        __atomic_load_n(&shmi_gone_deadline, __ATOMIC_ACQUIRE);
    unsigned long long now, last;
    int gone;

    if (!shmi_state.initialized)
        return 0;
    /* Past this PE's own finalized mark nothing it sends matters to the
     * program any more: failures are expected (peers leave too), and the
     * end of the time to tell ends a retry. A peer's mark alone does not:
     * the peer stays until it has this PE's (shmi_watch_tell). */
    if (deadline != 0)
        return why == SHMI_GONE_FAILED || shmi_gone_now_ns() >= deadline;
    if (why == SHMI_GONE_POST) {
        /* A post to a finalized PE never happens in a program whose PEs
         * make the same collective calls: every operation to it was
         * posted before it passed its last barrier. */
        if (pe < 0 || !shmi_watch_finalized(pe))
            return 0;
        shmi_gone_fatal(pe);
    }
    gone = shmi_watch_gone(-1);
    if (gone < 0)
        return 0;
    if (why == SHMI_GONE_STALLED) {
        /* The acknowledgement of an operation to a PE that has just
         * finalized may still be on its way: only a stall that outlasts
         * the peer's stay is its doing. (Threads that stall at once share
         * the clock: a later report at worst.) */
        now = shmi_gone_now_ns();
        last = __atomic_exchange_n(&shmi_gone_asked_ns, now, __ATOMIC_RELAXED);
        if (last == 0 || now - last > SHMI_GONE_GAP_NS)
            __atomic_store_n(&shmi_gone_stall_ns, now, __ATOMIC_RELAXED);
        last = __atomic_load_n(&shmi_gone_stall_ns, __ATOMIC_RELAXED);
        if (last >= now || now - last < SHMI_GONE_STALL_NS)
            return 0;
    }
    shmi_gone_fatal(gone);
}

void shmi_watch_gone_init(void)
{
    shmi_gone_deadline = 0;
    shmi_gone_stall_ns = 0;
    shmi_gone_asked_ns = 0;
    __atomic_store_n(&shmi_backoff_peer_gone, shmi_gone_ask, __ATOMIC_RELEASE);
}

void shmi_watch_tell(void)
{
    uint8_t *marks = shmi_watch_marks();
    int n = shmi_n_pes_fast(), me = shmi_my_pe_fast();
    /* The collectives' context: its endpoints carried the last barrier's
     * signals to every peer, so where the provider connects on demand
     * (ofi_rxm) the connections exist already. */
    shmem_ctx_t ctx = shmi_coll_context;
    const shmi_route_t *fabric = NULL;
    unsigned long long deadline = shmi_gone_now_ns() + SHMI_WATCH_TELL_NS;
    shmi_backoff_t b;
    size_t off;

    if (marks == NULL || n < 2)
        return;
    __atomic_store_n(&shmi_gone_deadline, deadline, __ATOMIC_RELEASE);
    off = (size_t)((char *)&marks[me] - shmi_state.seg[SHMI_SEG_HEAP].base);
    for (int pe = 0; pe < n; pe++) {
        const shmi_route_t *r = shmi_route_of(pe, SHMI_SEG_HEAP);

        if (pe == me)
            continue;
        if (r->base != NULL) {
            __atomic_store_n((uint8_t *)(r->base + off), 1, __ATOMIC_RELEASE);
            continue;
        }
        /* A peer of this node not mapped here (route.h, map) is not
         * mapped now only to be told: it reads this PE's own mark when it
         * waits for it (shmi_watch_finalized). */
        if (r->ops == NULL || r->map != SHMI_ROUTE_MAP_NONE)
            continue;
        /* Non-blocking: every put is in flight before the first wait.
         * Failures are the peer's departure: ignored (shmi_gone_ask). */
        (void)shmi_eng_call_put(ctx, r, pe, SHMI_SEG_HEAP, off, &shmi_gone_one,
                               1, 1);
        fabric = r;
    }
    /* Without a fabric every mark was a store: done. */
    if (shmi_state.fabric == NULL)
        return;
    if (fabric != NULL && ctx->ep[fabric->ep] != NULL &&
        fabric->ops->order != NULL) {
        shmi_eng_lock(ctx);
        (void)fabric->ops->order->quiet(ctx->ep[fabric->ep], -1);
        shmi_eng_unlock(ctx);
    }
    /* Every peer finalized: until then a peer may still need this PE's
     * progress to complete a put or a get (the waits drive it), also one
     * that this PE reaches by a store but that reaches this PE over the
     * fabric (SHMEM_LOCAL_OFF_PES). Its mark here, its own record, or for
     * a peer of this node not mapped here the node's first PE's record
     * (shmi_watch_finalized) says so. */
    shmi_backoff_init(&b);
    for (int pe = 0; pe < n;) {
        if (pe == me || shmi_watch_finalized(pe)) {
            pe++;
            continue;
        }
        if (shmi_gone_now_ns() >= deadline)
            break;
        shmi_backoff_wait(&b);
    }
}
