/*
 * shmem_init, shmem_init_thread, shmem_finalize, shmem_global_exit and the
 * deprecated start_pes: the start-up and shut-down sequence of
 * src/core/init_seq.h, run in exactly that order.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core_decl.h"
#include "boot/boot.h"
#include "core/coll/coll.h"
#include "core/coll/nbc.h"
#include "core/coll/peer_record.h"
#include "core/ctx.h"
#include "core/init.h"
#include "core/init_seq.h"
#include "core/segment.h"
#include "core/state.h"
#include "core/kernel/kernel.h"
#include "core/stream/stream.h"
#include "core/team/team.h"
#include "core/watchdog.h"
#include "services/env.h"
#include "services/error.h"
#include "shmem.h"

/* The fatal path ends every PE of the job, not only this one. */
static void abort_job(int status, const char *msg)
{
    shmi_boot_abort(status, msg);
}

_Noreturn void shmi_not_initialized(const char *routine)
{
    if (shmi_state.finalized)
        SHMI_FATAL("%s: called after shmem_finalize", routine);
    SHMI_FATAL("%s: called before shmem_init", routine);
}

/* A failed start-up step is fatal: no PE can go on without it. */
static void step(int ret, const char *routine, const char *what)
{
    if (ret)
        SHMI_FATAL("%s: %s failed: %s", routine, what, shmi_strerror(ret));
}

static void report(void)
{
    if (shmi_state.boot.rank != 0 || !(shmi_env.VERSION || shmi_env.INFO))
        return;
    printf("Weft %s: OpenSHMEM %d.%d, %d PEs on %d node%s, started by %s\n",
           PACKAGE_VERSION, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION,
           shmi_state.boot.size, shmi_state.boot.n_nodes,
           shmi_state.boot.n_nodes == 1 ? "" : "s", shmi_state.boot.launcher);
    if (shmi_env.INFO)
        shmi_env_print(stdout);
    fflush(stdout);
}

/* The launcher's rank for this process, from the environment it was given;
 * -1 when there is none (started without a launcher) or it is not a rank. */
static int launcher_rank(void)
{
    const char *v = getenv("PMIX_RANK");
    char *end;
    long r;

    if (!v || !*v)
        return -1;
    r = strtol(v, &end, 10);
    return *end || r < 0 || r > 0x7fffffff ? -1 : (int)r;
}

/* Fatal errors before the bootstrap knows this PE (bad environment, no
 * launcher): the rank comes from the launcher's environment when it gave
 * one, so that the message does not say "pe -1". Nothing to abort yet: the
 * launcher sees this process exit. */
static _Noreturn void early_fatal(int line, const char *func,
                                  const char *routine, const char *msg)
{
    int rank = launcher_rank();
    char pe[32] = "weft:";

    if (rank >= 0)
        snprintf(pe, sizeof(pe), "weft[pe %d]", rank);
    fprintf(stderr, "%s init.c:%d %s: %s: %s\n", pe, line, func, routine, msg);
    fflush(NULL);
    _exit(1);
}

/* Runs the start-up sequence of init_seq.h; routine names the caller. */
static void start(const char *routine, int thread_level)
{
    char err[512] = "";
    int ret;

    ret = shmi_env_load(err, sizeof(err));
    if (ret)
        early_fatal(__LINE__, __func__, routine,
                    err[0] ? err : shmi_strerror(ret));
    shmi_watchdog_init();
    ret = shmi_boot_init(&shmi_state.boot);
    if (ret) {
        snprintf(err, sizeof(err),
                 "cannot start without a usable launcher (%s)",
                 shmi_strerror(ret));
        early_fatal(__LINE__, __func__, routine, err);
    }
    shmi_abort_hook = abort_job;
    shmi_log_pe = shmi_state.boot.rank;
    /* Known before the transports start, so that they can skip locking in
     * programs that are not SHMEM_THREAD_MULTIPLE. */
    shmi_state.thread_level = thread_level;
    step(shmi_topo_init(&shmi_state.boot), routine, "binding");
    step(shmi_paths_select(), routine, "transport selection");
    step(shmi_segments_init(), routine, "symmetric segment set-up");
    step(shmi_paths_init(), routine, "transport set-up");
    step(shmi_boot_fence(), routine, "start-up exchange");
    step(shmi_paths_connect(), routine, "transport connection");
    step(shmi_boot_fence(), routine, "start-up exchange");
    shmi_segments_connected();
    step(shmi_ctx_default_init(), routine, "default context set-up");
    step(shmi_teams_init(), routine, "team set-up");
    step(shmi_segments_user_start(), routine, "symmetric segment set-up");
    shmi_state.initialized = 1;
    /* Errors of the first barrier (the first traffic between nodes) name
     * shmem_init (shmem_init_thread and start_pes count as shmem_init, also
     * for SHMEM_DEBUG's comparison of collective calls). The agreement on
     * crowded cores (coll.h) runs in the same call, so that a program's
     * first collective is call 2 of SHMEM_TEAM_WORLD, whatever shmem_init
     * needs of its own. */
    shmi_coll_enter("shmem_init", &shmem_impl_team_world);
    shmi_coll_crowd_agree();
    shmi_barrier_all();
    shmi_coll_leave();
    shmi_paths_started();
    report();
}

/*
 * Start-up and shut-down run one at a time. Threads of a program that call
 * shmem_init_thread at once (as SHMEM_THREAD_MULTIPLE programs may): the
 * first to take the lock initializes, the others wait for it, find the
 * library initialized and return as a repeated call does (the
 * specification leaves a second initialization undefined; Weft keeps the
 * first, and every caller is given its thread level). shmem_finalize takes
 * the same lock: threads that call it at once finalize once, and one that
 * races an initialization runs wholly before it (and is refused: called
 * before shmem_init) or wholly after it. The lock is never held while the
 * program runs, only inside these entry points.
 */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

/* Initialization after shmem_finalize cannot be supported: the launcher
 * has already let this PE go. */
static void refuse_restart(const char *routine)
{
    if (shmi_state.finalized)
        SHMI_FATAL("%s: called after shmem_finalize; the library cannot be "
                   "initialized twice in one program",
                   routine);
}

/* Below: a PE that exits without shmem_finalize is finalized at exit. */
static void register_at_exit(const char *routine, int warn);

void shmi_init(void)
{
    pthread_mutex_lock(&init_lock);
    refuse_restart("shmem_init");
    /* A second shmem_init is undefined in the specification; Weft keeps
     * the first, as start_pes always did. */
    if (!shmi_state.initialized) {
        start("shmem_init", SHMEM_THREAD_SINGLE);
        register_at_exit("shmem_init", 1);
    }
    pthread_mutex_unlock(&init_lock);
}

int shmi_init_thread(int requested, int *provided)
{
    /* The specification's failure channel here is the return value. */
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
        SHMI_LOG(SHMI_LOG_ERROR, "init",
                 "shmem_init_thread: requested thread level %d is not one of "
                 "SHMEM_THREAD_SINGLE, _FUNNELED, _SERIALIZED or _MULTIPLE",
                 requested);
        return 1;
    }
    pthread_mutex_lock(&init_lock);
    refuse_restart("shmem_init_thread");
    if (!shmi_state.initialized) {
        start("shmem_init_thread", requested);
        register_at_exit("shmem_init_thread", 1);
    }
    if (provided)
        *provided = shmi_state.thread_level;
    pthread_mutex_unlock(&init_lock);
    return 0;
}

/*
 * A PE that returns from main (or calls exit(0)) without shmem_finalize is
 * finalized at exit, as Sandia OpenSHMEM does. For start_pes that is the
 * specification's own rule: the library is finalized when the program
 * exits, collectively (a global synchronization that completes all pending
 * communication). For shmem_init and shmem_init_thread it is a courtesy to
 * programs written for libraries that do so; PE 0 warns once.
 *
 * The exit handler registered at start-up (on the process that started
 * the library, not a forked child) runs for status 0 only. It first
 * completes this PE's own traffic, then waits until every PE is at exit
 * (shmi_watch_exit_wait, src/core/coll/peer_record.h), so that the finalize's
 * barrier can match no barrier of the program, and then runs the
 * shmem_finalize sequence. When instead the PEs that are not at exit all
 * stay blocked in a wait, they wait for this PE, which will never come:
 * the handler then leaves without finalizing, and this PE's exit ends the
 * job as it always did (the bootstrap's exit watch, src/boot/pmix_boot.c,
 * or oshrun's report names the PE).
 *
 * The handler runs before the bootstrap's exit watch and the heap's name
 * guard (src/services/shm_names.c), which were registered during
 * start-up (handlers run last registered first): after a finalize they
 * find the library finalized and have nothing to do. A nonzero status is
 * left to them: the job ends with that status and the message names the
 * PE (a PE that fails while the others wait in a collective must not
 * enter a barrier that could match theirs).
 */
static pid_t at_exit_pid;    /* the process that started the library */
static int at_exit_warn;     /* started by shmem_init or shmem_init_thread */

static int finalize_seq(int at_exit);

static void finalize_at_exit(int status, void *arg)
{
    (void)arg;
    if (status != 0 || getpid() != at_exit_pid)
        return;
    /* After a shmem_finalize that another thread may still be running. */
    pthread_mutex_lock(&init_lock);
    if (shmi_state.initialized)
        finalize_seq(1);
    pthread_mutex_unlock(&init_lock);
}

/* Registers finalize_at_exit once, for the process that started. */
static void register_at_exit(const char *routine, int warn)
{
    at_exit_warn = warn;
    at_exit_pid = getpid();
    if (on_exit(finalize_at_exit, NULL) != 0)
        SHMI_FATAL("%s: PE %d cannot register its shmem_finalize at exit",
                   routine, shmi_state.boot.rank);
}

void shmi_start_pes(int npes)
{
    (void)npes; /* ignored since OpenSHMEM 1.0: the launcher decides */
    pthread_mutex_lock(&init_lock);
    if (!shmi_state.initialized && !shmi_state.finalized) {
        start("start_pes", SHMEM_THREAD_SINGLE);
        register_at_exit("start_pes", 0);
    }
    pthread_mutex_unlock(&init_lock);
}

/*
 * The shmem_finalize sequence. at_exit: called by finalize_at_exit, which
 * first waits for every PE to be at exit; returns SHMI_ESTATE, having
 * finalized nothing, when the others wait for this PE instead. 0 otherwise.
 */
static int finalize_seq(int at_exit)
{
    /* Nonblocking collectives still in flight run to their end first, and
     * their lanes stop (docs/nonblocking-collectives.md); then the
     * stream-ordered work still enqueued: both may need the other PEs,
     * which wait in the barrier below. */
    shmi_nbc_finalize();
    shmi_stream_finalize();
    /* Requests kernels posted already are served; then the proxy stops. */
    shmi_kernel_finalize();
    if (at_exit) {
        shmi_quiet(); /* what the others may wait for arrives first */
        if (shmi_watch_exit_wait() != 0)
            return SHMI_ESTATE;
        if (at_exit_warn && shmi_state.boot.rank == 0)
            SHMI_LOG(SHMI_LOG_WARN, "init",
                     "the program ended without calling shmem_finalize; "
                     "every PE was finalized at exit (call shmem_finalize "
                     "on every PE before leaving main)");
    }
    /* The last barrier's signals are delivered atomics, so that the
     * quiets below cover them (coll.h, shmi_coll_msg_stop). */
    shmi_coll_msg_stop();
    shmi_coll_enter("shmem_finalize", &shmem_impl_team_world);
    shmi_barrier_all(); /* completes every PE's outstanding traffic */
    /* SHMEM_DEBUG=1: the last chance to ask the peers off this node which
     * call this was for them (they wait for this PE's mark, alive). */
    shmi_coll_compare_now();
    shmi_coll_leave();
    /* The barrier's own signals are delivered too (they travel on the
     * collectives' context): from now on a PE that still waits for this
     * one waits in vain (src/core/coll/peer_record.h). */
    shmi_quiet();
    shmi_coll_quiet();
    shmi_watch_set_finalized(); /* and tells every peer, within 1 s */
    shmi_segments_user_end();
    shmi_teams_finalize();
    shmi_ctx_default_finalize();
    shmi_paths_finalize();
    shmi_segments_finalize();
    shmi_topo_finalize();
    shmi_state.initialized = 0;
    shmi_state.finalized = 1;
    shmi_abort_hook = NULL;
    shmi_boot_finalize();
    shmi_state.boot.local_pes = NULL; /* freed by shmi_boot_finalize */
    shmi_state.boot.node_of_pe = NULL;
    return 0;
}

void shmi_finalize(void)
{
    /* Repeated calls are harmless: the first one did the work (also when
     * threads call it at once: the others wait for it here). */
    pthread_mutex_lock(&init_lock);
    if (!shmi_state.finalized) {
        shmi_require_init("shmem_finalize");
        finalize_seq(0);
    }
    pthread_mutex_unlock(&init_lock);
}

void shmi_global_exit(int status)
{
    char msg[96];

    shmi_require_init("shmem_global_exit");
    snprintf(msg, sizeof(msg), "PE %d called shmem_global_exit(%d)",
             shmi_state.boot.rank, status);
    /* Ends every PE with this status; stdio is flushed on the way. */
    shmi_boot_abort(status, msg);
}
