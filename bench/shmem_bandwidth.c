/*
 * SHMEM bandwidth and message-rate micro-benchmarks, PE 0 -> PE 1 (OSU style):
 *   put_bw    a window of shmem_putmem_nbi then shmem_quiet, MB/s
 *   get_bw    a window of shmem_getmem_nbi then shmem_quiet, MB/s
 *   msg_rate  8-byte shmem_putmem_nbi messages per second (millions)
 * Other PEs (if any) only take part in the barriers.
 */
#include <shmem.h>

#include "bench_util.h"

enum { WINDOW = 64 };

typedef void (*nbi_fn)(void *dest, const void *src, size_t n, int pe);

static void put_nbi(void *dest, const void *src, size_t n, int pe)
{
    shmem_putmem_nbi(dest, src, n, pe);
}

static void get_nbi(void *dest, const void *src, size_t n, int pe)
{
    shmem_getmem_nbi(dest, src, n, pe);
}

/* Seconds for `n` windows of WINDOW transfers of `size` bytes. */
static double time_windows(nbi_fn fn, char *dst, const char *src, size_t size,
                           long n)
{
    double t = bench_now();

    for (long w = 0; w < n; w++) {
        for (int i = 0; i < WINDOW; i++)
            fn(dst, src, size, 1);
        shmem_quiet();
    }
    return bench_now() - t;
}

static void bench_bw(const bench_opts_t *o, const char *name, nbi_fn fn,
                     char *dst, const char *src, int me)
{
    bench_header(o, name, "MB/s");
    for (size_t size = o->min_size; size <= o->max_size; size *= 2) {
        long n = bench_iters_for(o, size) / WINDOW;
        double t;

        if (n < 5)
            n = 5;
        shmem_barrier_all();
        if (me != 0)
            continue;
        time_windows(fn, dst, src, size, n / 5 + 1);
        t = time_windows(fn, dst, src, size, n);
        bench_row(o, name, "MB/s", size,
                  1e-6 * (double)size * WINDOW * (double)n / t);
    }
}

static void bench_msg_rate(const bench_opts_t *o, char *buf, int me)
{
    long n = o->iters * 10;
    double t;

    bench_header(o, "msg_rate", "Mmsg/s");
    shmem_barrier_all();
    if (me == 0) {
        time_windows(put_nbi, buf, buf + 64, 8, n / WINDOW / 10 + 1);
        t = time_windows(put_nbi, buf, buf + 64, 8, n / WINDOW);
        bench_row(o, "msg_rate", "Mmsg/s", 8,
                  1e-6 * (double)(n / WINDOW * WINDOW) / t);
    }
}

int main(int argc, char **argv)
{
    bench_opts_t o = bench_parse(argc, argv, 4 << 20);
    char *remote, *local;
    int me;

    shmem_init();
    me = shmem_my_pe();
    o.print = me == 0;
    if (shmem_n_pes() < 2) {
        if (me == 0)
            fprintf(stderr, "shmem_bandwidth needs at least 2 PEs\n");
        shmem_finalize();
        return 2;
    }
    /* Symmetric source and destination so either side may be remote. */
    remote = shmem_malloc(o.max_size + 128);
    local = shmem_malloc(o.max_size + 128);
    if (!remote || !local) {
        fprintf(stderr, "shmem_bandwidth: out of symmetric memory\n");
        shmem_global_exit(1);
    }
    memset(local, 1, o.max_size + 128);
    memset(remote, 2, o.max_size + 128);
    if (bench_selected(&o, "put_bw"))
        bench_bw(&o, "put_bw", put_nbi, remote, local, me);
    if (bench_selected(&o, "get_bw"))
        bench_bw(&o, "get_bw", get_nbi, local, remote, me);
    if (bench_selected(&o, "msg_rate"))
        bench_msg_rate(&o, remote, me);
    shmem_barrier_all();
    shmem_free(local);
    shmem_free(remote);
    shmem_finalize();
    return 0;
}
