/*
 * Unit test of the shared-memory objects behind the heap
 * (src/core/heap/shm_object.c), without any PE: both kinds are created
 * mode 0600, a POSIX name is gone after release, another process opens a
 * memfd through /proc/<pid>/fd and sees the same memory, a descriptor that
 * names another object is refused, and the mapping is aligned as asked.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/heap/shm_object.h"
#include "services/error.h"
#include "tests/common/check.h"

/* A child opens the object as a peer would and writes into it. */
static int child_writes(const shmi_shm_desc_t *d)
{
    int fd;
    char *p;

    if (shmi_shm_open_peer(d, &fd) != 0)
        return 2;
    p = shmi_shm_map(fd, d->size, d->align);
    close(fd);
    if (!p || ((uintptr_t)p & (d->align - 1)))
        return 3;
    if (p[100] != 'x')
        return 4;
    p[200] = 'y';
    return 0;
}

static void test_kind(const char *kind, int expect)
{
    size_t size = (size_t)4 << 20, align = (size_t)2 << 20;
    shmi_shm_t obj;
    struct stat st;
    char *p;
    pid_t pid;
    int status = -1;

    CHECK(shmi_shm_create(kind, "unit", size, &obj) == 0);
    CHECK(obj.desc.kind == expect);
    CHECK(fstat(obj.fd, &st) == 0 && (st.st_mode & 0777) == 0600);
    CHECK(st.st_uid == getuid() && (size_t)st.st_size == size);
    if (expect == SHMI_SHM_POSIX) {
        char path[160];
        snprintf(path, sizeof(path), "/dev/shm%s", obj.desc.name);
        CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    }
    obj.desc.align = align;
    p = shmi_shm_map(obj.fd, size, align);
    CHECK(p != NULL && ((uintptr_t)p & (align - 1)) == 0);
    if (!p)
        return;
    p[100] = 'x';
    pid = fork();
    if (pid == 0)
        _exit(child_writes(&obj.desc));
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(p[200] == 'y');

    { /* Same path, another object: refused. */
        shmi_shm_desc_t bad = obj.desc;
        int fd;
        bad.ino++;
        CHECK(shmi_shm_open_peer(&bad, &fd) != 0);
        bad = obj.desc;
        bad.magic = 0;
        CHECK(shmi_shm_open_peer(&bad, &fd) != 0);
    }
    shmi_shm_release(&obj);
    CHECK(obj.fd == -1);
    if (expect == SHMI_SHM_POSIX) {
        char path[160];
        snprintf(path, sizeof(path), "/dev/shm%s", obj.desc.name);
        CHECK(access(path, F_OK) != 0);
    }
    shmi_shm_release(&obj); /* idempotent */
    munmap(p, size);
}

int main(void)
{
    test_kind("auto", SHMI_SHM_MEMFD);
    test_kind("memfd", SHMI_SHM_MEMFD);
    test_kind("posix", SHMI_SHM_POSIX);
    return check_end("shm_unit");
}
