/*
 * The victim of tests/security/fabric_keys.sh: a job whose PEs fill a
 * symmetric buffer and a global with a known pattern, announce themselves
 * in $VICTIM_DIR (pe.N: pid), keep driving fabric progress (a get from the
 * next PE) while an outside process attacks their registered memory, and
 * stop when $VICTIM_DIR/done appears. Then every PE checks its pattern and
 * that a reduction still adds up (the runtime's own state in the heap is
 * intact). Exit 0 only when all is intact.
 */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BUF_BYTES    ((size_t)6 << 20)
#define GLOBAL_WORDS 4096

static uint64_t global_words[GLOBAL_WORDS];

static uint64_t pattern(int pe, size_t i)
{
    return 0x5eed000000000000ull ^ ((uint64_t)pe << 40) ^ (uint64_t)i;
}

static void announce(const char *dir, int me)
{
    char path[4096], tmp[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/pe.%d", dir, me);
    snprintf(tmp, sizeof(tmp), "%s/.pe.%d", dir, me);
    f = fopen(tmp, "w");
    if (!f || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f) != 0 ||
        rename(tmp, path) != 0) {
        perror("fabric_victim: announce");
        shmem_global_exit(2);
    }
}

/* Drives progress until dir/done exists (at most limit_s seconds). */
static int wait_done(const char *dir, int me, int npes, long *probe,
                     int limit_s)
{
    char path[4096];
    time_t end = time(NULL) + limit_s;
    long sum = 0;

    snprintf(path, sizeof(path), "%s/done", dir);
    while (access(path, F_OK) != 0) {
        if (time(NULL) > end) {
            fprintf(stderr, "fabric_victim: PE %d: no %s after %d s\n", me,
                    path, limit_s);
            return 1;
        }
        sum += shmem_long_g(probe, (me + 1) % npes);
        usleep(2000);
    }
    return sum < 0;
}

static size_t check(const uint64_t *buf, size_t n, int me, const char *what)
{
    size_t bad = 0;

    for (size_t i = 0; i < n; i++)
        if (buf[i] != pattern(me, i)) {
            if (bad == 0)
                fprintf(stderr,
                        "fabric_victim: PE %d: %s word %zu is 0x%llx, not "
                        "0x%llx\n",
                        me, what, i, (unsigned long long)buf[i],
                        (unsigned long long)pattern(me, i));
            bad++;
        }
    return bad;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : getenv("VICTIM_DIR");
    static long src, dst;
    size_t n = BUF_BYTES / sizeof(uint64_t), bad;
    uint64_t *buf;
    long *probe;
    int me, npes, rc;

    if (!dir) {
        fprintf(stderr, "usage: fabric_victim DIR\n");
        return 2;
    }
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    buf = shmem_malloc(BUF_BYTES);
    probe = shmem_malloc(sizeof(long));
    if (!buf || !probe)
        shmem_global_exit(2);
    for (size_t i = 0; i < n; i++)
        buf[i] = pattern(me, i);
    for (size_t i = 0; i < GLOBAL_WORDS; i++)
        global_words[i] = pattern(me, i);
    *probe = 1;
    shmem_barrier_all();
    announce(dir, me);
    rc = wait_done(dir, me, npes, probe, 240);
    shmem_barrier_all();
    bad = check(buf, n, me, "heap buffer") +
          check(global_words, GLOBAL_WORDS, me, "global array");
    src = me + 1;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &dst, &src, 1);
    if (dst != (long)npes * (npes + 1) / 2) {
        fprintf(stderr, "fabric_victim: PE %d: sum_reduce gave %ld\n", me, dst);
        bad++;
    }
    printf("fabric_victim: PE %d: %zu corrupted words\n", me, bad);
    shmem_finalize();
    return rc || bad ? 1 : 0;
}
