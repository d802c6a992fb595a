/*
 * shmem_ptr and shmem_team_ptr on the symmetric heap. All PEs of these
 * tests share one node, so with SHMEM_LOCAL=1 (default) every PE's heap is
 * mapped here: shmem_ptr is non-NULL and stores through it are the owner's
 * memory. Argument "nolocal" (run with SHMEM_LOCAL=0): shmem_ptr is NULL
 * for every PE but this one. Also: with SHMEM_HEAP_OBJECT=posix, the name
 * in /dev/shm is gone once shmem_init returns, and the object behind the
 * heap (ours and the peers' we map) is mode 0600.
 */
#include <dirent.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/common/check_pes.h"

/* 1 when /dev/shm holds a heap object of this process. */
static int shm_name_left(void)
{
    char suffix[64];
    struct dirent *e;
    DIR *d = opendir("/dev/shm");
    int found = 0;

    if (!d)
        return 0;
    snprintf(suffix, sizeof(suffix), "-%ld-heap", (long)getpid());
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name), m = strlen(suffix);

        if (strncmp(e->d_name, "weft-", 5) == 0 && n > m &&
            strcmp(e->d_name + n - m, suffix) == 0)
            found = 1;
    }
    closedir(d);
    return found;
}

/* Permission bits of the file mapped at p (through /proc/self/map_files),
 * or -1 when the system does not let this process look. */
static int mapped_file_mode(const void *p)
{
    unsigned long lo, hi, a = (unsigned long)p;
    char line[512], path[128];
    struct stat st;
    FILE *f = fopen("/proc/self/maps", "r");
    int mode = -1;

    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f)) {
        if (sscanf(line, "%lx-%lx", &lo, &hi) != 2 || a < lo || a >= hi)
            continue;
        snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", lo, hi);
        if (stat(path, &st) == 0)
            mode = (int)(st.st_mode & 07777);
        break;
    }
    fclose(f);
    return mode;
}

int main(int argc, char **argv)
{
    int nolocal = argc > 1 && strcmp(argv[1], "nolocal") == 0;
    int me, npes, next;
    long *buf;

    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    next = (me + 1) % npes;
    CHECK(!shm_name_left());
    buf = shmem_calloc(16, sizeof(long));
    CHECK(buf != NULL);
    if (!buf)
        return check_pes_end("heap_ptr");

    for (int pe = 0; pe < npes; pe++) {
        long *p = shmem_ptr(buf, pe);
        int mode = p ? mapped_file_mode(p) : -1;

        CHECK(mode == -1 || mode == 0600);

        if (pe == me)
            CHECK(p == buf);
        else if (nolocal)
            CHECK(p == NULL);
        else
            CHECK(p != NULL);
        CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, buf, pe) == (void *)p);
        CHECK(shmem_ptr(buf + 15, pe) == (p ? (void *)(p + 15) : NULL));
    }
    CHECK(shmem_ptr(buf, npes) == NULL);
    CHECK(shmem_ptr(buf, -1) == NULL);
    CHECK(shmem_ptr(&me, next) == NULL); /* not symmetric (stack) */
    CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, buf, 0) == NULL);
    CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, buf, npes) == NULL);

    if (!nolocal) {
        long *p = shmem_ptr(buf, next);

        if (p) {
            p[3] = 100 + me;
            __atomic_fetch_add(&p[4], 1, __ATOMIC_SEQ_CST);
        }
        shmem_barrier_all();
        CHECK(buf[3] == 100 + (me + npes - 1) % npes);
        CHECK(buf[4] == 1);
        /* ... and the owner's writes are seen through the mapping. */
        buf[5] = 200 + me;
        shmem_barrier_all();
        if (p)
            CHECK(p[5] == 200 + next);
    }
    shmem_free(buf);
    return check_pes_end("heap_ptr");
}
