/*
 * The watchdog (watchdog.h): times the waits that have spun past
 * SHMEM_WAIT_SPIN and reports, once per wait, one that has lasted
 * SHMEM_WATCHDOG seconds.
 */
#include "config.h"

#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "core/coll/peer_record.h"
#include "core/state.h"
#include "core/team/team.h"
#include "core/watchdog.h"
#include "services/env.h"
#include "services/error.h"

/* SHMEM_WATCHDOG in ns (0: off), set once at start-up. */
static unsigned long long shmi_watchdog_ns;

/* The wait the calling thread is timing: a thread is blocked in one wait
 * at a time. A new wait is known by its back-off (b->watch_ns is 0 until
 * shmi_watch_due first sees it, peer_record.h). */
typedef struct shmi_watchdog_wait {
    const shmi_backoff_t *b;  /* the wait's back-off, NULL: none */
    unsigned long long since; /* when it spun past SHMEM_WAIT_SPIN, ns */
    int reported;             /* 1 once its report was printed */
} shmi_watchdog_wait_t;
static _Thread_local shmi_watchdog_wait_t shmi_watchdog_cur;

/* Seconds beyond which the period no longer fits in ns: never reached. */
#define SHMI_WATCHDOG_MAX_S (ULLONG_MAX / 1000000000ULL)

void shmi_watchdog_init(void)
{
    unsigned long long s = shmi_env.WATCHDOG > 0
                               ? (unsigned long long)shmi_env.WATCHDOG
                               : 0;

    shmi_watchdog_ns = s >= SHMI_WATCHDOG_MAX_S ? ULLONG_MAX
                                                : s * 1000000000ULL;
}

/* A coarse clock is enough for a period in seconds, and cheaper. */
static unsigned long long shmi_watchdog_now_ns(void)
{
    struct timespec ts;

#ifdef CLOCK_MONOTONIC_COARSE
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
#else
    clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
    return (unsigned long long)ts.tv_sec * 1000000000ULL +
           (unsigned long long)ts.tv_nsec;
}

/* The report, or with SHMEM_WATCHDOG_ABORT=1 the end of the job. */
static void shmi_watchdog_report(unsigned long long waited_ns,
                                 shmi_watchdog_say_t say, const void *arg)
{
    char what[512];
    unsigned long long secs = waited_ns / 1000000000ULL;
    int me = shmi_my_pe_fast();

    say(arg, what, sizeof(what));
    if (shmi_env.WATCHDOG_ABORT)
        SHMI_FATAL("watchdog: PE %d has been blocked for %llu s in %s; "
                   "SHMEM_WATCHDOG_ABORT=1 ends the job here (without it the "
                   "watchdog only reports and the wait goes on; "
                   "SHMEM_WATCHDOG=seconds sets how long a wait may last "
                   "first)",
                   me, secs, what);
    SHMI_LOG(SHMI_LOG_WARN, "watchdog",
             "PE %d has been blocked for %llu s in %s; this is a report, not "
             "an error: the PE goes on waiting, and the wait may be "
             "legitimate if a peer still computes (SHMEM_WATCHDOG=seconds "
             "changes when this is printed, 0 turns it off; "
             "SHMEM_WATCHDOG_ABORT=1 ends the job instead)",
             me, secs, what);
    fflush(stderr);
}

int shmi_watchdog_due(shmi_backoff_t *b, shmi_watchdog_say_t say,
                      const void *arg)
{
    shmi_watchdog_wait_t *w;
    unsigned long long now;
    int first = b->watch_ns == 0;
    int due = shmi_watch_due(b);

    /* Between the first look and the next period's: nothing to do. */
    if (shmi_watchdog_ns == 0 || !(first || due))
        return due;
    w = &shmi_watchdog_cur;
    now = shmi_watchdog_now_ns();
    /* Another b than the one timed: a wait that began without this call
     * (or nested in another's progress) starts being timed now. */
    if (first || w->b != b) {
        w->b = b;
        w->since = now;
        w->reported = 0;
        return due;
    }
    if (!w->reported && now - w->since >= shmi_watchdog_ns) {
        w->reported = 1;
        shmi_watchdog_report(now - w->since, say, arg);
    }
    return due;
}

/* ---- what a collective wait says ---------------------------------------- */

/* "waiting for ...": the awaited PE, or the team's other members. */
static void shmi_watchdog_say_from(const struct shmem_impl_team *t, int from,
                                   const char *team, char *buf, size_t len)
{
    if (from >= 0) {
        snprintf(buf, len, "waiting for PE %d", from);
        return;
    }
    if (t == NULL) {
        snprintf(buf, len, "waiting for any PE of the active set");
        return;
    }
    if (t->n_pes == 2 && (t->my_pe == 0 || t->my_pe == 1)) {
        snprintf(buf, len, "waiting for PE %d (the only other member of %s)",
                 shmi_team_world_pe(t, 1 - t->my_pe), team);
        return;
    }
    snprintf(buf, len,
             "waiting for a signal that any of the %d other members of %s "
             "may send",
             t->n_pes - 1, team);
}

void shmi_watchdog_say_coll(const void *arg, char *buf, size_t len)
{
    const struct shmem_impl_team *t = shmi_coll_cur_team();
    const char *team = shmi_coll_team_name();
    uint64_t call = shmi_coll_call();
    char from[160];

    shmi_watchdog_say_from(t, (int)(intptr_t)arg, team ? team : "the team",
                           from, sizeof(from));
    if (team == NULL)
        snprintf(buf, len, "%s (an active set), %s", shmi_coll_routine(),
                 from);
    else if (call == 0)
        snprintf(buf, len, "%s (%s), %s", shmi_coll_routine(), team, from);
    else
        snprintf(buf, len, "%s (%s, collective call %" PRIu64 "), %s",
                 shmi_coll_routine(), team, call, from);
}

/* The condition's operator as C writes it. */
const char *shmi_watchdog_cmp_text(int cmp)
{
    switch (cmp) {
    case SHMEM_CMP_EQ: return "==";
    case SHMEM_CMP_NE: return "!=";
    case SHMEM_CMP_GT: return ">";
    case SHMEM_CMP_GE: return ">=";
    case SHMEM_CMP_LT: return "<";
    default: return "<=";
    }
}
