/*
 * Back-off for waiting loops (backoff.h): the spin limit, whether to sleep,
 * and the slow part of a wait.
 */
#include "config.h"

#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */

#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "services/backoff.h"
#include "services/env.h"

void (*shmi_backoff_progress)(void);
unsigned long shmi_backoff_spin = 2000;
int shmi_backoff_may_sleep = 1;

/*
 * Whether waiting PEs may sleep (SHMEM_WAIT_SLEEP). Sleeping is what keeps
 * an oversubscribed node moving: a sleeping PE leaves its core to the PE
 * that must act. When every PE of the node has a core of its own, a sleep
 * only adds latency, and on a fabric it delays the target-side progress
 * that the initiators are waiting for: then waiting PEs only yield.
 */
void shmi_backoff_configure(int local_pes)
{
    const char *mode = shmi_env.WAIT_SLEEP;
    cpu_set_t set;
    int ncpus = 0;

    shmi_backoff_spin =
        shmi_env.WAIT_SPIN > 0 ? (unsigned long)shmi_env.WAIT_SPIN : 0;
    if (strcmp(mode, "always") == 0 || strcmp(mode, "never") == 0) {
        shmi_backoff_may_sleep = mode[0] == 'a';
        return;
    }
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        ncpus = CPU_COUNT(&set);
    shmi_backoff_may_sleep = ncpus <= 0 || local_pes > ncpus;
}

/* Linux adds a "timer slack" of 50 us to every sleep of a normal thread,
 * which would turn the first short sleeps into 50 us ones: a waiter whose
 * partner was descheduled would then answer 50 us late. A thread that
 * starts sleeping here asks for 1 us instead (once per thread). */
static _Thread_local int shmi_backoff_slack_set;

static void shmi_backoff_slack(void)
{
#ifdef PR_SET_TIMERSLACK
    (void)prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
#endif
    shmi_backoff_slack_set = 1;
}

void shmi_backoff_slow(shmi_backoff_t *b)
{
    struct timespec ts;

    if (!shmi_backoff_may_sleep ||
        b->polls <= shmi_backoff_spin + SHMI_BACKOFF_YIELDS) {
        sched_yield();
        return;
    }
    if (!shmi_backoff_slack_set)
        shmi_backoff_slack();
    ts.tv_sec = 0;
    ts.tv_nsec = b->sleep_ns;
    nanosleep(&ts, NULL);
    if (b->sleep_ns < SHMI_BACKOFF_MAX_NS)
        b->sleep_ns *= 2;
}
