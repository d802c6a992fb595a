/*
 * oshrun's private temporary directory (mode 0700): the PMIx server puts its
 * rendezvous files there; it is removed with everything in it at exit.
 * Also what killed PEs leave in /dev/shm (libfabric shm regions, Weft's
 * posix heap objects).
 */
#define _XOPEN_SOURCE 700
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/oshrun.h"

int oshrun_tmp_create(oshrun_job_t *job)
{
    const char *base = oshrun_tmp_base();
    char sub[300];

    snprintf(job->tmpdir, sizeof(job->tmpdir), "%s/oshrun.%ld.XXXXXX", base,
             (long)getpid());
    if (!mkdtemp(job->tmpdir)) {
        oshrun_msg("cannot create a temporary directory in %s: %s", base,
                   strerror(errno));
        job->tmpdir[0] = '\0';
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        snprintf(sub, sizeof(sub), "%s/%s", job->tmpdir, i ? "sys" : "srv");
        if (mkdir(sub, 0700) != 0) {
            oshrun_msg("cannot create %s: %s", sub, strerror(errno));
            return -1;
        }
    }
    return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag,
                      struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void oshrun_tmp_remove(oshrun_job_t *job)
{
    if (job->tmpdir[0])
        nftw(job->tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    job->tmpdir[0] = '\0';
}

/* The pid in a name of libfabric's shm provider (1.17 names its regions
 * "<pid>:<domain>:<endpoint>"), or 0 when the name is not of that form. */
static long shm_region_pid(const char *name)
{
    char *end;
    long pid;
    int colons = 0;

    if (name[0] < '1' || name[0] > '9')
        return 0;
    pid = strtol(name, &end, 10);
    if (*end != ':')
        return 0;
    for (const char *p = end; *p; p++) {
        if (*p == ':')
            colons++;
        else if (*p < '0' || *p > '9')
            return 0;
    }
    return colons == 2 && end[strlen(end) - 1] != ':' ? pid : 0;
}

/* The pid in the name of a Weft heap object of SHMEM_HEAP_OBJECT=posix
 * ("weft-<job>-<rank>-<pid>-<tag>", src/core/heap/shm_object.c), else 0.
 * A PE killed before its peers mapped it has not unlinked it yet. */
static long weft_object_pid(const char *name)
{
    const char *p = name;
    char *end;
    long pid;

    if (strncmp(p, "weft-", 5) != 0 || !(p = strchr(p + 5, '-')))
        return 0;
    strtol(p + 1, &end, 10); /* rank */
    if (end == p + 1 || *end != '-')
        return 0;
    pid = strtol(end + 1, &end, 10);
    return *end == '-' && pid > 0 ? pid : 0;
}

/* Only PEs that oshrun forked and reaped: their pid names nothing alive of
 * theirs any more, and no other process's regions are touched. */
static int dead_pe(const oshrun_job_t *job, long pid)
{
    for (int r = 0; r < job->opts->npes; r++)
        if (job->pes[r].pid == (pid_t)pid && job->pes[r].reaped)
            return 1;
    return 0;
}

void oshrun_shm_cleanup(oshrun_job_t *job)
{
    DIR *d = opendir("/dev/shm");
    struct dirent *e;
    struct stat st;

    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        long pid = shm_region_pid(e->d_name);

        if (!pid)
            pid = weft_object_pid(e->d_name);

        if (!pid || !dead_pe(job, pid))
            continue;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode) || st.st_uid != geteuid())
            continue;
        if (unlinkat(dirfd(d), e->d_name, 0) != 0 && errno != ENOENT)
            oshrun_msg("cannot remove /dev/shm/%s left by PE pid %ld: %s",
                       e->d_name, pid, strerror(errno));
    }
    closedir(d);
}
