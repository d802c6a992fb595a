/*
 * Device-buffer communication between 2 PEs, host-blocking against
 * stream-ordered (docs/gpu.md, "Stream-ordered communication"):
 *
 *   SHMEM_DEVICE_BACKEND=cuda oshrun -n 2 bench/gpu/stream_bench [-c] [max]
 *
 * PE 0 prints one row per message size (OSU-style columns; -c: CSV):
 *   put_us / put_st_us   latency of one 8..max-byte put of device memory to
 *                        PE 1's device heap: shmem_putmem + shmem_quiet
 *                        (host-blocking), and shmemx_putmem_on_stream, the
 *                        time per put of a batch enqueued on one stream and
 *                        synchronised at its end;
 *   get_us / get_st_us   the same for gets;
 *   put_MBs / put_st_MBs bandwidth of the same puts (1 MB = 1e6 bytes);
 *   red_us / red_st_us   a sum reduction of doubles over both PEs with dest
 *                        and source in the device heap: shmem_double_sum_
 *                        reduce (blocking) and shmemx_double_sum_reduce_on_
 *                        stream; SHMEM_DEVICE_REDUCE=gpu (default: the back
 *                        end's kernel) or =host (host arithmetic) picks the
 *                        path; red_GBs is the blocking form's bytes reduced
 *                        per second.
 * A first line gives the cost of the lane hand-off itself: the time per
 * shmemx_quiet_on_stream of a batch (a host function on the stream that
 * hands an empty operation to the stream's lane and waits for it), and per
 * shmemx_host_func_on_stream of an empty function (the back end's own
 * host-function cost).
 * With the mock device every figure is the cost of Weft's logic and of the
 * mock's page protection, not of a GPU.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shmem.h"
#include "shmemx.h"

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static size_t iters_for(size_t n)
{
    size_t it = (32u << 20) / n;

    return it < 20 ? 20 : it > 2000 ? 2000 : it;
}

typedef enum { PUT, GET } rma_t;

/* Seconds per operation, PE 0 issuing, PE 1 waiting at the barrier. */
static double rma_blocking(rma_t k, char *dst, char *src, size_t n)
{
    size_t it = iters_for(n);
    double t = 0;

    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        t = now();
        for (size_t i = 0; i < it; i++) {
            if (k == PUT) {
                shmem_putmem(dst, src, n, 1);
                shmem_quiet();
            } else {
                shmem_getmem(dst, src, n, 1);
            }
        }
        t = (now() - t) / (double)it;
    }
    shmem_barrier_all();
    return t;
}

static double rma_stream(rma_t k, char *dst, char *src, size_t n, void *s)
{
    size_t it = iters_for(n);
    double t = 0;

    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        t = now();
        for (size_t i = 0; i < it; i++) {
            if (k == PUT)
                shmemx_putmem_on_stream(dst, src, n, 1, s);
            else
                shmemx_getmem_on_stream(dst, src, n, 1, s);
        }
        shmemx_quiet_on_stream(s);
        shmemx_stream_synchronize(s);
        t = (now() - t) / (double)it;
    }
    shmem_barrier_all();
    return t;
}

static void nothing(void *arg)
{
    (void)arg;
}

/* Seconds per hand-off (lane: quiet_on_stream; else an empty host
 * function), PE 0 alone. */
static double handoff(void *s, int lane)
{
    const size_t it = 2000;
    double t = now();

    for (size_t i = 0; i < it; i++) {
        if (lane)
            shmemx_quiet_on_stream(s);
        else
            shmemx_host_func_on_stream(s, nothing, NULL);
    }
    shmemx_stream_synchronize(s);
    return (now() - t) / (double)it;
}

static double reduce_time(double *dst, double *src, size_t n, void *s,
                          int on_stream)
{
    size_t it = iters_for(n * sizeof(double)) / 4 + 5;
    double t;

    shmem_barrier_all();
    t = now();
    for (size_t i = 0; i < it; i++) {
        if (on_stream)
            shmemx_double_sum_reduce_on_stream(SHMEM_TEAM_WORLD, dst, src, n,
                                               s);
        else
            shmem_double_sum_reduce(SHMEM_TEAM_WORLD, dst, src, n);
    }
    if (on_stream)
        shmemx_stream_synchronize(s);
    t = (now() - t) / (double)it;
    shmem_barrier_all();
    return t;
}

int main(int argc, char **argv)
{
    int csv = 0;
    size_t max = (size_t)4 << 20;
    char *a, *b;
    const char *path = getenv("SHMEM_DEVICE_REDUCE");
    void *s;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-c") == 0)
            csv = 1;
        else
            max = strtoull(argv[i], NULL, 0);
    }
    shmem_init();
    if (shmem_n_pes() != 2) {
        if (shmem_my_pe() == 0)
            fprintf(stderr, "stream_bench: run with 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    a = shmemx_malloc_device(max);
    b = shmemx_malloc_device(max);
    if (!a || !b) {
        if (shmem_my_pe() == 0)
            printf("no device heap (SHMEM_DEVICE_BACKEND): skipped\n");
        shmem_finalize();
        return 77;
    }
    if (shmemx_stream_create(&s) != 0) {
        fprintf(stderr, "stream_bench: no stream\n");
        shmem_global_exit(1);
    }
    /* The first stream-ordered call starts the stream's lane. */
    shmemx_quiet_on_stream(s);
    shmemx_stream_synchronize(s);
    if (shmem_my_pe() == 0) {
        double hf = handoff(s, 0), lane = handoff(s, 1);

        printf("# hand-off: empty host function %.3f us, quiet_on_stream "
               "(host function + lane) %.3f us\n",
               hf * 1e6, lane * 1e6);
        printf("# device buffers, 2 PEs, back end %s, reduction path %s\n",
               getenv("SHMEM_DEVICE_BACKEND") ? getenv("SHMEM_DEVICE_BACKEND")
                                              : "?",
               path ? path : "gpu");
        printf(csv ? "bytes,put_us,put_st_us,get_us,get_st_us,put_MBs,"
                     "put_st_MBs,red_us,red_st_us,red_GBs\n"
                   : "%10s %9s %9s %9s %9s %10s %10s %10s %10s %8s\n",
               "bytes", "put_us", "put_st_us", "get_us", "get_st_us", "put_MBs",
               "put_st_MBs", "red_us", "red_st_us", "red_GBs");
    }
    for (size_t n = 8; n <= max; n *= 4) {
        double pb = rma_blocking(PUT, b, a, n),
               ps = rma_stream(PUT, b, a, n, s);
        double gb = rma_blocking(GET, b, a, n),
               gs = rma_stream(GET, b, a, n, s);
        double rb =
            reduce_time((double *)b, (double *)a, n / sizeof(double), s, 0);
        double rs =
            reduce_time((double *)b, (double *)a, n / sizeof(double), s, 1);

        if (shmem_my_pe() != 0)
            continue;
        printf(csv ? "%zu,%.3f,%.3f,%.3f,%.3f,%.1f,%.1f,%.3f,%.3f,%.3f\n"
                   : "%10zu %9.3f %9.3f %9.3f %9.3f %10.1f %10.1f %10.3f "
                     "%10.3f %8.3f\n",
               n, pb * 1e6, ps * 1e6, gb * 1e6, gs * 1e6, n / pb / 1e6,
               n / ps / 1e6, rb * 1e6, rs * 1e6, n / rb / 1e9);
        fflush(stdout);
    }
    shmemx_stream_destroy(s);
    shmem_free(b);
    shmem_free(a);
    shmem_finalize();
    return 0;
}
