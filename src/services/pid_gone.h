/*
 * Whether a process id still names a live process: the one test of the
 * clean-up sweeps that remove what dead processes left in /dev/shm and
 * TMPDIR (tools/oshrun_sweep.c, transports/ofi/ofi_shm_region.c). A
 * service with no state, so inline: oshrun does not link the library.
 */
#ifndef SHMI_PID_GONE_H
#define SHMI_PID_GONE_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* 1 when no process has pid, or only a zombie (dead, waiting to be reaped
 * by a parent that may take its time); 0 when it lives or cannot be told
 * (a process of another user answers EPERM: it lives). */
static inline int shmi_pid_gone(long pid)
{
    char path[64], buf[512], *p;
    ssize_t n;
    int fd;

    if (kill((pid_t)pid, 0) != 0)
        return errno == ESRCH;
    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    p = strrchr(buf, ')'); /* the state follows the command name */
    return p && p[1] == ' ' && p[2] == 'Z';
}

#endif /* SHMI_PID_GONE_H */
