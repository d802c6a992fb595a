/*
 * oshrun's private temporary directory (mode 0700): the PMIx server puts its
 * rendezvous files there; it is removed with everything in it at exit.
 * oshrun holds a lock (flock) on it while it lives, so that the next oshrun
 * of the user can tell a directory left by a killed oshrun from one in use,
 * even by an oshrun of another pid namespace (oshrun_sweep.c).
 */
#define _XOPEN_SOURCE 700
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/oshrun.h"

/* The locked directory, open while oshrun lives (not inherited). */
static int tmp_lock = -1;

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
    tmp_lock = open(job->tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (tmp_lock < 0 || flock(tmp_lock, LOCK_EX) != 0) {
        oshrun_msg("cannot lock %s: %s", job->tmpdir, strerror(errno));
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

void oshrun_remove_tree(const char *path)
{
    /* Depth first, and links are removed, never followed. */
    nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

void oshrun_tmp_remove(oshrun_job_t *job)
{
    if (job->tmpdir[0])
        oshrun_remove_tree(job->tmpdir);
    job->tmpdir[0] = '\0';
    if (tmp_lock >= 0)
        close(tmp_lock);
    tmp_lock = -1;
}
