/*
 * Who may talk to oshrun's PMIx server: only the processes of the job (the
 * PEs that oshrun forked and what they started).
 *
 * libpmix 4.2 listens on loopback TCP only, and its "native" security
 * module believes the uid and gid a TCP client writes into its handshake,
 * so any local process that knows the namespace (oshrun.<pid>) and the port
 * could join the job as one of its ranks, read what the PEs published, take
 * part in its fences and abort it. The kernel knows better: for the client
 * end of a loopback connection, /proc/net/tcp gives the socket's owner and
 * inode, and the socket is the job's if that inode is among the
 * descriptors (/proc/<pid>/fd) of a process below oshrun in the process
 * tree. A connection that fails the check is closed before libpmix reads a
 * byte of it (docs/security.md says what this guarantees and what not).
 *
 * Each PE connects once, roughly in the order it was started, and at the
 * same descriptor number as the PE before it (the same program runs the
 * same start-up). So the PEs that have not connected yet are looked at
 * first, from the one after the last admitted, at that descriptor number
 * before all of theirs: a connection then costs a few /proc lookups
 * whatever the number of PEs, where the walk of the whole tree costs a
 * scan of every process's descriptors. The walk remains for what the
 * shortcut does not find (a process that a PE started, an orphan).
 *
 * The check sits in accept(): libpmix's listener thread calls accept()
 * through the dynamic linker, and the definitions below, in the oshrun
 * executable, come before the C library's. accept4() is covered as well so
 * that a libpmix that switched to it would still be checked.
 */
#define _GNU_SOURCE
#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tools/oshrun.h"

/* Processes of the job looked at per connection (PEs and what they
 * started), far more than one node runs; a connection from beyond them
 * is refused. */
#define OSHRUN_PEER_MAX_PROCS 65536

/* Refused connections reported on stderr; more are only counted, so that a
 * process that keeps connecting cannot flood the job's output. */
#define REPORT_MAX 5

/* Set once, before libpmix starts listening; read by its listener. */
static oshrun_job_t *peer_job;
static int refused;  /* connections refused so far (atomic) */
static int admitted; /* connections let through (atomic) */

/* The listener's memory of the PEs admitted so far (listener thread only):
 * joined[r] once PE r's own socket was found, the rank after the last one,
 * and the descriptor number it held the socket at (-1: none yet). */
static unsigned char *joined;
static int next_rank;
static int fd_hint = -1;

void oshrun_peer_watch(oshrun_job_t *job)
{
    /* Without it every connection takes the walk of the whole tree. */
    joined = calloc((size_t)job->opts->npes, 1);
    __atomic_store_n(&peer_job, job, __ATOMIC_RELEASE);
}

/* 1 when descriptor fd of process pid is socket inode. */
static int holds_socket_at(pid_t pid, int fd, unsigned long inode)
{
    char path[64], link[64], want[64];
    ssize_t n;

    snprintf(path, sizeof(path), "/proc/%ld/fd/%d", (long)pid, fd);
    snprintf(want, sizeof(want), "socket:[%lu]", inode);
    n = readlink(path, link, sizeof(link) - 1);
    if (n <= 0)
        return 0;
    link[n] = '\0';
    return strcmp(link, want) == 0;
}

/* The descriptor number at which process pid holds socket inode, or -1. */
static int socket_fd_of(pid_t pid, unsigned long inode)
{
    char dir[64];
    struct dirent *e;
    DIR *d;
    int fd = -1;

    snprintf(dir, sizeof(dir), "/proc/%ld/fd", (long)pid);
    d = opendir(dir);
    while (d && fd < 0 && (e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' &&
            holds_socket_at(pid, atoi(e->d_name), inode))
            fd = atoi(e->d_name);
    if (d)
        closedir(d);
    return fd;
}

/* The pid's parent from /proc/PID/stat, or -1 when it is gone. */
static long parent_of(pid_t pid)
{
    char path[64], buf[512], *p;
    long ppid = -1;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    f = fopen(path, "r");
    if (!f)
        return -1;
    /* "pid (comm) state ppid ...": comm may hold spaces and parentheses */
    if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) != NULL)
        sscanf(p + 1, " %*c %ld", &ppid);
    fclose(f);
    return ppid;
}

/* A process found below oshrun, and the parent it was found under. */
typedef struct process {
    pid_t pid, parent;
} process_t;

/* add_children() for a kernel without the children files. */
static int scan_children(pid_t pid, process_t *kids, int n, int cap)
{
    DIR *d = opendir("/proc");
    struct dirent *e;

    while (d && n < cap && (e = readdir(d)) != NULL) {
        long c = strtol(e->d_name, NULL, 10);

        if (c > 0 && parent_of((pid_t)c) == (long)pid)
            kids[n++] = (process_t){(pid_t)c, pid};
    }
    if (d)
        closedir(d);
    return n;
}

/* Appends pid's children to kids (at most cap in all), from every thread's
 * /proc/PID/task/TID/children, or from every process's parent where the
 * kernel has no such files (CONFIG_PROC_CHILDREN). Returns the new count. */
static int add_children(pid_t pid, process_t *kids, int n, int cap)
{
    char path[96];
    struct dirent *e;
    long c;
    DIR *d;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
    d = opendir(path);
    while (d && n < cap && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "/proc/%ld/task/%.20s/children", (long)pid,
                 e->d_name);
        f = fopen(path, "r");
        if (!f && errno == ENOENT) {
            closedir(d);
            return scan_children(pid, kids, n, cap);
        }
        while (f && n < cap && fscanf(f, "%ld", &c) == 1)
            kids[n++] = (process_t){(pid_t)c, pid};
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return n;
}

/* 1 when a process that oshrun started holds socket inode: a PE, one that
 * a PE started (a tool in front of the program, such as perf record or
 * /usr/bin/time, forks the real one), or an orphan of those that came back
 * to oshrun, its subreaper. The tree is walked from oshrun down. */
static int job_holds(unsigned long inode)
{
    static process_t kids[OSHRUN_PEER_MAX_PROCS]; /* listener thread only */
    int n = add_children(getpid(), kids, 0, OSHRUN_PEER_MAX_PROCS);

    for (int i = 0; i < n; i++) {
        /* Still the child it was listed as: its pid was not reused by a
         * process outside the job between the listing and now. */
        if (socket_fd_of(kids[i].pid, inode) >= 0 &&
            parent_of(kids[i].pid) == (long)kids[i].parent)
            return 1;
        n = add_children(kids[i].pid, kids, n, OSHRUN_PEER_MAX_PROCS);
    }
    return 0;
}

/* 1 when a PE that has not connected yet, one oshrun forked itself (its
 * parent, checked after the socket as job_holds() does, is still oshrun),
 * holds socket inode: at the descriptor number of the last PE admitted in
 * the first round, at any in the second. Each PE is admitted once this
 * way; a second connection from it takes the walk. */
static int new_pe_holds(const oshrun_job_t *job, unsigned long inode)
{
    int npes = job->opts->npes;

    for (int round = fd_hint < 0; joined && round < 2; round++)
        for (int k = 0; k < npes; k++) {
            int r = (next_rank + k) % npes, fd = fd_hint;
            pid_t pid = __atomic_load_n(&job->pes[r].pid, __ATOMIC_ACQUIRE);

            if (joined[r] || pid <= 0)
                continue;
            if (round == 0 ? !holds_socket_at(pid, fd, inode)
                           : (fd = socket_fd_of(pid, inode)) < 0)
                continue;
            if (parent_of(pid) != (long)getpid())
                return 0; /* reaped and reused: the walk decides */
            joined[r] = 1;
            next_rank = (r + 1) % npes;
            fd_hint = fd;
            return 1;
        }
    return 0;
}

/* 1 when the client end of connection sd is held by one of the job's
 * processes; *uid is the owner of that end (-1 when it could not be
 * found). */
static int peer_in_job(const oshrun_job_t *job, int sd, long *uid)
{
    unsigned long inode;
    unsigned u;

    *uid = -1;
    if (oshrun_sock_peer(sd, &u, &inode) != 0)
        return 0;
    *uid = (long)u;
    return u == (unsigned)geteuid() &&
           (new_pe_holds(job, inode) || job_holds(inode));
}

static void report(int sd, long uid)
{
    struct sockaddr_storage peer;
    socklen_t pl = sizeof(peer);
    unsigned port = 0;
    int nth = __atomic_add_fetch(&refused, 1, __ATOMIC_RELAXED);

    if (nth > REPORT_MAX)
        return;
    if (getpeername(sd, (struct sockaddr *)&peer, &pl) == 0)
        port = peer.ss_family == AF_INET6
                   ? ntohs(((struct sockaddr_in6 *)&peer)->sin6_port)
                   : ntohs(((struct sockaddr_in *)&peer)->sin_port);
    oshrun_msg("refused a connection to the job's PMIx server from local "
               "port %u (uid %ld): not one of the job's PEs%s",
               port, uid,
               nth == REPORT_MAX ? " (further ones are not reported)" : "");
}

/* Accepts like accept4(2), then closes any connection that is not a PE's
 * and says ECONNABORTED, which libpmix's listener takes as "try again". */
static int checked_accept(int fd, struct sockaddr *addr, socklen_t *len,
                          int flags)
{
    int sd = (int)syscall(SYS_accept4, fd, addr, len, flags);
    oshrun_job_t *job = __atomic_load_n(&peer_job, __ATOMIC_ACQUIRE);
    long uid = -1;

    if (sd < 0)
        return sd;
    /* Before the job is known nobody may connect: no PE exists yet. */
    if (job && peer_in_job(job, sd, &uid)) {
        __atomic_add_fetch(&admitted, 1, __ATOMIC_RELAXED);
        return sd;
    }
    report(sd, uid);
    close(sd);
    errno = ECONNABORTED;
    return -1;
}

int oshrun_peer_admitted(void)
{
    return __atomic_load_n(&admitted, __ATOMIC_RELAXED);
}

/* Exported whatever the build's default visibility, or libpmix would reach
 * the C library's accept() unchecked. */
__attribute__((visibility("default"))) int accept(int fd, struct sockaddr *addr,
                                                  socklen_t *len)
{
    return checked_accept(fd, addr, len, 0);
}

__attribute__((visibility("default"))) int
accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
    return checked_accept(fd, addr, len, flags);
}
