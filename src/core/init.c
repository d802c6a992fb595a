/*
 * shmem_init, shmem_init_thread, shmem_finalize, shmem_global_exit and the
 * deprecated start_pes: the start-up and shut-down sequence of
 * src/core/init_seq.h, run in exactly that order.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/gen/core_decl.h"
#include "boot/boot.h"
#include "core/coll/coll.h"
#include "core/coll/watch.h"
#include "core/ctx.h"
#include "core/init.h"
#include "core/init_seq.h"
#include "core/segment.h"
#include "core/state.h"
#include "core/kernel/kernel.h"
#include "core/stream/stream.h"
#include "core/team/team.h"
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
    step(shmi_topo_init(), routine, "binding");
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
     * for SHMEM_DEBUG's comparison of collective calls). */
    shmi_coll_enter("shmem_init", &shmem_impl_team_world);
    shmi_barrier_all();
    shmi_coll_leave();
    shmi_paths_started();
    report();
}

/* Initialization after shmem_finalize cannot be supported: the launcher
 * has already let this PE go. */
static void refuse_restart(const char *routine)
{
    if (shmi_state.finalized)
        SHMI_FATAL("%s: called after shmem_finalize; the library cannot be "
                   "initialized twice in one program",
                   routine);
}

void shmi_init(void)
{
    refuse_restart("shmem_init");
    /* A second shmem_init is undefined in the specification; Weft keeps
     * the first, as start_pes always did. */
    if (shmi_state.initialized)
        return;
    start("shmem_init", SHMEM_THREAD_SINGLE);
}

int shmi_init_thread(int requested, int *provided)
{
    refuse_restart("shmem_init_thread");
    /* The specification's failure channel here is the return value. */
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
        SHMI_LOG(SHMI_LOG_ERROR, "init",
                 "shmem_init_thread: requested thread level %d is not one of "
                 "SHMEM_THREAD_SINGLE, _FUNNELED, _SERIALIZED or _MULTIPLE",
                 requested);
        return 1;
    }
    if (!shmi_state.initialized)
        start("shmem_init_thread", requested);
    if (provided)
        *provided = shmi_state.thread_level;
    return 0;
}

/*
 * A program started with start_pes needs no shmem_finalize: OpenSHMEM
 * finalizes it when it exits, collectively (a global synchronization that
 * completes all pending communication). This exit handler is that
 * finalize, for a program that ends with status 0 (return from main,
 * exit(0)) on the process that called start_pes (not a forked child).
 *
 * It runs before the bootstrap's exit watch (src/boot/pmix_boot.c) and the
 * heap's name guard (src/core/heap/shm_names.c), which were registered
 * during start-up (handlers run last registered first): they then find the
 * library finalized and have nothing to do, and every launcher sees a PE
 * that finalized. A nonzero status is left to them, as without start_pes:
 * the job ends with that status and the message names the PE. A PE that
 * fails while the others wait in some other collective must not enter the
 * finalize's barrier, which would match theirs or wait for ever.
 */
static pid_t implicit_finalize_pid;

static void implicit_finalize(int status, void *arg)
{
    (void)arg;
    if (status != 0 || getpid() != implicit_finalize_pid ||
        !shmi_state.initialized)
        return;
    shmi_finalize();
}

void shmi_start_pes(int npes)
{
    (void)npes; /* ignored since OpenSHMEM 1.0: the launcher decides */
    if (shmi_state.initialized || shmi_state.finalized)
        return;
    start("start_pes", SHMEM_THREAD_SINGLE);
    implicit_finalize_pid = getpid();
    if (on_exit(implicit_finalize, NULL) != 0)
        SHMI_FATAL("start_pes: PE %d cannot register its implicit "
                   "shmem_finalize at exit",
                   shmi_state.boot.rank);
}

void shmi_finalize(void)
{
    /* Repeated calls are harmless: the first one did the work. */
    if (shmi_state.finalized)
        return;
    shmi_require_init("shmem_finalize");
    /* Stream-ordered work still enqueued runs to its end first: it may
     * need the other PEs, which wait in the barrier below. */
    shmi_stream_finalize();
    /* Requests kernels posted already are served; then the proxy stops. */
    shmi_kernel_finalize();
    /* The last barrier's signals are delivered atomics, so that the
     * quiets below cover them (coll.h, shmi_coll_msg_stop). */
    shmi_coll_msg_stop();
    shmi_coll_enter("shmem_finalize", &shmem_impl_team_world);
    shmi_barrier_all(); /* completes every PE's outstanding traffic */
    shmi_coll_leave();
    /* The barrier's own signals are delivered too (they travel on the
     * collectives' context): from now on a PE that still waits for this
     * one waits in vain (src/core/coll/watch.h). */
    shmi_quiet();
    shmi_coll_quiet();
    shmi_watch_set_finalized();
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
