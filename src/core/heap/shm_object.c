/* Shared-memory objects behind symmetric segments (see shm_object.h). */
#define _GNU_SOURCE
#include "config.h"

#include "core/heap/shm_object.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "services/shm_names.h"
#include "core/state.h"
#include "services/error.h"

size_t shmi_page_size(void)
{
    static size_t page;

    if (!page) {
        long p = sysconf(_SC_PAGESIZE);
        page = p > 0 ? (size_t)p : 4096;
    }
    return page;
}

static int create_memfd(const char *tag, int *fd)
{
    char name[64];

    snprintf(name, sizeof(name), "weft-%s", tag);
    *fd = memfd_create(name, MFD_CLOEXEC);
    if (*fd < 0) {
        SHMI_LOG(SHMI_LOG_DEBUG, "heap", "memfd_create(%s): %s", name,
                 strerror(errno));
        return SHMI_ENOTSUP;
    }
    /* A memfd is created 0777; /proc/<pid>/fd already needs the owner's
     * credentials, but the object itself should say "owner only" too. */
    if (fchmod(*fd, 0600) != 0)
        SHMI_LOG(SHMI_LOG_DEBUG, "heap", "fchmod(%s): %s", name,
                 strerror(errno));
    return 0;
}

/* A name unique to this job, PE, process and segment; shm_names.c parses
 * it (as does tools/oshrun_sweep.c): keep the form. */
static void posix_name(const char *job, const char *tag, char *name, size_t len)
{
    snprintf(name, len, "/weft-%s-%d-%ld-%s", job, shmi_state.boot.rank,
             (long)getpid(), tag);
}

static int create_posix(const char *tag, shmi_shm_t *obj)
{
    static int swept;
    char job[SHMI_SHM_JOB_MAX];

    /* Once per process, and only where names are used at all. */
    if (!swept) {
        shmi_shm_names_sweep();
        swept = 1;
    }
    shmi_shm_name_job(shmi_state.boot.jobid, job);
    posix_name(job, tag, obj->desc.name, sizeof(obj->desc.name));
    obj->fd =
        shm_open(obj->desc.name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (obj->fd < 0) {
        SHMI_LOG(SHMI_LOG_ERROR, "heap", "shm_open(%s): %s", obj->desc.name,
                 strerror(errno));
        return SHMI_EIO;
    }
    /* The umask cannot widen 0600, but an inherited ACL could: be exact. */
    if (fchmod(obj->fd, 0600) != 0)
        SHMI_LOG(SHMI_LOG_WARN, "heap", "fchmod(%s): %s", obj->desc.name,
                 strerror(errno));
    obj->unlinked = 0;
    shmi_shm_names_hold(obj->desc.name, job, obj->fd);
    return 0;
}

/*
 * Allocates every page of a POSIX object now. tmpfs hands out pages on
 * first touch, and a touch that finds /dev/shm full is a SIGBUS, in
 * shmem_init or anywhere later; reserved pages cannot fail. A memfd is not
 * reserved: it is charged like anonymous memory and never limited by the
 * size of /dev/shm. SHMI_ENOSPC (not logged) when there is no room.
 */
static int reserve_posix(shmi_shm_t *obj, size_t size)
{
    int err;

    /* tmpfs gives up on a pending signal (EINTR) and keeps nothing. */
    do
        err = posix_fallocate(obj->fd, 0, (off_t)size);
    while (err == EINTR);
    if (err == 0)
        return 0;
    /* No room: the caller knows which variable asked for the size. */
    if (err == ENOSPC || err == EFBIG)
        return SHMI_ENOSPC;
    SHMI_LOG(SHMI_LOG_ERROR, "heap", "reserving %zu bytes for %s: %s", size,
             obj->desc.name, strerror(err));
    return SHMI_ENOMEM;
}

int shmi_shm_create(const char *kind, const char *tag, size_t size,
                    shmi_shm_t *obj)
{
    struct stat st;
    int ret = SHMI_ENOTSUP;

    memset(obj, 0, sizeof(*obj));
    obj->fd = -1;
    obj->unlinked = 1;
    if (strcmp(kind, "posix") != 0) {
        ret = create_memfd(tag, &obj->fd);
        if (ret == 0)
            obj->desc.kind = SHMI_SHM_MEMFD;
        else if (strcmp(kind, "memfd") == 0)
            SHMI_LOG(SHMI_LOG_ERROR, "heap",
                     "SHMEM_HEAP_OBJECT=memfd but memfd_create failed");
    }
    if (ret != 0 && strcmp(kind, "memfd") != 0) {
        ret = create_posix(tag, obj);
        if (ret == 0)
            obj->desc.kind = SHMI_SHM_POSIX;
    }
    if (ret != 0)
        return ret;
    if (ftruncate(obj->fd, (off_t)size) != 0 || fstat(obj->fd, &st) != 0) {
        SHMI_LOG(SHMI_LOG_ERROR, "heap",
                 "sizing the %s object to %zu bytes: %s", tag, size,
                 strerror(errno));
        shmi_shm_release(obj);
        return SHMI_ENOMEM;
    }
    if (obj->desc.kind == SHMI_SHM_POSIX) {
        ret = reserve_posix(obj, size);
        if (ret != 0) {
            shmi_shm_release(obj);
            return ret;
        }
    }
    obj->desc.magic = SHMI_SHM_MAGIC;
    obj->desc.pid = (int32_t)getpid();
    obj->desc.fd = obj->fd;
    obj->desc.size = size;
    obj->desc.dev = (uint64_t)st.st_dev;
    obj->desc.ino = (uint64_t)st.st_ino;
    return 0;
}

int shmi_shm_open_peer(const shmi_shm_desc_t *d, int *fd)
{
    char path[128];
    struct stat st;
    int f;

    if (d->magic != SHMI_SHM_MAGIC)
        return SHMI_EIO;
    if (d->kind == SHMI_SHM_MEMFD) {
        snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)d->pid, (int)d->fd);
        f = open(path, O_RDWR | O_CLOEXEC);
    } else if (d->kind == SHMI_SHM_POSIX) {
        snprintf(path, sizeof(path), "%.100s", d->name);
        f = shm_open(path, O_RDWR | O_CLOEXEC, 0);
    } else {
        return SHMI_EINVAL;
    }
    if (f < 0) {
        /* A memfd gone from its owner's descriptors: the owner closed it at
         * its shmem_finalize or exited; the caller says what that means. */
        if (!(d->kind == SHMI_SHM_MEMFD && errno == ENOENT))
            SHMI_LOG(SHMI_LOG_WARN, "heap", "cannot open %s: %s", path,
                     strerror(errno));
        return SHMI_EIO;
    }
    if (fstat(f, &st) != 0 || (uint64_t)st.st_dev != d->dev ||
        (uint64_t)st.st_ino != d->ino || (uint64_t)st.st_size < d->size) {
        SHMI_LOG(SHMI_LOG_WARN, "heap",
                 "%s is not the object its owner published", path);
        close(f);
        return SHMI_EIO;
    }
    *fd = f;
    return 0;
}

void shmi_shm_release(shmi_shm_t *obj)
{
    if (!obj->unlinked) {
        if (shm_unlink(obj->desc.name) != 0 && errno != ENOENT)
            SHMI_LOG(SHMI_LOG_WARN, "heap", "shm_unlink(%s): %s",
                     obj->desc.name, strerror(errno));
        shmi_shm_names_drop(obj->desc.name);
        obj->unlinked = 1;
    }
    if (obj->fd >= 0) {
        close(obj->fd);
        obj->fd = -1;
    }
}

void *shmi_shm_map(int fd, size_t size, size_t align)
{
    size_t page = shmi_page_size();
    size_t span, head;
    char *raw, *p;

    if (align < page)
        align = page;
    if (size > SIZE_MAX - align) {
        errno = ENOMEM;
        return NULL;
    }
    /* Reserve enough address space to find an aligned start, then map the
     * object over it and give back the unused ends. */
    span = size + align;
    raw = mmap(NULL, span, PROT_NONE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    p = (char *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
    if (mmap(p, size, PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_FIXED | MAP_NORESERVE, fd, 0) == MAP_FAILED) {
        int e = errno;

        munmap(raw, span);
        errno = e;
        return NULL;
    }
    head = (size_t)(p - raw);
    if (head)
        munmap(raw, head);
    if (span - head - size)
        munmap(p + size, span - head - size);
    return p;
}
