/*
 * The main loop of a local job: move output and stdin, forward signals, and
 * notice a PE that fails (exits non-zero, is killed, or exits without
 * finalizing) or a PMIx_Abort; then stop every other PE within two seconds
 * (SIGTERM, then SIGKILL after one second) and exit with the failure's
 * status.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tools/oshrun.h"

/* Seconds between SIGTERM and SIGKILL when stopping a job. */
#define TERM_GRACE 1.0
/* Seconds to wait for output after every PE was reaped. */
#define DRAIN_GRACE 1.0
/* Reads per stream when catching up with every PE's output; a PE that
 * keeps writing faster than that is caught up with on later polls. */
#define DRAIN_PASS 64
/* Reads of a dead PE's stream; more only when its children keep the pipe
 * open and keep writing, and then the loop reads on as usual. */
#define DRAIN_DEAD 4096

void oshrun_msg(const char *fmt, ...)
{
    char buf[1024];
    int n = snprintf(buf, sizeof(buf), "oshrun: ");
    va_list ap;

    va_start(ap, fmt);
    n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof(buf) - 2)
        n = (int)sizeof(buf) - 2;
    buf[n++] = '\n';
    if (write(2, buf, (size_t)n) < 0) {
        /* stderr is gone: nothing left to tell */
    }
}

double oshrun_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void oshrun_wake(oshrun_job_t *job)
{
    if (write(job->wake[1], "w", 1) < 0) {
        /* the pipe is full: the loop is awake already */
    }
}

int oshrun_stop_pending(void)
{
    sigset_t set;

    if (sigpending(&set) != 0)
        return 0;
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGCHLD && sigismember(&set, sig) == 1)
            return sig;
    return 0;
}

/* Sends sig to every PE (its process group, to catch its children too). */
static void signal_all(oshrun_job_t *job, int sig)
{
    for (int r = 0; r < job->opts->npes; r++) {
        pid_t pid = job->pes[r].pid;

        if (pid > 0 && kill(-pid, sig) != 0 && !job->pes[r].reaped)
            kill(pid, sig);
    }
}

static void stop_job(oshrun_job_t *job, int status)
{
    if (job->ending)
        return;
    job->ending = 1;
    job->status = status;
    job->kill_at = oshrun_now() + TERM_GRACE;
    signal_all(job, SIGTERM);
}

static void report_death(oshrun_job_t *job, int rank, int connected,
                         int finalized)
{
    oshrun_pe_t *pe = &job->pes[rank];
    int st = pe->wstatus;

    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        const char *abbr = sigabbrev_np(sig);

        /* The kernel's out-of-memory killer sends SIGKILL: its counters
         * say whether it acted while the job ran. */
        oshrun_msg("PE %d (pid %ld) was killed by signal %d (SIG%s)%s; "
                   "stopping the job",
                   rank, (long)pe->pid, sig, abbr ? abbr : "?",
                   sig == SIGKILL ? oshrun_oom_note() : "");
        stop_job(job, 128 + sig);
    } else if (WEXITSTATUS(st) != 0) {
        oshrun_msg("PE %d (pid %ld) exited with status %d%s; stopping the job",
                   rank, (long)pe->pid, WEXITSTATUS(st),
                   connected && !finalized ? " before shmem_finalize" : "");
        stop_job(job, WEXITSTATUS(st));
    } else if (connected && !finalized) {
        oshrun_msg("PE %d (pid %ld) exited with status 0 without calling "
                   "shmem_finalize; stopping the job",
                   rank, (long)pe->pid);
        stop_job(job, 1);
    }
}

/* Reads what every PE has written so far, in rank order, so that output
 * written before an event is printed before what the event causes (a dead
 * PE's last lines, oshrun's own messages). */
static void drain_all(oshrun_job_t *job, int max_reads)
{
    int tag = job->opts->tag_output;

    for (int r = 0; r < job->opts->npes; r++) {
        oshrun_stream_drain(&job->pes[r].out, r, tag, max_reads);
        oshrun_stream_drain(&job->pes[r].err, r, tag, max_reads);
    }
}

/* 1 when a PE other than rank was killed by a signal or exited with status
 * 0 (not with an error) and is not reaped yet, waiting up to 500 ms: a PE
 * that fails because a peer vanished under it (a failed fence) often tells
 * us before the dead peer's exit is seen, and the death is the cause to
 * report. */
static int other_death_pending(oshrun_job_t *job, int rank)
{
    double until = oshrun_now() + 0.5;

    do {
        for (int r = 0; r < job->opts->npes; r++) {
            siginfo_t si = {0};
            oshrun_pe_t *pe = &job->pes[r];

            if (r == rank || pe->pid <= 0 || pe->reaped)
                continue;
            if (waitid(P_PID, (id_t)pe->pid, &si,
                       WEXITED | WNOHANG | WNOWAIT) == 0 &&
                si.si_pid == pe->pid &&
                (si.si_code != CLD_EXITED || si.si_status == 0))
                return 1;
        }
        usleep(2000);
    } while (oshrun_now() < until);
    return 0;
}

static void check_abort(oshrun_job_t *job)
{
    int aborted, rank, status;

    pthread_mutex_lock(&job->lock);
    aborted = job->aborted;
    rank = job->abort_rank;
    status = job->abort_status;
    pthread_mutex_unlock(&job->lock);
    if (!aborted || job->ending)
        return;
    if (status != 0 && other_death_pending(job, rank))
        return; /* reap() reports that death first */
    drain_all(job, DRAIN_PASS); /* the PE's reason comes before ours */
    if (status != 0)
        oshrun_msg("PE %d ended the job with status %d", rank, status);
    stop_job(job, status);
}

/* A PE that exited with status 0 without ever joining (no shmem_init)
 * while another one joined: that one waits for it in shmem_init forever. */
static void check_unjoined(oshrun_job_t *job)
{
    int gone = -1, joined = 0;

    if (job->ending)
        return;
    pthread_mutex_lock(&job->lock);
    for (int r = 0; r < job->opts->npes; r++) {
        const oshrun_pe_t *pe = &job->pes[r];

        if (pe->reaped && !pe->connected && gone < 0)
            gone = r;
        if (pe->connected && !pe->finalized)
            joined = 1;
    }
    pthread_mutex_unlock(&job->lock);
    if (gone < 0 || !joined)
        return;
    oshrun_msg("PE %d (pid %ld) exited with status 0 without calling "
               "shmem_init, which the other PEs wait for; stopping the job",
               gone, (long)job->pes[gone].pid);
    stop_job(job, 1);
}

/* A PE that exited with an error status while another PE lies dead: most
 * likely it failed because of that death, which is the one to report. */
static int maybe_consequence(oshrun_job_t *job, int rank)
{
    int st = job->pes[rank].wstatus;

    return WIFEXITED(st) && WEXITSTATUS(st) != 0 &&
           other_death_pending(job, rank);
}

static void reap(oshrun_job_t *job)
{
    int st, deferred = -1;
    pid_t pid;

    check_abort(job); /* an abort comes before the aborting PE's exit */
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        for (int r = 0; r < job->opts->npes; r++) {
            oshrun_pe_t *pe = &job->pes[r];
            int connected, finalized;

            if (pe->pid != pid || pe->reaped)
                continue;
            pe->reaped = 1;
            pe->wstatus = st;
            pthread_mutex_lock(&job->lock);
            connected = pe->connected;
            finalized = pe->finalized;
            pthread_mutex_unlock(&job->lock);
            /* Its last words come before oshrun's verdict on it, and what
             * the others wrote earlier before its last words. */
            drain_all(job, DRAIN_PASS);
            oshrun_stream_drain(&pe->out, r, job->opts->tag_output,
                                DRAIN_DEAD);
            oshrun_stream_drain(&pe->err, r, job->opts->tag_output,
                                DRAIN_DEAD);
            if (job->ending)
                continue;
            if (maybe_consequence(job, r)) {
                if (deferred < 0) /* the other death is reaped next */
                    deferred = r;
            } else {
                report_death(job, r, connected, finalized);
            }
        }
    }
    check_unjoined(job);
    if (deferred >= 0 && !job->ending) {
        int connected, finalized;

        pthread_mutex_lock(&job->lock);
        connected = job->pes[deferred].connected;
        finalized = job->pes[deferred].finalized;
        pthread_mutex_unlock(&job->lock);
        report_death(job, deferred, connected, finalized);
    }
}

static void on_signal(oshrun_job_t *job, int sfd)
{
    struct signalfd_siginfo si;

    while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        int sig = (int)si.ssi_signo;

        if (sig == SIGCHLD) {
            reap(job);
        } else if (job->ending) {
            oshrun_msg("signal %d (SIG%s) again: killing the PEs", sig,
                       oshrun_sig_name(sig));
            signal_all(job, SIGKILL); /* asked twice: stop now */
        } else {
            /* Said at once: the PEs may take a while to go, and the status
             * alone (128 + signal) does not tell a user who stopped what. */
            oshrun_msg("stopped by signal %d (SIG%s): passing it to the PEs "
                       "and ending the job (status %d)",
                       sig, oshrun_sig_name(sig), 128 + sig);
            /* The PEs get the user's signal itself, not SIGTERM. */
            job->ending = 1;
            job->status = 128 + sig;
            job->kill_at = oshrun_now() + TERM_GRACE;
            signal_all(job, sig);
        }
    }
}

/* stdin to PE 0, through a small buffer so a PE that does not read its
 * stdin never blocks the loop. */
typedef struct stdin_fwd {
    char buf[65536];
    size_t len, off;
    int eof;
} stdin_fwd_t;

static void stdin_close(oshrun_job_t *job, stdin_fwd_t *in)
{
    in->eof = 1;
    if (job->stdin_fd >= 0)
        close(job->stdin_fd);
    job->stdin_fd = -1;
}

static void stdin_read(oshrun_job_t *job, stdin_fwd_t *in)
{
    ssize_t r = read(0, in->buf, sizeof(in->buf));

    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (r <= 0) {
        stdin_close(job, in);
        return;
    }
    in->len = (size_t)r;
    in->off = 0;
}

static void stdin_write(oshrun_job_t *job, stdin_fwd_t *in)
{
    ssize_t w = write(job->stdin_fd, in->buf + in->off, in->len - in->off);

    if (w < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (w < 0) { /* PE 0 closed its stdin */
        stdin_close(job, in);
        return;
    }
    in->off += (size_t)w;
    if (in->off == in->len)
        in->len = in->off = 0;
}

static int all_reaped(const oshrun_job_t *job)
{
    for (int r = 0; r < job->opts->npes; r++)
        if (job->pes[r].pid > 0 && !job->pes[r].reaped)
            return 0;
    return 1;
}

static void watch(struct pollfd *fds, int *ids, int *n, int fd, short events,
                  int id)
{
    fds[*n] = (struct pollfd){fd, events, 0};
    ids[(*n)++] = id;
}

/* Fills fds; ids[i] says what fds[i] is: -1 signals, -2 wake, -3 stdin in,
 * -4 stdin out, 2r PE r's stdout, 2r+1 its stderr. */
static int gather(oshrun_job_t *job, stdin_fwd_t *in, int sfd,
                  struct pollfd *fds, int *ids)
{
    int n = 0, to_pe0 = !in->eof && job->stdin_fd >= 0;

    watch(fds, ids, &n, sfd, POLLIN, -1);
    watch(fds, ids, &n, job->wake[0], POLLIN, -2);
    if (to_pe0 && in->len == 0)
        watch(fds, ids, &n, 0, POLLIN, -3);
    if (to_pe0 && in->len > 0)
        watch(fds, ids, &n, job->stdin_fd, POLLOUT, -4);
    for (int r = 0; r < job->opts->npes; r++) {
        if (job->pes[r].out.fd >= 0)
            watch(fds, ids, &n, job->pes[r].out.fd, POLLIN, 2 * r);
        if (job->pes[r].err.fd >= 0)
            watch(fds, ids, &n, job->pes[r].err.fd, POLLIN, 2 * r + 1);
    }
    return n;
}

static void dispatch(oshrun_job_t *job, stdin_fwd_t *in, int sfd, int id,
                     int fd)
{
    char drain[64];

    if (id == -1) {
        on_signal(job, sfd);
    } else if (id == -2) {
        while (read(job->wake[0], drain, sizeof(drain)) > 0)
            ;
        check_abort(job);
        check_unjoined(job);
    } else if (id == -3) {
        stdin_read(job, in);
    } else if (id == -4) {
        stdin_write(job, in);
    } else {
        oshrun_pe_t *pe = &job->pes[id / 2];
        oshrun_stream_t *s = id % 2 ? &pe->err : &pe->out;

        if (s->fd == fd) /* not closed while catching up in this round */
            oshrun_stream_read(s, id / 2, job->opts->tag_output);
    }
}

/* Milliseconds poll may sleep: until the SIGKILL or drain deadline. */
static int poll_timeout(oshrun_job_t *job, double drain_until)
{
    double until = -1;

    if (job->ending && job->kill_at > 0)
        until = job->kill_at;
    if (drain_until > 0 && (until < 0 || drain_until < until))
        until = drain_until;
    if (until < 0)
        return -1;
    until -= oshrun_now();
    return until <= 0 ? 0 : (int)(until * 1000) + 1;
}

int oshrun_loop(oshrun_job_t *job, int sfd)
{
    int cap = 4 + 2 * job->opts->npes, *ids = malloc((size_t)cap * sizeof(int));
    struct pollfd *fds = malloc((size_t)cap * sizeof(*fds));
    stdin_fwd_t *in = calloc(1, sizeof(*in));
    double drain_until = 0;

    if (!ids || !fds || !in) {
        oshrun_msg("out of memory");
        stop_job(job, 1);
    }
    reap(job); /* a PE may have died before the loop started */
    for (;;) {
        int n = ids && fds && in ? gather(job, in, sfd, fds, ids) : 0;

        if (all_reaped(job)) {
            if (n <= 2 || (drain_until > 0 && oshrun_now() >= drain_until))
                break;
            if (drain_until == 0)
                drain_until = oshrun_now() + DRAIN_GRACE;
        }
        if (job->ending && job->kill_at > 0 && oshrun_now() >= job->kill_at) {
            signal_all(job, SIGKILL);
            job->kill_at = 0;
        }
        if (n == 0) {
            reap(job);
            usleep(10000);
            continue;
        }
        if (poll(fds, (nfds_t)n, poll_timeout(job, drain_until)) < 0 &&
            errno != EINTR)
            break;
        /* Output first: what the PEs wrote came before the exits and
         * signals reported in the same round. */
        for (int i = 0; i < n; i++)
            if (fds[i].revents && ids[i] >= 0)
                dispatch(job, in, sfd, ids[i], fds[i].fd);
        for (int i = 0; i < n; i++)
            if (fds[i].revents && ids[i] < 0)
                dispatch(job, in, sfd, ids[i], fds[i].fd);
    }
    free(ids);
    free(fds);
    free(in);
    return job->status;
}
