/*
 * One job of the isolation test (tests/isolation/isolation.sh): writes and
 * reads patterns that carry the job's tag through the symmetric heap, a
 * global array and an atomic counter, so that a job that sees or disturbs
 * another job's memory fails its checks.
 *
 * Usage: iso_job TAG DIR [ITERS]
 *   Runs ITERS rounds, then PE 0 creates DIR/ready and every PE writes its
 *   pid to DIR/pid.<pe>; all PEs wait (PE 0 polls for DIR/go, the others in
 *   a barrier) while the script inspects the system, then run ITERS more.
 */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HEAP_BYTES (256 * 1024)
#define GLOBAL_LONGS 4096

static long global_buf[GLOBAL_LONGS];
static long counter;
static long errors;

static unsigned char pat(long tag, int pe, long iter, size_t i)
{
    return (unsigned char)(tag * 97 + pe * 31 + iter * 7 + (long)i + (long)(i >> 8));
}

static long gval(long tag, int pe, long iter, size_t i)
{
    return tag * 1000000007L + pe * 1000003L + iter * 1009L + (long)i;
}

static void fail(int me, const char *what, long iter, size_t i)
{
    if (errors++ < 10)
        fprintf(stderr, "iso_job[pe %d]: %s: wrong data at iteration %ld, "
                "index %zu (another job's memory?)\n", me, what, iter, i);
}

/* One round: heap and global array to the right neighbour, a counter add. */
static void round_trip(long tag, unsigned char *src, unsigned char *dst,
                       long *gsrc, long iter)
{
    int me = shmem_my_pe(), np = shmem_n_pes();
    int right = (me + 1) % np, left = (me + np - 1) % np;

    for (size_t i = 0; i < HEAP_BYTES; i++)
        src[i] = pat(tag, me, iter, i);
    for (size_t i = 0; i < GLOBAL_LONGS; i++)
        gsrc[i] = gval(tag, me, iter, i);
    shmem_putmem(dst, src, HEAP_BYTES, right);
    shmem_long_put(global_buf, gsrc, GLOBAL_LONGS, right);
    shmem_long_atomic_add(&counter, tag, 0);
    shmem_barrier_all();
    for (size_t i = 0; i < HEAP_BYTES; i++)
        if (dst[i] != pat(tag, left, iter, i)) {
            fail(me, "symmetric heap", iter, i);
            break;
        }
    for (size_t i = 0; i < GLOBAL_LONGS; i++)
        if (global_buf[i] != gval(tag, left, iter, i)) {
            fail(me, "global array", iter, i);
            break;
        }
    shmem_barrier_all();
}

static void write_file(const char *dir, const char *name, long value)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        shmem_global_exit(2);
    }
    fprintf(f, "%ld\n", value);
    fclose(f);
}

/* PE 0 waits for DIR/go (at most two minutes); the others in the barrier. */
static void pause_here(const char *dir)
{
    char name[32], path[4096];
    int me = shmem_my_pe();

    snprintf(name, sizeof name, "pid.%d", me);
    write_file(dir, name, (long)getpid());
    shmem_barrier_all();
    if (me == 0) {
        write_file(dir, "ready", 1);
        snprintf(path, sizeof path, "%s/go", dir);
        struct timespec ts = { 0, 20 * 1000 * 1000 };
        for (int i = 0; access(path, F_OK) != 0; i++) {
            if (i > 6000) {
                fprintf(stderr, "iso_job: %s did not appear\n", path);
                shmem_global_exit(3);
            }
            nanosleep(&ts, NULL);
        }
    }
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: iso_job TAG DIR [ITERS]\n");
        return 2;
    }
    long tag = atol(argv[1]);
    const char *dir = argv[2];
    long iters = argc > 3 ? atol(argv[3]) : 20;

    shmem_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    unsigned char *src = shmem_malloc(HEAP_BYTES);
    unsigned char *dst = shmem_malloc(HEAP_BYTES);
    long *gsrc = malloc(GLOBAL_LONGS * sizeof(long));
    if (!src || !dst || !gsrc) {
        fprintf(stderr, "iso_job: out of memory\n");
        shmem_global_exit(2);
    }
    long it = 0;
    for (; it < iters; it++)
        round_trip(tag, src, dst, gsrc, it);
    pause_here(dir);
    for (; it < 2 * iters; it++)
        round_trip(tag, src, dst, gsrc, it);
    if (me == 0) {
        long want = tag * np * 2 * iters;
        long have = shmem_long_atomic_fetch(&counter, 0);
        if (have != want) {
            fprintf(stderr, "iso_job[pe 0]: counter is %ld, expected %ld\n",
                    have, want);
            errors++;
        }
    }
    long *err = shmem_malloc(2 * sizeof(long));
    err[0] = errors;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, err + 1, err, 1);
    long total = err[1];
    if (me == 0)
        printf("iso_job tag %ld: %d PEs, %ld rounds, %ld errors\n", tag, np,
               2 * iters, total);
    shmem_finalize();
    return total != 0;
}
