/*
 * Back-off for waiting loops (backoff.h): the spin limit, whether to sleep,
 * and the slow part of a wait.
 */
#include "config.h"

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "services/backoff.h"
#include "services/env.h"
#include "services/error.h"

void (*shmi_backoff_progress)(void);
int (*shmi_backoff_peer_gone)(int pe, int why);
unsigned long shmi_backoff_spin = 2000;
int shmi_backoff_may_sleep = 1;

/* How often a waiting PE past its spin looks at the node's load (ns). */
#define BACKOFF_LOOK_NS 20000000ULL

/* What the policy knows of the node, set by shmi_backoff_configure. */
static struct {
    unsigned long spin_max; /* SHMEM_WAIT_SPIN */
    char sleep_mode;        /* 'a'uto, 'y' (always), 'n' (never) */
    int job_crowded;        /* more PEs of the job here than its cores */
    long sleep_max_ns;      /* longest sleep (shmi_backoff_configure) */
    long online;            /* cores of the node */
    int busy_looks;         /* consecutive looks that found it busy */
    unsigned long long next_look_ns;
} bo = {.spin_max = 2000, .sleep_mode = 'a',
      .sleep_max_ns = SHMI_BACKOFF_MAX_NS};

/*
 * The policy (docs/design.md, decision 10). A node is crowded when the
 * job has more PEs here than cores to run them, or when more threads are
 * ready to run on the node than it has cores (other jobs, other users).
 * On a crowded node spinning only burns the time slice that the PE being
 * waited for needs: a waiting PE yields at once (no spin) and, past the
 * yields, sleeps. Otherwise it spins SHMEM_WAIT_SPIN polls first, which
 * costs latency nothing, and never sleeps (a sleep would delay the
 * target-side progress that fabric peers wait for).
 */
static void backoff_apply(int crowded)
{
    /* Any waiting thread may look: relaxed atomics, the last look wins. */
    __atomic_store_n(&shmi_backoff_spin, crowded ? 0 : bo.spin_max,
                     __ATOMIC_RELAXED);
    if (bo.sleep_mode == 'a')
        __atomic_store_n(&shmi_backoff_may_sleep, crowded, __ATOMIC_RELAXED);
}

/* Threads ready to run on the whole node (the 4th field of /proc/loadavg,
 * "running/total"), or -1. The reader itself is one of them. */
static long node_runnable(void)
{
    char buf[128];
    long a, b, c, run = -1;
    int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0)
        return -1;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* "0.52 0.58 0.59 3/321 12345": the load averages carry a '.' */
    if (sscanf(buf, "%ld.%*d %ld.%*d %ld.%*d %ld/", &a, &b, &c, &run) != 4)
        return -1;
    return run;
}

static unsigned long long backoff_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ULL +
           (unsigned long long)ts.tv_nsec;
}

/* Adapts while running: a waiting PE past its spin looks at the node's
 * load every BACKOFF_LOOK_NS; two busy looks in a row (more threads ready
 * than cores, with a margin of one) make the node crowded, one quiet look
 * makes it quiet again. */
static void backoff_look(void)
{
    unsigned long long now = backoff_now_ns();
    unsigned long long next = __atomic_load_n(&bo.next_look_ns,
                                              __ATOMIC_RELAXED);
    long run;
    int busy;

    /* One thread of the process looks per period (the one that moves
     * next_look_ns on); a crowded job stays crowded. */
    if (now < next || bo.job_crowded ||
        !__atomic_compare_exchange_n(&bo.next_look_ns, &next,
                                     now + BACKOFF_LOOK_NS, 0,
                                     __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return;
    /* One more than the cores: a kernel thread or a daemon that wakes for
     * a moment beside a job that fills the node is no crowd. */
    run = node_runnable();
    busy = run > bo.online + 1
               ? __atomic_load_n(&bo.busy_looks, __ATOMIC_RELAXED) + 1
               : 0;
    __atomic_store_n(&bo.busy_looks, busy, __ATOMIC_RELAXED);
    if ((busy >= 2) != (shmi_backoff_spin_now() == 0))
        SHMI_LOG(SHMI_LOG_DEBUG, "wait",
                 "%ld threads ready on %ld cores: waiting %s", run, bo.online,
                 busy >= 2 ? "yields at once and sleeps" : "spins again");
    backoff_apply(busy >= 2);
}

/* Sleeps of a wait before its sleeps may outgrow SHMI_BACKOFF_MAX_NS: the
 * doublings up to it, then about 2 ms at it. */
#define BACKOFF_PATIENT_SLEEPS 40

/*
 * The longest sleep of a waiter whose own job crowds its cores: every
 * waiting PE of the node wakes once per longest sleep, and each wake-up
 * (timer, context switch, a poll, often a progress pass) costs some
 * microseconds of a core. With SHMI_BACKOFF_MAX_NS per PE of the node per
 * core, the waiters' wake-ups together take a share of the cores that does
 * not grow with the PEs stacked on them; with a fixed 64 us, 256 PEs on 2
 * cores spent most of the cores waking up, and the PEs being waited for
 * ran late (docs/scaling.md). Bounded at SHMI_BACKOFF_CROWD_MAX_NS, a
 * few scheduler time slices, where a core holds hundreds of PEs (each
 * waits for a turn of all of them anyway). A wait reaches the longer
 * sleeps only once it is long (shmi_backoff_slow).
 */
static long backoff_crowd_sleep_max(int node_pes, int ncpus)
{
    long per_core = ncpus > 0 ? (node_pes + ncpus - 1) / ncpus : node_pes;
    long ns = SHMI_BACKOFF_MAX_NS * (per_core > 1 ? per_core : 1);

    return ns < SHMI_BACKOFF_CROWD_MAX_NS ? ns : SHMI_BACKOFF_CROWD_MAX_NS;
}

int shmi_backoff_configure(int sharers, int ncpus, int node_pes)
{
    const char *mode = shmi_env.WAIT_SLEEP;

    bo.spin_max = shmi_env.WAIT_SPIN > 0 ? (unsigned long)shmi_env.WAIT_SPIN
                                         : 0;
    bo.sleep_mode = strcmp(mode, "always") == 0  ? 'y'
                    : strcmp(mode, "never") == 0 ? 'n'
                                                 : 'a';
    if (bo.sleep_mode != 'a')
        shmi_backoff_may_sleep = bo.sleep_mode == 'y';
    bo.online = sysconf(_SC_NPROCESSORS_ONLN);
    bo.job_crowded = ncpus <= 0 || sharers > ncpus;
    __atomic_store_n(&bo.sleep_max_ns,
                     bo.job_crowded ? backoff_crowd_sleep_max(node_pes, ncpus)
                                    : SHMI_BACKOFF_MAX_NS,
                     __ATOMIC_RELAXED);
    bo.busy_looks = 0;
    bo.next_look_ns = 0;
    backoff_apply(bo.job_crowded);
    return bo.job_crowded;
}

int shmi_backoff_job_crowded(void)
{
    return bo.job_crowded;
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

    backoff_look();
    if (!__atomic_load_n(&shmi_backoff_may_sleep, __ATOMIC_RELAXED) ||
        b->polls <= shmi_backoff_spin_now() + SHMI_BACKOFF_YIELDS) {
        sched_yield();
        return;
    }
    if (!shmi_backoff_slack_set)
        shmi_backoff_slack();
    ts.tv_sec = 0;
    ts.tv_nsec = b->sleep_ns;
    nanosleep(&ts, NULL);
    /* The longer bound only once the wait is long (some ms of sleeps at
     * SHMI_BACKOFF_MAX_NS): the peer is descheduled or far behind, and
     * waking up costs more than a late answer; short waits, those of a
     * collective's rounds, keep answering within SHMI_BACKOFF_MAX_NS. */
    if (b->sleep_ns < SHMI_BACKOFF_MAX_NS ||
        (b->polls > shmi_backoff_spin_now() + SHMI_BACKOFF_YIELDS +
                        BACKOFF_PATIENT_SLEEPS &&
         b->sleep_ns < __atomic_load_n(&bo.sleep_max_ns, __ATOMIC_RELAXED)))
        b->sleep_ns *= 2;
}
