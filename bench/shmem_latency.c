/*
 * SHMEM latency micro-benchmarks between PE 0 and PE 1 (OSU style):
 *   put_quiet      shmem_putmem + shmem_quiet, time per pair
 *   exchange_quiet PE 0 and PE 1 each shmem_putmem to the other +
 *                  shmem_quiet, time per pair (a halo exchange's pattern:
 *                  each quiet needs the peer's progress while it waits too)
 *   put_signal     ping-pong with shmem_putmem_signal / shmem_signal_wait_until,
 *                  one-way latency (round trip / 2)
 *   get            blocking shmem_getmem
 * Other PEs (if any) only take part in the barriers.
 */
#include <shmem.h>
#include <stdint.h>

#include "bench_util.h"

static void bench_put_quiet(const bench_opts_t *o, char *buf, int me)
{
    bench_header(o, "put_quiet", "us");
    for (size_t size = o->min_size; size <= o->max_size; size *= 2) {
        long n = bench_iters_for(o, size);
        double t = 0;

        shmem_barrier_all();
        if (me == 0) {
            for (long i = 0; i < o->warmup; i++) {
                shmem_putmem(buf, buf, size, 1);
                shmem_quiet();
            }
            t = bench_now();
            for (long i = 0; i < n; i++) {
                shmem_putmem(buf, buf, size, 1);
                shmem_quiet();
            }
            t = bench_now() - t;
            bench_row(o, "put_quiet", "us", size, 1e6 * t / (double)n);
        }
    }
}

static void bench_exchange_quiet(const bench_opts_t *o, char *buf, int me)
{
    bench_header(o, "exchange_quiet", "us");
    for (size_t size = o->min_size; size <= o->max_size; size *= 2) {
        long n = bench_iters_for(o, size);
        double t;

        for (long i = 0; me <= 1 && i < o->warmup; i++) {
            shmem_putmem(buf, buf, size, 1 - me);
            shmem_quiet();
        }
        shmem_barrier_all();
        if (me > 1)
            continue;
        t = bench_now();
        for (long i = 0; i < n; i++) {
            shmem_putmem(buf, buf, size, 1 - me);
            shmem_quiet();
        }
        t = bench_now() - t;
        if (me == 0)
            bench_row(o, "exchange_quiet", "us", size, 1e6 * t / (double)n);
    }
}

/* One ping-pong round: PE 0 sends, waits for the echo; PE 1 echoes. */
static void put_signal_round(char *buf, uint64_t *sig, size_t size,
                             uint64_t seq, int me)
{
    if (me == 0) {
        shmem_putmem_signal(buf, buf, size, sig, seq, SHMEM_SIGNAL_SET, 1);
        shmem_signal_wait_until(sig, SHMEM_CMP_GE, seq);
    } else {
        shmem_signal_wait_until(sig, SHMEM_CMP_GE, seq);
        shmem_putmem_signal(buf, buf, size, sig, seq, SHMEM_SIGNAL_SET, 0);
    }
}

static void bench_put_signal(const bench_opts_t *o, char *buf, uint64_t *sig,
                             int me)
{
    uint64_t seq = 0;

    bench_header(o, "put_signal_pingpong", "us");
    for (size_t size = o->min_size; size <= o->max_size; size *= 2) {
        long n = bench_iters_for(o, size);
        double t;

        shmem_barrier_all();
        if (me > 1)
            continue;
        for (long i = 0; i < o->warmup; i++)
            put_signal_round(buf, sig, size, ++seq, me);
        t = bench_now();
        for (long i = 0; i < n; i++)
            put_signal_round(buf, sig, size, ++seq, me);
        t = bench_now() - t;
        if (me == 0)
            bench_row(o, "put_signal_pingpong", "us", size,
                      1e6 * t / (2.0 * (double)n));
    }
}

static void bench_get(const bench_opts_t *o, char *buf, char *local, int me)
{
    bench_header(o, "get", "us");
    for (size_t size = o->min_size; size <= o->max_size; size *= 2) {
        long n = bench_iters_for(o, size);
        double t;

        shmem_barrier_all();
        if (me != 0)
            continue;
        for (long i = 0; i < o->warmup; i++)
            shmem_getmem(local, buf, size, 1);
        t = bench_now();
        for (long i = 0; i < n; i++)
            shmem_getmem(local, buf, size, 1);
        t = bench_now() - t;
        bench_row(o, "get", "us", size, 1e6 * t / (double)n);
    }
}

int main(int argc, char **argv)
{
    bench_opts_t o = bench_parse(argc, argv, 1 << 20);
    char *buf, *local;
    uint64_t *sig;
    int me;

    shmem_init();
    me = shmem_my_pe();
    o.print = me == 0;
    if (shmem_n_pes() < 2) {
        if (me == 0)
            fprintf(stderr, "shmem_latency needs at least 2 PEs\n");
        shmem_finalize();
        return 2;
    }
    buf = shmem_malloc(o.max_size);
    sig = shmem_calloc(1, sizeof(*sig));
    local = malloc(o.max_size);
    if (!buf || !sig || !local) {
        fprintf(stderr, "shmem_latency: out of memory\n");
        shmem_global_exit(1);
    }
    memset(local, 1, o.max_size);
    memset(buf, 2, o.max_size);
    if (bench_selected(&o, "put_quiet"))
        bench_put_quiet(&o, buf, me);
    if (bench_selected(&o, "exchange_quiet"))
        bench_exchange_quiet(&o, buf, me);
    if (bench_selected(&o, "put_signal_pingpong"))
        bench_put_signal(&o, buf, sig, me);
    if (bench_selected(&o, "get"))
        bench_get(&o, buf, local, me);
    shmem_barrier_all();
    shmem_free(sig);
    shmem_free(buf);
    free(local);
    shmem_finalize();
    return 0;
}
