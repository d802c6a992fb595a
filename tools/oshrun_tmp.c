/*
 * oshrun's private temporary directory (mode 0700): the PMIx server puts its
 * rendezvous files there; it is removed with everything in it at exit.
 */
#define _XOPEN_SOURCE 700
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/oshrun.h"

int oshrun_tmp_create(oshrun_job_t *job)
{
    const char *base = getenv("TMPDIR");
    char sub[300];

    if (!base || !*base)
        base = "/tmp";
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
