/*
 * Forking the PEs: each gets oshrun's environment plus the -x variables and
 * what PMIx needs to connect back, pipes for its output (assembled into
 * lines by the main loop), and stdin from oshrun for PE 0 only.
 *
 * A PE must not outlive oshrun, however oshrun ends (kill -9 included), nor
 * may a program that a wrapper started (oshrun -n 2 sh -c 'app', valgrind,
 * a job script): a PE spinning in a barrier whose launcher is gone would
 * hold its core for ever. Two mechanisms, both in the kernel, so that they
 * work whatever the PE is doing:
 *  - the lifeline: a pipe per PE whose write end only oshrun holds
 *    (close-on-exec). Its read end goes to the PE, owned by the PE's
 *    process group with SIGKILL as its I/O signal (F_SETOWN, F_SETSIG,
 *    O_ASYNC): when the last write end closes, which happens when oshrun
 *    ends in any way, the kernel sends SIGKILL to that whole process group:
 *    the PE, a wrapper and what the wrapper started, at any depth. It holds
 *    as long as one process of the group keeps the read end open;
 *  - PR_SET_PDEATHSIG (SIGKILL) on the forked process itself, for a program
 *    that closes descriptors it did not open. It fires when the thread that
 *    forked dies: oshrun forks from its main thread, which lives until
 *    oshrun ends.
 * Once connected, a PE also ends itself when it loses its PMIx connection
 * to oshrun (src/boot/launcher_watch.c), which reaches a PE that left its
 * process group. What the killed PEs leave in /dev/shm and TMPDIR is
 * removed by the next oshrun of the same user (oshrun_sweep.c).
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tools/oshrun.h"

extern char **environ;

/* A malloc'd, NULL-terminated environment that libpmix may extend (it
 * reallocates the array and frees entries it replaces). */
typedef struct env_list {
    char **v;
    int n;
} env_list_t;

static int env_find(const env_list_t *e, const char *name, size_t len)
{
    for (int i = 0; i < e->n; i++)
        if (strncmp(e->v[i], name, len) == 0 && e->v[i][len] == '=')
            return i;
    return -1;
}

/* Sets "NAME=VAL" (entry holds both); keeps an existing value unless
 * overwrite. */
static int env_put(env_list_t *e, const char *entry, int overwrite)
{
    size_t len = strcspn(entry, "=");
    int i = env_find(e, entry, len);
    char *copy;

    if (i >= 0 && !overwrite)
        return 0;
    copy = strdup(entry);
    if (!copy)
        return -1;
    if (i >= 0) {
        free(e->v[i]);
        e->v[i] = copy;
        return 0;
    }
    char **v = realloc(e->v, (size_t)(e->n + 2) * sizeof(char *));
    if (!v) {
        free(copy);
        return -1;
    }
    e->v = v;
    e->v[e->n++] = copy;
    e->v[e->n] = NULL;
    return 0;
}

static void env_free(char **v)
{
    for (int i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

/* 0, 1 when a signal asked oshrun to stop, or -1 with why filled in. */
static int build_env(oshrun_job_t *job, int rank, char ***out, char *why,
                     size_t why_len)
{
    const oshrun_opts_t *o = job->opts;
    env_list_t e = {calloc(1, sizeof(char *)), 0};
    char bind[64];
    int ret = e.v ? 0 : -1;

    for (int i = 0; !ret && environ[i]; i++)
        ret = env_put(&e, environ[i], 1);
    /* "-x VAR" alone passes VAR's value here, which the copy already did. */
    for (int i = 0; !ret && i < o->n_env; i++)
        if (strchr(o->env[i], '='))
            ret = env_put(&e, o->env[i], 1);
    /* A single-node job never needs more than loopback. */
    if (!ret)
        ret = env_put(&e, "FI_TCP_IFACE=lo", 0);
    if (!ret)
        ret = env_put(&e, "FI_SOCKETS_IFACE=lo", 0);
    /* libinfinipath (loaded with libfabric) would otherwise catch SIGTERM
     * and call exit() from the handler, and print backtraces on crashes. */
    if (!ret)
        ret = env_put(&e, OSHRUN_NO_IPATH_HANDLERS, 0);
    if (!ret && o->bind) {
        snprintf(bind, sizeof(bind), "SHMEM_BIND=%s", o->bind);
        ret = env_put(&e, bind, 1);
    }
    if (ret)
        snprintf(why, why_len, "out of memory for its environment");
    else
        ret = oshrun_server_setup_pe(job, rank, &e.v, why, why_len);
    if (ret) {
        env_free(e.v);
        return ret;
    }
    *out = e.v;
    return 0;
}

/* oshrun holds about this many descriptors a PE: its output pipes, its
 * lifeline and libpmix's connection to it. */
#define FDS_PER_PE 4

/* The limit on open files as the user set it, given back to every PE. */
static struct rlimit user_nofile;
static int nofile_raised;

/* A soft limit on open files too low for npes PEs (1024 is a common
 * default, which about 250 PEs reach) is raised for oshrun, up to the hard
 * limit; the PEs get the user's limit back before exec. */
static void raise_nofile(int npes)
{
    rlim_t want = (rlim_t)npes * FDS_PER_PE + 64;
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    user_nofile = rl;
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want)
        return;
    rl.rlim_cur =
        rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
    nofile_raised = setrlimit(RLIMIT_NOFILE, &rl) == 0;
}

/* Resolves the program as execvp would, before any fork, so that a typo is
 * reported once and clearly. */
static char *find_program(const char *prog)
{
    const char *path = getenv("PATH");
    char buf[4096];

    if (strchr(prog, '/'))
        return access(prog, X_OK) == 0 ? strdup(prog) : NULL;
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t n = strcspn(p, ":");
        struct stat st;

        snprintf(buf, sizeof(buf), "%.*s%s%s", (int)n, n ? p : ".", "/", prog);
        if (access(buf, X_OK) == 0 && stat(buf, &st) == 0 &&
            S_ISREG(st.st_mode))
            return strdup(buf);
        p += n + (p[n] == ':');
    }
    return NULL;
}

static _Noreturn void child_fail(const char *what)
{
    const char *e = strerror(errno);
    struct iovec v[] = {{"oshrun: cannot ", 15},
                        {(void *)what, strlen(what)},
                        {": ", 2},
                        {(void *)e, strlen(e)},
                        {"\n", 1}};

    writev(2, v, 5);
    _exit(127);
}

/* In the child, after setpgid: ties the PE's process group to oshrun's
 * life (see the top of this file). life[1] is closed here so that only
 * oshrun holds a write end; a hang-up already there means that oshrun
 * died before the lifeline was armed, and so does a parent that is no
 * longer oshrun. Async-signal-safe. */
static void tie_to_launcher(pid_t launcher, const int life[2])
{
    struct pollfd p = {life[0], POLLIN, 0};

    close(life[1]);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
        child_fail("set the parent-death signal");
    if (fcntl(life[0], F_SETFD, 0) != 0 ||
        fcntl(life[0], F_SETOWN, -getpid()) != 0 ||
        fcntl(life[0], F_SETSIG, SIGKILL) != 0 ||
        fcntl(life[0], F_SETFL, O_ASYNC | O_NONBLOCK) != 0)
        child_fail("arm the lifeline to oshrun");
    if (getppid() != launcher || poll(&p, 1, 0) != 0)
        _exit(127); /* oshrun is gone: nobody to report to */
}

/* In the child: only async-signal-safe calls until exec. */
static _Noreturn void exec_pe(const char *path, char **argv, char **env, int in,
                              int out, int err, pid_t launcher,
                              const int life[2])
{
    sigset_t none;

    setpgid(0, 0);
    tie_to_launcher(launcher, life);
    if (nofile_raised)
        setrlimit(RLIMIT_NOFILE, &user_nofile);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* A PE starts with default dispositions even when oshrun was started
     * with some signals ignored (as a shell does for background jobs). */
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    execve(path, argv, env);
    {
        const char *e = strerror(errno);
        struct iovec v[] = {{"oshrun: cannot execute ", 23},
                            {(void *)path, strlen(path)},
                            {": ", 2},
                            {(void *)e, strlen(e)},
                            {"\n", 1}};

        writev(2, v, 5);
    }
    _exit(127);
}

static void close_all(int *fds, int n)
{
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/* The PE's pipes (see the top of this file): fds[0..1] its stdout,
 * fds[2..3] its stderr, fds[4..5] its lifeline, fds[6..7] its stdin (only
 * fds[6] /dev/null, fds[7] -1 for the PEs after 0). */
static int make_pipes(int rank, int fds[8], char *why, size_t why_len)
{
    int e;

    for (int i = 0; i < 8; i++)
        fds[i] = -1;
    if (pipe2(fds, O_CLOEXEC) == 0 && pipe2(fds + 2, O_CLOEXEC) == 0 &&
        pipe2(fds + 4, O_CLOEXEC) == 0) {
        if (rank == 0 && pipe2(fds + 6, O_CLOEXEC) == 0)
            return 0;
        if (rank != 0 &&
            (fds[6] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
            return 0;
    }
    e = errno;
    close_all(fds, 8);
    if (e == EMFILE) {
        struct rlimit rl;

        getrlimit(RLIMIT_NOFILE, &rl);
        snprintf(why, why_len,
                 "cannot create its pipes: %s (oshrun holds about %d "
                 "descriptors a PE, and its limit on open files is %lld%s)",
                 strerror(e), FDS_PER_PE, (long long)rl.rlim_cur,
                 rl.rlim_cur == rl.rlim_max ? ", the hard limit, ulimit -Hn"
                                            : ", ulimit -n");
    } else {
        snprintf(why, why_len, "cannot create its pipes: %s", strerror(e));
    }
    return -1;
}

/* 0 when PE rank runs, 1 when a signal asked oshrun to stop first, -1 with
 * why filled in when it cannot be started. */
static int spawn_one(oshrun_job_t *job, int rank, const char *path, char *why,
                     size_t why_len)
{
    int fds[8], *out = fds, *err = fds + 2, *life = fds + 4, *in = fds + 6;
    pid_t pid, self = getpid();
    char **env, hint[256];
    int ret = build_env(job, rank, &env, why, why_len);

    if (ret)
        return ret;
    if (make_pipes(rank, fds, why, why_len)) {
        env_free(env);
        return -1;
    }
    pid = fork();
    if (pid == 0)
        exec_pe(path, job->opts->argv, env, in[0], out[1], err[1], self, life);
    if (pid < 0) {
        int e = errno;

        oshrun_limits_fork_hint(hint, sizeof(hint));
        snprintf(why, why_len, "cannot fork: %s%s", strerror(e), hint);
        env_free(env);
        close_all(fds, 8);
        return -1;
    }
    env_free(env);
    close(out[1]);
    close(err[1]);
    close(in[0]);
    close(life[0]);
    /* Kept open until oshrun ends (closed by job_free, or by the kernel). */
    job->pes[rank].lifeline = life[1];
    setpgid(pid, pid);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    fcntl(err[0], F_SETFL, O_NONBLOCK);
    /* Read by the PMIx listener thread as well (oshrun_peer.c). */
    __atomic_store_n(&job->pes[rank].pid, pid, __ATOMIC_RELEASE);
    oshrun_stream_init(&job->pes[rank].out, out[0], 1);
    oshrun_stream_init(&job->pes[rank].err, err[0], 2);
    if (rank == 0) {
        job->stdin_fd = in[1];
        fcntl(in[1], F_SETFL, O_NONBLOCK);
    }
    return 0;
}

int oshrun_spawn(oshrun_job_t *job)
{
    char *path = find_program(job->opts->argv[0]), why[1024];
    int r, ret = 0;

    if (!path) {
        oshrun_msg("cannot run '%s': not found or not executable",
                   job->opts->argv[0]);
        return -1;
    }
    oshrun_oom_baseline();
    raise_nofile(job->opts->npes);
    /* A signal that asks oshrun to stop waits, blocked, for the main loop;
     * the loop then stops the PEs started so far as it stops a running
     * job, and says why. */
    for (r = 0; r < job->opts->npes && !ret && !oshrun_stop_pending(); r++)
        ret = spawn_one(job, r, path, why, sizeof(why));
    free(path);
    if (ret < 0) {
        r--; /* the PE that failed */
        if (r > 0)
            oshrun_msg("cannot start PE %d: %s; stopping the %d PE%s "
                       "started",
                       r, why, r, r > 1 ? "s" : "");
        else
            oshrun_msg("cannot start PE 0: %s", why);
        /* What the PEs started so far was given no job to finish: the
         * loop kills them at once and exits with status 1. */
        job->ending = 1;
        job->status = 1;
        job->kill_at = oshrun_now();
    } else if (job->pes[0].pid == 0 && (r = oshrun_stop_pending()) != 0) {
        /* No PE to pass it to: the loop would end at once, without
         * reading it. */
        oshrun_msg("stopped by signal %d (SIG%s) before any PE started "
                   "(status %d)",
                   r, oshrun_sig_name(r), 128 + r);
        job->ending = 1;
        job->status = 128 + r;
    }
    return 0;
}
