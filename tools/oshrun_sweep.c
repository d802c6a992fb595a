/*
 * What jobs leave behind, and its removal.
 *
 * A PE killed outright (SIGKILL, the OOM killer, or the lifeline of
 * oshrun_spawn.c when oshrun itself was killed) cannot remove what it made
 * in /dev/shm: the regions of libfabric's shm provider and Weft's posix heap
 * objects while their names exist (src/services/shm_names.h). A killed
 * oshrun leaves its private directory $TMPDIR/oshrun.<pid>.XXXXXX. So:
 *  - at the end of a job, oshrun removes the /dev/shm entries named after
 *    its own PEs, which it has reaped (oshrun_shm_cleanup);
 *  - at the start of a job, oshrun removes what dead jobs of the same user
 *    left (oshrun_sweep_stale): those directories whose oshrun is gone and
 *    whose lock (oshrun_tmp.c) nobody holds, shm regions whose creator is
 *    gone, and heap objects of oshrun jobs whose creator and oshrun are
 *    both gone. Only this user's regular files and directories are
 *    touched, found without following links.
 * A pid is "gone" when no process of this pid namespace has it; a job in
 * another pid namespace that shares /dev/shm and the user id is not told
 * apart (docs/security.md, "Launcher death and leftovers").
 */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "services/pid_gone.h"
#include "services/shm_region_name.h"
#include "tools/oshrun.h"

#define SHM_DIR "/dev/shm"

/* The pid in the name of a Weft heap object of SHMEM_HEAP_OBJECT=posix
 * ("weft-<job>-<rank>-<pid>-<tag>", src/core/heap/shm_object.c; <job> has
 * no '-'), else 0; *launcher is the pid of the job's oshrun when <job> is
 * "oshrun<pid>" (the namespace "oshrun.<pid>" without its '.'), else 0.
 * A PE killed before its peers mapped it has not unlinked it yet. */
static long weft_object_pid(const char *name, long *launcher)
{
    const char *p = name, *job = name + 5;
    long rank, pid;

    *launcher = 0;
    if (strncmp(p, "weft-", 5) != 0 || !(p = strchr(job, '-')))
        return 0;
    if (strncmp(job, "oshrun", 6) != 0 ||
        shmi_name_digits(job + 6, launcher) != p)
        *launcher = 0;
    if (!(p = shmi_name_digits(p + 1, &rank)) || *p != '-' ||
        !(p = shmi_name_digits(p + 1, &pid)) || *p != '-')
        return 0;
    return pid;
}

/* The pid that made /dev/shm/name, when Weft or the shm provider made it;
 * *launcher as above for a heap object, -1 for a region. */
static long shm_entry_pid(const char *name, long *launcher)
{
    long uid, pid = shmi_shm_region_pid(name, &uid);

    /* The provider's own names carry the uid: only this user's count. */
    if (pid && (uid < 0 || (uid_t)uid == geteuid())) {
        *launcher = -1;
        return pid;
    }
    return weft_object_pid(name, launcher);
}

/* Only PEs that oshrun forked and reaped: their pid names nothing alive of
 * theirs any more, and no other process's regions are touched. */
static int dead_pe(const oshrun_job_t *job, long pid, long launcher)
{
    (void)launcher;
    for (int r = 0; r < job->opts->npes; r++)
        if (job->pes[r].pid == (pid_t)pid && job->pes[r].reaped)
            return 1;
    return 0;
}

/* Removes dir/name if it is a regular file of this user. */
static void unlink_mine(int dir, const char *name, long pid)
{
    struct stat st;

    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(st.st_mode) || st.st_uid != geteuid())
        return;
    if (unlinkat(dir, name, 0) != 0 && errno != ENOENT)
        oshrun_msg("cannot remove " SHM_DIR "/%s left by process %ld: %s", name,
                   pid, strerror(errno));
}

/* For every /dev/shm entry made by a process that gone() says is gone. */
static void shm_remove_if(const oshrun_job_t *job,
                          int (*gone)(const oshrun_job_t *, long, long))
{
    DIR *d = opendir(SHM_DIR);
    struct dirent *e;
    long launcher;

    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        long pid = shm_entry_pid(e->d_name, &launcher);

        if (pid && pid != (long)getpid() && gone(job, pid, launcher))
            unlink_mine(dirfd(d), e->d_name, pid);
    }
    closedir(d);
}

void oshrun_shm_cleanup(oshrun_job_t *job)
{
    shm_remove_if(job, dead_pe);
}

/* A region whose process is gone; a heap object only of an oshrun job
 * whose oshrun is gone too: the names of other launchers' jobs are left to
 * the PEs' own sweep (src/services/shm_names.h), which waits until no
 * start-up can need them. */
static int stale(const oshrun_job_t *job, long pid, long launcher)
{
    (void)job;
    if (!shmi_pid_gone(pid))
        return 0;
    return launcher == -1 || (launcher > 0 && launcher != (long)getpid() &&
                              shmi_pid_gone(launcher));
}

/* base/name, an "oshrun.<pid>.XXXXXX" directory of this user whose oshrun
 * is gone and whose lock is free (a live oshrun holds it, whatever its pid
 * namespace): removed with its content. */
static void tmp_remove_stale(int dir, const char *base, const char *name)
{
    const char *p;
    long pid;
    char path[4096];
    struct stat st;
    int fd;

    if (!(p = shmi_name_digits(name + 7, &pid)) || *p != '.' ||
        strlen(p) != 7 || !pid || !shmi_pid_gone(pid))
        return;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
        return;
    fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0 &&
        (size_t)snprintf(path, sizeof(path), "%s/%s", base, name) <
            sizeof(path))
        oshrun_remove_tree(path);
    close(fd);
}

static void tmp_sweep(void)
{
    /* Where this oshrun makes its own directory, so where earlier ones of
     * the same TMPDIR made theirs (/tmp for a TMPDIR too long). */
    const char *base = oshrun_tmp_base();
    struct dirent *e;
    DIR *d;

    d = opendir(base);
    if (!d)
        return;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, "oshrun.", 7) == 0)
            tmp_remove_stale(dirfd(d), base, e->d_name);
    closedir(d);
}

void oshrun_sweep_stale(oshrun_job_t *job)
{
    tmp_sweep();
    shm_remove_if(job, stale);
}
