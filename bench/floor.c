/*
 * The floor of this machine, against which Weft's on-node figures are read:
 *   cacheline_pingpong  two processes bounce a flag through one shared cache
 *                       line each way; one-way latency in microseconds
 *   memcpy_bw           single-thread memcpy between two buffers, MB/s
 * Neither uses Weft or MPI; run it alone (it forks its own second process).
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

/* Two flags on separate cache lines, in memory shared by both processes. */
typedef struct flags {
    _Alignas(64) _Atomic uint64_t ping;
    _Alignas(64) _Atomic uint64_t pong;
} flags_t;

static void spin_until(_Atomic uint64_t *word, uint64_t value)
{
    unsigned polls = 0;

    while (atomic_load_explicit(word, memory_order_acquire) != value)
        if (++polls % 4096 == 0)
            sched_yield(); /* keep an oversubscribed machine moving */
}

static void bench_pingpong(const bench_opts_t *o)
{
    flags_t *f = mmap(NULL, sizeof(*f), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    long n = o->iters * 10, total = n + o->warmup;
    double t = 0;
    pid_t child;

    if (f == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    child = fork();
    if (child == 0) {
        for (long i = 1; i <= total; i++) {
            spin_until(&f->ping, (uint64_t)i);
            atomic_store_explicit(&f->pong, (uint64_t)i, memory_order_release);
        }
        _exit(0);
    }
    for (long i = 1; i <= total; i++) {
        if (i == o->warmup + 1)
            t = bench_now();
        atomic_store_explicit(&f->ping, (uint64_t)i, memory_order_release);
        spin_until(&f->pong, (uint64_t)i);
    }
    t = bench_now() - t;
    waitpid(child, NULL, 0);
    bench_header(o, "cacheline_pingpong", "us");
    bench_row(o, "cacheline_pingpong", "us", 8, 1e6 * t / (2.0 * (double)n));
    munmap(f, sizeof(*f));
}

static void bench_memcpy(const bench_opts_t *o)
{
    char *src = malloc(o->max_size), *dst = malloc(o->max_size);

    if (!src || !dst) {
        perror("malloc");
        exit(1);
    }
    memset(src, 1, o->max_size);
    memset(dst, 2, o->max_size);
    bench_header(o, "memcpy_bw", "MB/s");
    for (size_t size = o->min_size; size <= o->max_size; size *= 2) {
        long n = bench_iters_for(o, size) * 4;
        double t;

        for (long i = 0; i < n / 10 + 1; i++)
            memcpy(dst, src, size);
        t = bench_now();
        for (long i = 0; i < n; i++) {
            memcpy(dst, src, size);
            /* Keep the copy from being optimised away or hoisted. */
            __asm__ volatile("" : : "r"(dst) : "memory");
        }
        t = bench_now() - t;
        bench_row(o, "memcpy_bw", "MB/s", size,
                  1e-6 * (double)size * (double)n / t);
    }
    free(src);
    free(dst);
}

int main(int argc, char **argv)
{
    bench_opts_t o = bench_parse(argc, argv, 4 << 20);

    if (bench_selected(&o, "cacheline_pingpong"))
        bench_pingpong(&o);
    if (bench_selected(&o, "memcpy_bw"))
        bench_memcpy(&o);
    return 0;
}
