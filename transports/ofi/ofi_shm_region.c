/*
 * The shared-memory regions of libfabric's shm provider: how they are named,
 * and what dead processes left of them.
 *
 * Each shm endpoint owns a region, a file in /dev/shm that the provider
 * creates with O_EXCL when the endpoint is enabled and removes when it is
 * closed. Left to itself, libfabric 1.17 names it "<pid>:<uid>:<n>": a PE
 * killed outright leaves its region, and a later process that gets the same
 * pid cannot create its own ("fi_enable failed: Device or resource busy"),
 * or maps a file that is not a region at all; anybody can plant such a
 * file in advance. So:
 *  - every endpoint gets a name nobody can guess before it exists
 *    (fi_setname before fi_enable; peers learn it from the start-up
 *    exchange, as before): "weftfi-<pid>-<64 random bits>-<endpoint>";
 *  - before the provider opens anything, the regions of this user whose
 *    process is gone (either form) are removed, as are files in this
 *    process's own default names (no endpoint of ours exists yet): a dead
 *    job costs nothing but memory until the next start;
 *  - a file named as one of this user's regions that belongs to another
 *    user cannot be removed by us: it is reported, once per node, with what
 *    to do (it cannot clash with Weft's own names any more).
 * The pid of a name is checked in this pid namespace only (see
 * docs/security.md, "Launcher death and leftovers").
 */
#define _GNU_SOURCE
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "services/pid_gone.h"
#include "services/shm_region_name.h"
#include "transports/ofi/ofi_internal.h"

#define SHM_DIR "/dev/shm"
/* The provider's address prefix: a name with it is a region in SHM_DIR. */
#define SMR_PREFIX "fi_shm://"

static int is_shm(void)
{
    return shmt_ofi.prov && strcmp(shmt_ofi.prov, "shm") == 0;
}

/* One entry of SHM_DIR: removed when it is a region of this user left by a
 * process that is gone (or by an earlier process with this pid). Another
 * user's file in such a name is reported when *report, which is then
 * cleared; *more counts the others. */
static void sweep_one(int dir, const char *name, int *report, int *more)
{
    long uid, pid = shmi_shm_region_pid(name, &uid);
    struct stat st;

    if (!pid || (uid >= 0 && (uid_t)uid != geteuid()))
        return;
    if (pid == (long)getpid() ? uid < 0 : !shmi_pid_gone(pid))
        return;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(st.st_mode))
        return;
    if (st.st_uid == geteuid()) {
        if (unlinkat(dir, name, 0) == 0)
            SHMI_LOG(SHMI_LOG_DEBUG, "ofi",
                     "removed " SHM_DIR "/%s: a shm region left by process "
                     "%ld, which is gone",
                     name, pid);
    } else if (!*report) {
        ++*more;
    } else {
        *report = 0;
        SHMI_LOG(SHMI_LOG_WARN, "ofi",
                 SHM_DIR
                 "/%s is named as a shared-memory region of user %ld "
                 "but belongs to user %ld, so it cannot be removed; Weft does "
                 "not use names of this form, yet ask that user or the "
                 "administrator to remove it",
                 name, (long)geteuid(), (long)st.st_uid);
    }
}

void shmt_ofi_shm_sweep(void)
{
    DIR *d;
    struct dirent *e;
    int report = shmt_ofi.job->local_rank == 0, more = 0;

    if (!is_shm() || !(d = opendir(SHM_DIR)))
        return;
    while ((e = readdir(d)) != NULL)
        sweep_one(dirfd(d), e->d_name, &report, &more);
    closedir(d);
    if (more && shmt_ofi.job->local_rank == 0)
        SHMI_LOG(SHMI_LOG_WARN, "ofi",
                 "%d more files in " SHM_DIR " are named like that", more);
}

int shmt_ofi_shm_name(struct fid_ep *ep, int id)
{
    char name[96];
    uint64_t r;
    int ret;

    if (!is_shm())
        return 0;
    if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
        SHMI_LOG(SHMI_LOG_ERROR, "ofi",
                 "cannot draw a name for a shm region: getrandom: %s",
                 strerror(errno));
        return SHMI_EIO;
    }
    snprintf(name, sizeof(name),
             SMR_PREFIX SHMI_SHM_REGION_PREFIX "%ld-%016" PRIx64 "-%d",
             (long)getpid(), r, id);
    ret = fi_setname(&ep->fid, name, strlen(name) + 1);
    if (ret == -FI_ENOSYS || ret == -FI_EOPNOTSUPP) {
        /* A provider without setname: its own names, swept as above. */
        SHMI_LOG(SHMI_LOG_DEBUG, "ofi", "fi_setname: %s; default shm name",
                 shmt_ofi_lib.strerror(-ret));
        return 0;
    }
    if (ret) {
        shmt_ofi_log_fail("fi_setname", ret);
        return SHMI_EIO;
    }
    return 0;
}

void shmt_ofi_shm_enable_failed(struct fid_ep *ep, int ret)
{
    char name[256] = "", path[300];
    size_t len = sizeof(name) - 1;
    const char *file = name;
    struct stat st;

    if (!is_shm() || fi_getname(&ep->fid, name, &len) != 0)
        return;
    name[len < sizeof(name) ? len : sizeof(name) - 1] = '\0';
    if (strncmp(name, SMR_PREFIX, strlen(SMR_PREFIX)) == 0)
        file += strlen(SMR_PREFIX);
    snprintf(path, sizeof(path), SHM_DIR "/%s", file);
    if (lstat(path, &st) == 0)
        SHMI_LOG(SHMI_LOG_ERROR, "ofi",
                 "the shm provider cannot create its region %s (%s): a file "
                 "of user %ld has that name; remove it (its owner or the "
                 "administrator can) and run the job again",
                 path, shmt_ofi_lib.strerror(-ret), (long)st.st_uid);
    else
        SHMI_LOG(SHMI_LOG_ERROR, "ofi",
                 "the shm provider cannot create its region %s: %s; if " SHM_DIR
                 " is full (df " SHM_DIR "), free space there",
                 path, shmt_ofi_lib.strerror(-ret));
}
