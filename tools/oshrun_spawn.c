/*
 * Forking the PEs: each gets oshrun's environment plus the -x variables and
 * what PMIx needs to connect back, pipes for its output (assembled into
 * lines by the main loop), and stdin from oshrun for PE 0 only.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int build_env(oshrun_job_t *job, int rank, char ***out)
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
    if (!ret)
        ret = oshrun_server_setup_pe(job, rank, &e.v);
    if (ret) {
        env_free(e.v);
        return -1;
    }
    *out = e.v;
    return 0;
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

/* In the child: only async-signal-safe calls until exec. */
static _Noreturn void exec_pe(const char *path, char **argv, char **env, int in,
                              int out, int err)
{
    sigset_t none;

    setpgid(0, 0);
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

static int spawn_one(oshrun_job_t *job, int rank, const char *path)
{
    int out[2], err[2], in[2] = {-1, -1};
    char **env;
    pid_t pid;

    if (build_env(job, rank, &env))
        return -1;
    if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) ||
        (rank == 0 ? pipe2(in, O_CLOEXEC)
                   : (in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)) {
        oshrun_msg("cannot create pipes: %s", strerror(errno));
        env_free(env);
        return -1;
    }
    pid = fork();
    if (pid == 0)
        exec_pe(path, job->opts->argv, env, in[0], out[1], err[1]);
    env_free(env);
    close(out[1]);
    close(err[1]);
    close(in[0]);
    if (pid < 0) {
        oshrun_msg("cannot fork PE %d: %s", rank, strerror(errno));
        close(out[0]);
        close(err[0]);
        if (in[1] >= 0)
            close(in[1]);
        return -1;
    }
    setpgid(pid, pid);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    fcntl(err[0], F_SETFL, O_NONBLOCK);
    job->pes[rank].pid = pid;
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
    char *path = find_program(job->opts->argv[0]);
    int ret = 0;

    if (!path) {
        oshrun_msg("cannot run '%s': not found or not executable",
                   job->opts->argv[0]);
        return -1;
    }
    for (int r = 0; r < job->opts->npes && !ret; r++)
        ret = spawn_one(job, r, path);
    free(path);
    return ret;
}
