/* Names of POSIX heap objects in /dev/shm, and their removal when a PE dies
 * (see shm_names.h). */
#define _GNU_SOURCE
#include "config.h"

#include "services/shm_names.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "services/error.h"

/* Where glibc's shm_open keeps its names on Linux; hold() checks each name
 * against it, as the handlers remove names by path. */
#define SHM_DIR "/dev/shm"

/* A heap and a data segment at most; spare slots cost nothing. */
#define MAX_NAMES 4

/* A name is left to the sweep only long after the start-up that made it:
 * then even a job in another pid namespace (whose pids mean nothing here)
 * no longer needs it. */
#define STALE_AGE_S 600

/* What the handler may read at any moment: a slot's path is written before
 * its flag is raised, and never changed while the flag is up. */
static struct {
    char path[MAX_NAMES][128]; /* SHM_DIR "/weft-..." */
    volatile sig_atomic_t used[MAX_NAMES];
    pid_t owner[MAX_NAMES]; /* a forked child must not remove these */
    char prefix[5 + SHMI_SHM_JOB_MAX + 1]; /* "weft-<job>-": the job's */
    volatile sig_atomic_t prefix_len;
} names;

/* Termination signals a launcher sends before SIGKILL, then faults. Faults
 * are hooked only under the default action: a program's own fault handler
 * may recover, and then the names are still needed. */
static const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGSEGV,
                           SIGBUS,  SIGILL, SIGFPE, SIGABRT};
#define N_SIGS      (sizeof(sigs) / sizeof(sigs[0]))
#define FIRST_FAULT 3

/* Set (before the sweep) once this process removes the job's names because
 * the job ends. A name that another thread creates after that (a PE's
 * exit() runs while its main thread is still in shmem_init) is removed by
 * its creator: hold() raises the slot's flag, then reads this one; the
 * ending path sets this one, then reads the flags; with sequentially
 * consistent accesses on both sides, one of them sees the other. */
static volatile sig_atomic_t job_ending;

static struct sigaction old_act[N_SIGS];
static int hooked[N_SIGS];
static int n_held;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Digits from *p on, as a number; NULL unless at least one digit and no
 * overflow. Async-signal-safe, unlike strtol (locale). */
static const char *parse_num(const char *p, long *v)
{
    long n = 0;
    const char *s = p;

    for (; *p >= '0' && *p <= '9'; p++) {
        if (n > (0x7fffffffL - 9) / 10)
            return NULL;
        n = n * 10 + (*p - '0');
    }
    *v = n;
    return p == s ? NULL : p;
}

static int is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
}

void shmi_shm_name_job(const char *jobid, char job[SHMI_SHM_JOB_MAX])
{
    size_t j = 0;

    for (const char *p = jobid; *p && j + 1 < SHMI_SHM_JOB_MAX; p++)
        if (is_alnum(*p))
            job[j++] = *p;
    job[j] = '\0';
}

/* "weft-<job>-" into prefix (room for 5 + SHMI_SHM_JOB_MAX + 1 bytes), by
 * hand: snprintf is not async-signal-safe. Returns its length. */
static size_t make_prefix(const char *job, char *prefix)
{
    size_t n = 5;

    memcpy(prefix, "weft-", 5);
    for (; *job && n < 5 + SHMI_SHM_JOB_MAX - 1; job++)
        prefix[n++] = *job;
    prefix[n++] = '-';
    prefix[n] = '\0';
    return n;
}

long shmi_shm_name_pid(const char *name, size_t *job_len)
{
    const char *p = name + 5, *job = name + 5;
    long rank, pid;

    if (strncmp(name, "weft-", 5) != 0)
        return 0;
    while (is_alnum(*p))
        p++;
    if (*p != '-')
        return 0;
    *job_len = (size_t)(p - job);
    p = parse_num(p + 1, &rank);
    if (!p || *p != '-')
        return 0;
    p = parse_num(p + 1, &pid);
    if (!p || *p != '-' || p[1] == '\0' || pid <= 0)
        return 0;
    return pid;
}

/* Gone for good: no process has that pid. (A zombie still has it; the
 * launchers that end jobs have reaped the dead PE when they act.) */
static int pid_gone(long pid)
{
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Removes dir's entry name if it is a file of this user. */
static void unlink_mine(int dir, const char *name)
{
    struct stat st;

    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISREG(st.st_mode) && st.st_uid == geteuid())
        unlinkat(dir, name, 0);
}

/* The kernel's record of a directory entry for getdents64. */
struct dirent64_rec {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

/* The names of the job with this prefix, other than this process's own:
 * all of them, or only those whose creator is gone (a peer killed before it
 * could remove its own). Only system calls: runs in signal handlers. */
static void unlink_job_names(const char *prefix, size_t plen, int all)
{
    char buf[2048] __attribute__((aligned(8)));
    size_t job_len;
    long n, pid;
    int dir;

    if (plen == 0)
        return;
    dir = open(SHM_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return;
    while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
        for (long off = 0; off < n;) {
            struct dirent64_rec *e = (struct dirent64_rec *)(buf + off);

            off += e->reclen;
            if (strncmp(e->name, prefix, plen) != 0)
                continue;
            pid = shmi_shm_name_pid(e->name, &job_len);
            if (pid && pid != (long)getpid() && (all || pid_gone(pid)))
                unlink_mine(dir, e->name);
        }
    }
    close(dir);
}

static void unlink_own(void)
{
    for (int i = 0; i < MAX_NAMES; i++)
        if (__atomic_load_n(&names.used[i], __ATOMIC_SEQ_CST) &&
            names.owner[i] == getpid())
            unlink(names.path[i]);
}

static int sig_index(int sig)
{
    for (size_t i = 0; i < N_SIGS; i++)
        if (sigs[i] == sig)
            return (int)i;
    return -1;
}

/* Removes the names, then does what the signal would have done without
 * this handler: the program's handler, or the default action (restored and
 * raised again: delivered, and fatal, once this handler returns). */
static void on_signal(int sig, siginfo_t *info, void *uc)
{
    int saved = errno, i = sig_index(sig);
    struct sigaction *old;

    unlink_own();
    unlink_job_names(names.prefix, (size_t)names.prefix_len, 0);
    errno = saved;
    if (i < 0)
        return;
    old = &old_act[i];
    if (old->sa_flags & SA_RESETHAND) {
        struct sigaction dfl = {.sa_handler = SIG_DFL};

        sigaction(sig, &dfl, NULL);
    }
    if (old->sa_flags & SA_SIGINFO) {
        old->sa_sigaction(sig, info, uc);
    } else if (old->sa_handler == SIG_DFL) {
        sigaction(sig, old, NULL);
        raise(sig);
    } else if (old->sa_handler != SIG_IGN) {
        old->sa_handler(sig);
    }
    errno = saved;
}

static int is_ours(const struct sigaction *a)
{
    return (a->sa_flags & SA_SIGINFO) && a->sa_sigaction == on_signal;
}

/* Hooks each signal whose action allows it; keeps the program's mask and
 * SA_ONSTACK, and restarts interrupted calls as if nothing were there. */
static void hook_signals(void)
{
    for (size_t i = 0; i < N_SIGS; i++) {
        struct sigaction cur, act;
        int plain;

        if (hooked[i] || sigaction(sigs[i], NULL, &cur) != 0 || is_ours(&cur))
            continue;
        plain = !(cur.sa_flags & SA_SIGINFO);
        if ((plain && cur.sa_handler == SIG_IGN) ||
            (i >= FIRST_FAULT && !(plain && cur.sa_handler == SIG_DFL)))
            continue;
        memset(&act, 0, sizeof(act));
        act.sa_sigaction = on_signal;
        act.sa_mask = cur.sa_mask;
        act.sa_flags = SA_SIGINFO | SA_RESTART | (cur.sa_flags & SA_ONSTACK);
        old_act[i] = cur;
        if (sigaction(sigs[i], &act, NULL) == 0)
            hooked[i] = 1;
    }
}

/* Gives back each hooked signal, unless the program has set its own action
 * meanwhile (that one stays). */
static void unhook_signals(void)
{
    for (size_t i = 0; i < N_SIGS; i++) {
        struct sigaction cur;

        if (!hooked[i])
            continue;
        if (sigaction(sigs[i], NULL, &cur) == 0 && is_ours(&cur))
            sigaction(sigs[i], &old_act[i], NULL);
        hooked[i] = 0;
    }
}

/* The job ends: every name of it on this node goes. */
static void abandon_all(void)
{
    int mine = 0;

    for (int i = 0; i < MAX_NAMES; i++)
        mine |= names.used[i] && names.owner[i] == getpid();
    if (!mine)
        return; /* a forked child: the names are its parent's business */
    __atomic_store_n(&job_ending, 1, __ATOMIC_SEQ_CST);
    unlink_own();
    unlink_job_names(names.prefix, (size_t)names.prefix_len, 1);
}

/* exit() during start-up ends the job (the bootstrap or oshrun sees to it)
 * as the fatal path does; after either, srun kills the other PEs outright. */
static void at_exit(void)
{
    abandon_all();
}

static void (*prev_abort_hook)(int status, const char *msg);

/* The fatal path's hook while a name exists: the names, then the job. */
static void abort_hook(int status, const char *msg)
{
    abandon_all();
    if (prev_abort_hook)
        prev_abort_hook(status, msg);
}

static void hook_abort(void)
{
    if (shmi_abort_hook == abort_hook)
        return;
    prev_abort_hook = shmi_abort_hook;
    shmi_abort_hook = abort_hook;
}

static void unhook_abort(void)
{
    if (shmi_abort_hook == abort_hook)
        shmi_abort_hook = prev_abort_hook;
    prev_abort_hook = NULL;
}

void shmi_shm_names_abandon(const char *jobid)
{
    char job[SHMI_SHM_JOB_MAX], prefix[5 + SHMI_SHM_JOB_MAX + 1];

    __atomic_store_n(&job_ending, 1, __ATOMIC_SEQ_CST);
    unlink_own();
    shmi_shm_name_job(jobid ? jobid : "", job);
    if (job[0]) /* without a job id, no name tells whose it is */
        unlink_job_names(prefix, make_prefix(job, prefix), 1);
}

/* True when SHM_DIR/name is the object open as fd: the handlers then remove
 * the right file by path, without shm_unlink (not async-signal-safe). */
static int same_object(const char *path, int fd)
{
    struct stat a, b;

    return stat(path, &a) == 0 && fstat(fd, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

void shmi_shm_names_hold(const char *name, const char *job, int fd)
{
    static int exit_hooked;
    char path[sizeof(names.path[0])];
    int slot = -1;

    if ((size_t)snprintf(path, sizeof(path), SHM_DIR "%s", name) >=
            sizeof(path) ||
        !same_object(path, fd)) {
        SHMI_LOG(SHMI_LOG_DEBUG, "heap",
                 "%s is not in " SHM_DIR ": it is not removed if this PE "
                 "dies during start-up",
                 name);
        return;
    }
    pthread_mutex_lock(&lock);
    for (int i = 0; i < MAX_NAMES && slot < 0; i++)
        if (!names.used[i])
            slot = i;
    if (slot >= 0) {
        memcpy(names.path[slot], path, sizeof(path));
        names.owner[slot] = getpid();
        /* Without a job id (a test without a launcher) no name tells whose
         * it is: then only this process's own names are removed. */
        if (names.prefix_len == 0 && job[0])
            names.prefix_len = (sig_atomic_t)make_prefix(job, names.prefix);
        __atomic_store_n(&names.used[slot], 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&job_ending, __ATOMIC_SEQ_CST))
            unlink(path); /* too late: the job ends (see job_ending) */
        if (n_held++ == 0) {
            hook_signals();
            hook_abort();
        }
        if (!exit_hooked)
            exit_hooked = atexit(at_exit) == 0;
    }
    pthread_mutex_unlock(&lock);
    if (slot < 0)
        SHMI_LOG(SHMI_LOG_DEBUG, "heap", "no slot left to guard %s", name);
}

void shmi_shm_names_drop(const char *name)
{
    char path[sizeof(names.path[0])];

    snprintf(path, sizeof(path), SHM_DIR "%s", name);
    pthread_mutex_lock(&lock);
    for (int i = 0; i < MAX_NAMES; i++) {
        if (!names.used[i] || strcmp(names.path[i], path) != 0)
            continue;
        names.used[i] = 0;
        if (--n_held == 0) {
            unhook_signals();
            unhook_abort();
        }
        break;
    }
    pthread_mutex_unlock(&lock);
}

/* One entry of the sweep: a Weft name of this user, creator gone, old. */
static void sweep_one(int dir, const char *name, time_t now)
{
    struct stat st;
    size_t job_len;
    long pid = shmi_shm_name_pid(name, &job_len);

    if (!pid || pid == (long)getpid() || !pid_gone(pid))
        return;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        now - st.st_mtime < STALE_AGE_S)
        return;
    if (unlinkat(dir, name, 0) == 0)
        SHMI_LOG(SHMI_LOG_DEBUG, "heap",
                 "removed " SHM_DIR "/%s: left by process %ld, which is gone",
                 name, pid);
}

void shmi_shm_names_sweep(void)
{
    DIR *d = opendir(SHM_DIR);
    struct dirent *e;
    time_t now = time(NULL);

    if (!d)
        return;
    while ((e = readdir(d)) != NULL)
        sweep_one(dirfd(d), e->d_name, now);
    closedir(d);
}
