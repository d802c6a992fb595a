/*
 * oshrun: start N PEs of an OpenSHMEM program.
 *
 * Outside Slurm, oshrun hosts the job itself as a small PMIx server (see
 * oshrun_server.c): it forks the PEs, serves their start-up exchange, passes
 * on output, stdin and signals, and stops the whole job as soon as one PE
 * fails. Inside a Slurm allocation, or with --launcher, it hands the job to
 * srun --mpi=pmix or Open MPI's mpirun.
 */
#define _GNU_SOURCE
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "tools/oshrun.h"

const char *oshrun_sig_name(int sig)
{
    static char rt[16]; /* the main loop's thread only */
    const char *abbr = sigabbrev_np(sig);

    if (abbr)
        return abbr;
    if (sig < SIGRTMIN || sig > SIGRTMAX)
        return "?";
    /* Real-time signals, named as the shell's kill -l names them. */
    if (sig - SIGRTMIN <= (SIGRTMAX - SIGRTMIN) / 2)
        snprintf(rt, sizeof(rt), sig == SIGRTMIN ? "RTMIN" : "RTMIN+%d",
                 sig - SIGRTMIN);
    else
        snprintf(rt, sizeof(rt), sig == SIGRTMAX ? "RTMAX" : "RTMAX-%d",
                 SIGRTMAX - sig);
    return rt;
}

/*
 * The job's directory is $TMPDIR/oshrun.PID.XXXXXX, with PMIx's rendezvous
 * files under it, in a fixed buffer (oshrun.h). A TMPDIR too long for it
 * used to fail in mkdtemp with "Invalid argument"; batch systems do set
 * long per-job TMPDIRs, and the directory is private to oshrun (nothing of
 * the program's lives there), so /tmp serves as well, said once.
 */
const char *oshrun_tmp_base(void)
{
    static int warned;
    const char *base = getenv("TMPDIR");

    if (!base || !*base)
        return "/tmp";
    if (strlen(base) <= OSHRUN_TMPDIR_MAX)
        return base;
    if (!warned)
        oshrun_msg("TMPDIR is %zu characters long, more than the %zu oshrun "
                   "allows for its rendezvous directory; using /tmp (the PEs "
                   "keep TMPDIR)",
                   strlen(base), (size_t)OSHRUN_TMPDIR_MAX);
    warned = 1;
    return "/tmp";
}

/*
 * Every signal whose default action would end oshrun: each stops the job
 * as SIGTERM does (oshrun_loop.c: a message naming it, the signal passed
 * to the PEs, status 128+N, the job's directory removed), instead of
 * killing oshrun with no word and leaving its directory behind.
 * SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS and SIGABRT are in the
 * list for the ones another process sends: a fault of oshrun itself (and
 * abort()) still ends it with a core dump, as the kernel (and glibc)
 * unblock the signal for the faulting thread. Not in the list: SIGKILL and
 * SIGSTOP (cannot be caught), SIGPIPE (ignored: a write to a closed
 * output fails with EPIPE and that output is dropped, while the job goes
 * on), SIGCHLD (watched to reap the PEs), the stop and continue signals
 * (SIGTSTP, SIGTTIN, SIGTTOU, SIGCONT keep their default action, so a
 * shell's job control still suspends and resumes oshrun) and those ignored
 * by default (SIGURG, SIGWINCH).
 */
static const int stop_signals[] = {
    SIGHUP,  SIGINT,  SIGQUIT,   SIGILL,  SIGTRAP, SIGABRT, SIGBUS,
    SIGFPE,  SIGUSR1, SIGSEGV,   SIGUSR2, SIGALRM, SIGTERM, SIGSTKFLT,
    SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO,   SIGPWR,  SIGSYS,
};

/* Signals the main loop receives through a signalfd: SIGCHLD, those of
 * stop_signals and the real-time ones (whose default action also ends a
 * process). Blocked in every thread (libpmix's progress thread inherits
 * the mask). */
static int watch_signals(void)
{
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
        sigaddset(&set, stop_signals[i]);
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
        sigaddset(&set, sig);
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0)
        return -1;
    signal(SIGPIPE, SIG_IGN);
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

static int job_init(oshrun_job_t *job, const oshrun_opts_t *opts)
{
    memset(job, 0, sizeof(*job));
    job->opts = opts;
    job->stdin_fd = -1;
    job->wake[0] = job->wake[1] = -1;
    job->pes = calloc((size_t)opts->npes, sizeof(oshrun_pe_t));
    for (int r = 0; job->pes && r < opts->npes; r++)
        job->pes[r].out.fd = job->pes[r].err.fd = job->pes[r].lifeline = -1;
    if (!job->pes || pthread_mutex_init(&job->lock, NULL) ||
        pipe2(job->wake, O_NONBLOCK | O_CLOEXEC)) {
        oshrun_msg("cannot set up the job (out of memory or descriptors)");
        return -1;
    }
    return 0;
}

static void job_free(oshrun_job_t *job)
{
    for (int r = 0; job->pes && r < job->opts->npes; r++) {
        oshrun_stream_close(&job->pes[r].out, r, job->opts->tag_output);
        oshrun_stream_close(&job->pes[r].err, r, job->opts->tag_output);
        /* Whatever is still in a PE's process group ends with the job. */
        if (job->pes[r].lifeline >= 0)
            close(job->pes[r].lifeline);
    }
    free(job->pes);
    job->pes = NULL;
    if (job->stdin_fd >= 0)
        close(job->stdin_fd);
    job->stdin_fd = -1;
    for (int i = 0; i < 2; i++)
        if (job->wake[i] >= 0)
            close(job->wake[i]);
    job->wake[0] = job->wake[1] = -1;
}

static int run_local(const oshrun_opts_t *opts)
{
    oshrun_job_t job;
    int sfd, status = 1, stuck = 0;

    if (job_init(&job, opts)) {
        job_free(&job);
        return 1;
    }
    sfd = watch_signals();
    if (sfd < 0) {
        oshrun_msg("cannot watch signals");
        job_free(&job);
        return 1;
    }
    /* Orphaned children of the PEs come back to oshrun to be reaped. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    oshrun_sweep_stale(&job);
    if (oshrun_tmp_create(&job) || oshrun_server_start(&job))
        goto out_tmp;
    if (oshrun_spawn(&job)) {
        /* the PEs already started are stopped by the loop */
        job.status = OSHRUN_EUSAGE;
        job.ending = 1;
        job.kill_at = oshrun_now();
    }
    status = oshrun_loop(&job, sfd);
    stuck = oshrun_server_stop(&job) != 0;
    oshrun_shm_cleanup(&job);
out_tmp:
    oshrun_tmp_remove(&job);
    job_free(&job);
    close(sfd);
    if (stuck) {
        /* libpmix's finalize holds its locks on another thread; exit-time
         * code (its destructors) could wait for them for ever. */
        oshrun_msg("the PMIx server did not shut down within %d s; "
                   "exiting without it",
                   OSHRUN_FINALIZE_WAIT);
        fflush(NULL);
        _exit(status);
    }
    return status;
}

int main(int argc, char **argv)
{
    oshrun_opts_t opts;
    const char *launcher;
    int ret = oshrun_parse(argc, argv, &opts);

    if (ret)
        return ret;
    launcher = opts.launcher;
    if (!launcher)
        launcher = getenv("SLURM_JOB_ID") ? "srun" : "local";
    if (strcmp(launcher, "local") != 0)
        ret = oshrun_delegate(&opts, launcher);
    else
        ret = run_local(&opts);
    oshrun_opts_free(&opts);
    return ret;
}
