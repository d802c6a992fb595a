/*
 * The watchdog: a PE that stays blocked in one wait for SHMEM_WATCHDOG
 * seconds prints, once for that wait, where it is blocked (the routine, for
 * a collective its team and call number, the PEs it waits for) and goes on
 * waiting; with SHMEM_WATCHDOG_ABORT=1 it ends the job instead
 * (src/core/watchdog.c, docs/design.md decision 10).
 *
 * The waits that can only end through another PE (collectives, locks,
 * shmem_wait_until and friends, signal waits, a stream wait at finalize)
 * replace their call of shmi_watch_due (src/core/coll/peer_record.h) by
 * shmi_watchdog_due, which returns the same answer and times the wait on
 * the side. It runs only on the slow path of a wait, past spinning, where
 * shmi_watch_due already reads the clock on every poll: the watchdog reads
 * a coarse clock once when the wait gets there and once per
 * SHMI_WATCH_PERIOD_NS after that. A wait that ends while it spins costs
 * nothing more than before.
 *
 * What the wait says about itself is asked only when the report is
 * printed: the caller passes a function and its argument (a pointer to
 * what the loop already has, e.g. its condition), so that a wait builds
 * nothing up front.
 */
#ifndef SHMI_WATCHDOG_H
#define SHMI_WATCHDOG_H

#include <stddef.h>

#include "services/backoff.h"

/*
 * Writes into buf (len bytes, NUL-terminated, truncated if need be) what
 * the blocked wait described by arg is: the public routine first, then in
 * words what it waits for and from whom, e.g.
 *   "shmem_long_sum_reduce (SHMEM_TEAM_WORLD, collective call 7), waiting
 *    for PE 0"
 *   "shmem_long_wait_until on ivars 0x7f.. (until *ivars == 1; it is 0
 *    now), which any PE may satisfy".
 * Called by the thread that waits, at the report only.
 */
typedef void (*shmi_watchdog_say_t)(const void *arg, char *buf, size_t len);

/* Reads SHMEM_WATCHDOG (shmem_init, right after the environment, which
 * refuses a negative value: env_table.h gives its range). */
void shmi_watchdog_init(void);

/*
 * For a blocking loop that has spun past SHMEM_WAIT_SPIN (b->polls >
 * shmi_backoff_spin_now()), in place of shmi_watch_due(b): returns what
 * shmi_watch_due returns (1 when the loop should look at its peers now).
 * Besides, once the wait has lasted SHMEM_WATCHDOG seconds, prints the
 * report (say(arg, ...) tells what the wait is), once per wait, or ends the
 * job with SHMEM_WATCHDOG_ABORT=1. One wait is the life of one back-off b
 * on one thread: call it with the b of the loop, first after
 * shmi_backoff_init.
 */
int shmi_watchdog_due(shmi_backoff_t *b, shmi_watchdog_say_t say,
                      const void *arg);

/*
 * For a loop that has no watch of its own (a stream wait at shmem_finalize,
 * a device wait): call it before each shmi_backoff_wait(b) of an
 * unsuccessful poll. While the loop spins it is one comparison; past that,
 * shmi_watchdog_due. Like every user of shmi_watch_due, such a wait counts
 * as blocked for a PE waiting at exit (shmi_watch_exit_wait, peer_record.h): use
 * it only for waits that need another PE (or the program) to end them.
 */
static inline void shmi_watchdog_check(shmi_backoff_t *b,
                                       shmi_watchdog_say_t say,
                                       const void *arg)
{
    if (b->polls > shmi_backoff_spin_now())
        (void)shmi_watchdog_due(b, say, arg);
}

/*
 * The say function of the collectives' waits (src/core/coll/coll_state.c):
 * writes the calling thread's current collective and whom it waits for,
 * e.g. "shmem_barrier_all (SHMEM_TEAM_WORLD, collective call 7), waiting
 * for PE 0". arg is the world PE whose signal is awaited, cast to a
 * pointer ((void *)(intptr_t)from, so that the loop stores nothing), or -1
 * when any member of the team may send it.
 */
void shmi_watchdog_say_coll(const void *arg, char *buf, size_t len);

/* A SHMEM_CMP_* constant as C writes the comparison ("==", ">=", ...), for
 * the words of waits on a condition. */
const char *shmi_watchdog_cmp_text(int cmp);

#endif /* SHMI_WATCHDOG_H */
