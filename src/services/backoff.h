/*
 * Back-off for waiting loops (docs/design.md, decision 10): spin briefly, then
 * give the core away, so that 4 PEs on 2 cores still progress.
 *
 *   shmi_backoff_t b;
 *   shmi_backoff_init(&b);
 *   while (!condition())
 *       shmi_backoff_wait(&b);
 *
 * Each unsuccessful poll calls shmi_backoff_wait, which also drives the
 * transports' progress (target side of emulated operations) through
 * shmi_backoff_progress, which the core sets when a transport needs it. The first shmi_env.WAIT_SPIN polls only pause the CPU; the next
 * SHMI_BACKOFF_YIELDS call sched_yield; after that the loop sleeps, from
 * 1 us doubling up to SHMI_BACKOFF_MAX_NS, or more where the job itself
 * stacks PEs on the cores (backoff.c) (a sleeping thread lowers its
 * timer slack to 1 us so that these sleeps are as short as asked) - but
 * only when the node is crowded (more PEs of the job than its cores, or
 * more threads ready to run than the node's cores: then the spin is
 * skipped too) or SHMEM_WAIT_SLEEP=always; otherwise it goes on yielding,
 * which costs latency nothing.
 */
#ifndef SHMI_BACKOFF_H
#define SHMI_BACKOFF_H


#define SHMI_BACKOFF_YIELDS 64
#define SHMI_BACKOFF_MAX_NS 64000L
/* The bound of a crowded job's longest sleep (backoff.c). */
#define SHMI_BACKOFF_CROWD_MAX_NS 16000000L

typedef struct shmi_backoff {
    unsigned long polls;         /* unsuccessful polls so far */
    long sleep_ns;               /* next sleep, once sleeping */
    unsigned long long watch_ns; /* when the loop next looks at its peers
                                    (src/core/coll/peer_record.h); 0: not yet */
} shmi_backoff_t;

static inline void shmi_backoff_init(shmi_backoff_t *b)
{
    b->polls = 0;
    b->sleep_ns = 1000;
    b->watch_ns = 0;
}

static inline void shmi_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

/* The part past spinning: yield or sleep (backoff.c). */
void shmi_backoff_slow(shmi_backoff_t *b);

/* Spin limit (SHMEM_WAIT_SPIN, or 0) and whether waiting may sleep
 * (SHMEM_WAIT_SLEEP): set at start-up by shmi_backoff_configure, then
 * adapted by waiting threads to the node's load (backoff.c); read them with
 * relaxed atomic loads. */
extern unsigned long shmi_backoff_spin;
extern int shmi_backoff_may_sleep;
/* sharers: the PEs of the job (this one included) that may run on this
 * PE's cores; ncpus: how many cores this PE may run on (src/topo/
 * cpu_share.h); node_pes: the PEs of the job on this node. More sharers
 * than cores: the job itself crowds them, waiters sleep longer the more
 * PEs per core the node holds, and the call returns 1 (else 0). */
int shmi_backoff_configure(int sharers, int ncpus, int node_pes);
/* What shmi_backoff_configure returned: 1 when the job itself crowds this
 * PE's cores (the collectives choose their algorithms by it, agreed over
 * the job: src/core/coll/coll_state.c). */
int shmi_backoff_job_crowded(void);

/* What every poll drives: the progress of the transports in use (set by
 * the core at start-up, src/core/path_start.c), NULL when none needs it, so that
 * a load/store-only job polls with no call. */
extern void (*shmi_backoff_progress)(void);

/*
 * What a transport asks the core when an operation to a peer cannot go on,
 * so that it never retries forever against a PE that is gone (set by the
 * core at start-up, src/core/coll/peer_gone.c; NULL where no core runs,
 * as in the transports' own tests). Asked only off the fast path: now and
 * then from a retry or wait loop that is not getting anywhere, and at an
 * error completion. why:
 *   SHMI_GONE_POST     posting to world PE pe failed, or keeps being
 *                      refused for want of resources;
 *   SHMI_GONE_FAILED   an operation of this PE (target unknown: pe -1)
 *                      completed with an error;
 *   SHMI_GONE_STALLED  a wait for this PE's completions (pe -1) has made no
 *                      progress for a while.
 * Returns 0 to go on as before (retry, wait, report the error), 1 to give
 * up quietly and count the operation as done (this PE is past its own
 * shmem_finalize and the peer is gone or the time to tell it so is over),
 * and does not return when the target has called shmem_finalize and exited
 * while this PE still needed it: the job ends with the message a
 * collective gives for that (src/core/coll/peer_record.h).
 */
enum { SHMI_GONE_POST, SHMI_GONE_FAILED, SHMI_GONE_STALLED };
extern int (*shmi_backoff_peer_gone)(int pe, int why);

/* The spin limit now (shmi_backoff_configure sets it, waiting threads
 * adapt it to the node's load: backoff.c). A relaxed load: a plain one. */
static inline unsigned long shmi_backoff_spin_now(void)
{
    return __atomic_load_n(&shmi_backoff_spin, __ATOMIC_RELAXED);
}

static inline void shmi_backoff_wait(shmi_backoff_t *b)
{
    if (shmi_backoff_progress)
        shmi_backoff_progress();
    if (++b->polls <= shmi_backoff_spin_now()) {
        shmi_cpu_relax();
        return;
    }
    shmi_backoff_slow(b);
}

/* Call after a successful poll when the same loop goes on waiting for
 * something else (e.g. the next element of wait_until_all). */
static inline void shmi_backoff_reset(shmi_backoff_t *b)
{
    shmi_backoff_init(b);
}

#endif /* SHMI_BACKOFF_H */
