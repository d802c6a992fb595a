/*
 * Manual progress and waiting.
 *
 * Weft asks for FI_PROGRESS_MANUAL and runs no progress thread (docs/design.md,
 * decision 11): providers that emulate RMA or atomics in software at the
 * target (shm, tcp;ofi_rxm, sockets) apply a peer's operation only when this
 * process reads a CQ or counter of the endpoint it arrived on. Peers address
 * only the target endpoint, so progress() always reads its CQ, and now and
 * then those of the other contexts' endpoints (their operations in flight
 * may need the initiator's progress too). With FI_SELECTIVE_COMPLETION, a
 * CQ read finds errors, signal messages (ofi_msg.c) and, on an endpoint
 * that counts its writes there (writes_on_cq), their completions; it costs
 * one provider progress pass.
 */
#include "config.h"

#include <sched.h>
#include <time.h>

#include "services/backoff.h"
#include "transports/ofi/ofi_internal.h"

/* Polls before yielding, yields before sleeping; longest sleep in ns. */
#define SHMT_OFI_SPIN_POLLS 64u
#define SHMT_OFI_YIELD_POLLS 512u
#define SHMT_OFI_MAX_SLEEP_NS 50000L
/* A wait reads the error counts and the CQ once in this many checks. */
#define SHMT_OFI_ERR_POLLS 16u
/* A wait this long is reported once (seconds). */
#define SHMT_OFI_STUCK_SECS 30
/* A retry or wait loop that is getting nowhere asks the clock, and the core
 * whether its peer is gone, once in this many attempts (a power of 2). */
#define SHMT_OFI_ASK_POLLS 256u

/*
 * The core's answer about a peer (services/backoff.h): 0 go on, 1 give up
 * quietly (this PE is past its own shmem_finalize); when the peer has
 * finalized and exited while this PE still needed it, the core ends the
 * job with its message instead of returning. Asked only where an
 * operation is not going on (a refused post, an error completion, a
 * stalled wait), never per operation.
 */
static int shmt_ofi_peer_gone(int pe, int why)
{
    int (*ask)(int, int) =
        __atomic_load_n(&shmi_backoff_peer_gone, __ATOMIC_ACQUIRE);

    return ask ? ask(pe, why) : 0;
}

void shmt_ofi_backoff(shmt_ofi_backoff_t *b)
{
    unsigned n = b->polls++;

    if (n < SHMT_OFI_SPIN_POLLS)
        return;
    /* Sleeping only pays when the node is oversubscribed (the core's
     * policy, SHMEM_WAIT_SLEEP): otherwise it delays the progress this
     * process owes its peers while it waits. */
    if (n < SHMT_OFI_YIELD_POLLS ||
        !__atomic_load_n(&shmi_backoff_may_sleep, __ATOMIC_RELAXED)) {
        sched_yield();
        return;
    }
    /* Grows from 1 us to the cap as the wait goes on. */
    long ns = 1000L * (long)((n - SHMT_OFI_YIELD_POLLS) / 64 + 1);
    struct timespec ts = {0, ns < SHMT_OFI_MAX_SLEEP_NS ? ns
                                                        : SHMT_OFI_MAX_SLEEP_NS};
    nanosleep(&ts, NULL);
}

char shmt_ofi_write_ctx;

/* Reads ep's CQ: drives the provider's progress, counts the writes that
 * completed (writes_on_cq), applies the signal messages that arrived (the
 * target endpoint's receives, ofi_msg.c) and reports errors. Returns 1
 * when an error entry was found. */
static int shmt_ofi_cq_poll(shmt_ep_t *ep)
{
    struct fi_cq_entry entry[16];
    struct fi_cq_err_entry err = {0};
    ssize_t n = fi_cq_read(ep->cq, entry, 16);
    uint64_t writes = 0;

    for (ssize_t i = 0; i < n; i++) {
        if (entry[i].op_context == &shmt_ofi_write_ctx)
            writes++;
        else
            shmt_ofi_msg_completed(entry[i].op_context);
    }
    /* progress() may read another thread's endpoint */
    if (writes)
        __atomic_fetch_add(&ep->w_done, writes, __ATOMIC_RELEASE);
    if (n != -FI_EAVAIL)
        return 0;
    if (fi_cq_readerr(ep->cq, &err, 0) > 0) {
        /* progress() may read another thread's endpoint */
        __atomic_fetch_add(&ep->cq_errs, 1, __ATOMIC_RELAXED);
        /* The usual failure when a peer has left: the core names it
         * (and ends the job) rather than the provider's error. */
        if (shmt_ofi_peer_gone(-1, SHMI_GONE_FAILED))
            return 1;
        SHMI_LOG(SHMI_LOG_ERROR, "ofi",
                 "operation failed (provider %s): %s (%s)", shmt_ofi.prov,
                 shmt_ofi_lib.strerror(err.err),
                 fi_cq_strerror(ep->cq, err.prov_errno, err.err_data, NULL, 0));
        return 1;
    }
    return 0;
}

void shmt_ofi_ep_progress(shmt_ep_t *ep)
{
    (void)shmt_ofi_cq_poll(ep);
    if (ep != shmt_ofi.target && shmt_ofi.target)
        (void)shmt_ofi_cq_poll(shmt_ofi.target);
}

/* The target endpoint is read on every call: peers wait for what lands
 * there. The other endpoints (other contexts, the collectives') only need
 * their own operations' completions to come in, which whoever waits for
 * them drives (wait_cntr); this loop reads them once in
 * SHMT_OFI_OTHER_POLLS calls, so that an idle endpoint does not double the
 * cost of every poll (one read is a system call on tcp and shm). */
#define SHMT_OFI_OTHER_POLLS 8u
static _Thread_local unsigned shmt_ofi_progress_calls;

/* Reads the CQ of every endpoint but the target one and `skip`, whose
 * operations in flight may need this process's progress (sockets sends
 * only in progress; ofi_rxm takes acknowledgements in). Skipped while an
 * endpoint is being created or destroyed. */
static void shmt_ofi_progress_others(const shmt_ep_t *skip)
{
    if (pthread_mutex_trylock(&shmt_ofi.eps_lock) != 0)
        return;
    for (shmt_ep_t *ep = shmt_ofi.eps; ep; ep = ep->next)
        if (ep != shmt_ofi.target && ep != skip)
            (void)shmt_ofi_cq_poll(ep);
    pthread_mutex_unlock(&shmt_ofi.eps_lock);
}

void shmt_ofi_progress(void)
{
    if (!shmt_ofi.target)
        return;
    (void)shmt_ofi_cq_poll(shmt_ofi.target);
    if (++shmt_ofi_progress_calls % SHMT_OFI_OTHER_POLLS == 0)
        shmt_ofi_progress_others(NULL);
}

/*
 * Failures. A provider reports a failed operation as an error entry on the
 * CQ, as an error count on the counter, or both, in either order
 * (tcp;ofi_rxm: the CQ entry first, the count later). The failures known
 * are the larger of the two numbers; CQ errors the counters do not show
 * (yet) count as completed, so that a wait cannot hang on them.
 */
static uint64_t shmt_ofi_cntr_errs(shmt_ep_t *ep)
{
    return fi_cntr_readerr(ep->wcntr) + fi_cntr_readerr(ep->rcntr);
}

static uint64_t shmt_ofi_errs_known(shmt_ep_t *ep)
{
    uint64_t e = shmt_ofi_cntr_errs(ep);
    uint64_t c = __atomic_load_n(&ep->cq_errs, __ATOMIC_RELAXED);

    return e > c ? e : c;
}

/* Completions of cntr's operations (successes): the counter's, or for the
 * writes of a writes_on_cq endpoint those its CQ reported, read after one
 * more read of it. Either way one provider progress pass. */
static uint64_t shmt_ofi_completed(shmt_ep_t *ep, struct fid_cntr *cntr)
{
    if (cntr == ep->wcntr && ep->writes_on_cq) {
        (void)shmt_ofi_cq_poll(ep);
        return __atomic_load_n(&ep->w_done, __ATOMIC_ACQUIRE);
    }
    return fi_cntr_read(cntr);
}

/* Failed operations that count towards cntr's completions: its own error
 * count, plus CQ errors that no counter shows yet (so that a wait cannot
 * hang on them). Each error count read is a progress pass of the provider. */
static uint64_t shmt_ofi_failed_on(shmt_ep_t *ep, struct fid_cntr *cntr)
{
    uint64_t w = fi_cntr_readerr(ep->wcntr), r = fi_cntr_readerr(ep->rcntr);
    uint64_t c = __atomic_load_n(&ep->cq_errs, __ATOMIC_RELAXED);
    uint64_t uncounted = c > w + r ? c - (w + r) : 0;

    return (cntr == ep->wcntr ? w : r) + uncounted;
}

/*
 * Waits until cntr's completions reach *issued; ends early with SHMI_EIO
 * at a new failure (the core treats a fabric error as fatal).
 *
 * Every libfabric read of a counter or CQ is a progress pass of the
 * provider, which for the software providers is a system call or more (a
 * poll of the endpoint's sockets or queues): one pass per check keeps the
 * check as short as the fabric's own loop. So a check reads the counter,
 * or the CQ where ep counts its writes there (shmt_ofi_completed) (and,
 * for an endpoint other than the target one, the target endpoint's CQ,
 * where peers' operations on this PE arrive); the error counts, ep's
 * own CQ and the other endpoints' CQs (their operations may need this
 * process's progress) are read every SHMT_OFI_ERR_POLLS checks. A counter
 * that reaches *issued by its successes alone has no failure to report.
 */
static int shmt_ofi_wait_cntr(shmt_ep_t *ep, struct fid_cntr *cntr,
                              const uint64_t *issued)
{
    shmt_ofi_backoff_t b = {0};
    uint64_t last = 0, done, known, failed = 0;
    time_t start = 0;
    int warned = 0;
    unsigned checks = 0;

    if (ep->errs_reported) /* earlier failures count as completions */
        failed = shmt_ofi_failed_on(ep, cntr);
    while ((done = shmt_ofi_completed(ep, cntr) + failed) < *issued) {
        /* Peers' operations on this PE land on the target endpoint: a
         * peer may be waiting for them while this PE waits here. */
        if (ep != shmt_ofi.target && shmt_ofi.target)
            (void)shmt_ofi_cq_poll(shmt_ofi.target);
        if (++checks % SHMT_OFI_ERR_POLLS == 0) {
            (void)shmt_ofi_cq_poll(ep);
            shmt_ofi_progress_others(ep);
            if (shmt_ofi_errs_known(ep) != ep->errs_reported)
                break;
            failed = shmt_ofi_failed_on(ep, cntr);
        }
        if (done != last) {
            last = done;
            b.polls = 0;
        }
        shmt_ofi_backoff(&b);
        if (b.polls == SHMT_OFI_YIELD_POLLS)
            start = time(NULL);
        /* No completion for a while: the core knows whether a peer that
         * could owe them has gone (and ends the job), or whether this PE,
         * finalizing, no longer waits (the operations count as done). */
        if (b.polls >= SHMT_OFI_YIELD_POLLS &&
            (b.polls & (SHMT_OFI_ASK_POLLS - 1)) == 0 &&
            shmt_ofi_peer_gone(-1, SHMI_GONE_STALLED))
            return 0;
        if (!warned && start && time(NULL) - start > SHMT_OFI_STUCK_SECS) {
            SHMI_LOG(SHMI_LOG_WARN, "ofi",
                     "still waiting for %llu of %llu operations (provider "
                     "%s): is a peer not progressing?",
                     (unsigned long long)(*issued - done),
                     (unsigned long long)*issued, shmt_ofi.prov);
            warned = 1;
        }
    }
    if (failed == 0 && done >= *issued)
        return 0;
    known = shmt_ofi_errs_known(ep);
    if (known == ep->errs_reported)
        return 0;
    /* Failures to a peer that has gone: the core's message, or none at
     * all past this PE's own shmem_finalize (they count as done). */
    if (shmt_ofi_peer_gone(-1, SHMI_GONE_FAILED)) {
        ep->errs_reported = known;
        return 0;
    }
    SHMI_LOG(SHMI_LOG_ERROR, "ofi", "%llu operation(s) failed (provider %s)",
             (unsigned long long)(known - ep->errs_reported), shmt_ofi.prov);
    ep->errs_reported = known;
    return SHMI_EIO;
}

/* Nothing issued since the last complete wait: no counter to read (quiet
 * waits on both counters, and usually only one has work). */
int shmt_ofi_wait_writes(shmt_ep_t *ep)
{
    int ret;

    if (ep->w_issued == ep->w_waited)
        return 0;
    ret = shmt_ofi_wait_cntr(ep, ep->wcntr, &ep->w_issued);
    if (ret == 0) { /* every write has left the bounce space */
        ep->bounce_used = 0;
        ep->w_waited = ep->w_issued;
    }
    return ret;
}

int shmt_ofi_wait_reads(shmt_ep_t *ep)
{
    int ret;

    if (ep->r_issued == ep->r_waited)
        return 0;
    ret = shmt_ofi_wait_cntr(ep, ep->rcntr, &ep->r_issued);
    if (ret == 0)
        ep->r_waited = ep->r_issued;
    return ret;
}

int shmt_ofi_post(shmt_ep_t *ep, int pe, const char *call,
                  shmt_ofi_post_fn post, void *arg)
{
    shmt_ofi_backoff_t b = {0};
    double since = 0;
    ssize_t ret;

    while ((ret = post(ep, arg)) == -FI_EAGAIN) {
        shmt_ofi_ep_progress(ep);
        shmt_ofi_backoff(&b);
        if ((b.polls & (SHMT_OFI_ASK_POLLS - 1)) != 0)
            continue;
        /* Once in SHMT_OFI_ASK_POLLS attempts: a start-up that cannot
         * reach pe ends here (the clock); a pe that has finalized and
         * exited never takes the operation, so the core ends the job with
         * its message, or, where this PE is finalizing too, gives up. */
        if (shmt_ofi.starting && shmt_ofi_reach_gave_up(pe, call, &since))
            return SHMI_ETIMEDOUT;
        if (shmt_ofi_peer_gone(pe, SHMI_GONE_POST))
            return SHMI_EIO;
    }
    if (ret < 0) {
        /* A refusal of a post to a PE that has gone (sockets: -FI_ENOENT):
         * the core's message, or nothing where this PE finalizes. */
        if (shmt_ofi_peer_gone(pe, SHMI_GONE_POST))
            return SHMI_EIO;
        shmt_ofi_log_fail(call, (int)ret);
        return SHMI_EIO;
    }
    return 0;
}
