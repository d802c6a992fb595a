/*
 * The host side of bench/gpu/kernel_bench, shared by its two drivers
 * (kernel_bench.c: the kernels as host code on the mock back end;
 * kernel_bench.cu: CUDA or HIP kernels). The driver includes
 * kernel_bench_body.h, defines its kernels and, before including this
 * file:
 *
 *   KB_BLOCK_THREADS      threads of a KB_BLOCK launch;
 *   KB_MOCK_BUILD         1 where the kernels are host code (the mock's),
 *                         0 where they are GPU code;
 *   kb_kernel(latency)    the kernel to launch (a host function on the
 *                         mock, a __global__ function on a GPU) for the
 *                         latency (1) or bandwidth (0) test.
 *
 * Both kernels take one kb_args_t, by value on a GPU (args[0] points to
 * it, as cudaLaunchKernel's array) and by pointer on the mock (args[0]
 * again): one launch call serves both.
 */
#ifndef KERNEL_BENCH_HOST_H
#define KERNEL_BENCH_HOST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KB_MIN_BYTES 8
#define KB_MAX_BYTES (1u << 20)
#define KB_NSIZES    64 /* more than log2 of any size_t */

static const char *const kb_mode_names[KB_NMODES] = {"thread", "warp", "block"};
static const char *const kb_mode_routines[KB_NMODES] = {
    "shmemd_putmem", "shmemd_putmem_warp", "shmemd_putmem_block"};

/* What the command line asked for. */
typedef struct kb_opts {
    int csv;        /* -c: one CSV table instead of OSU-style sections */
    uint32_t iters; /* -i: timed iterations (0: by size, kb_iters) */
    size_t max;     /* largest message, bytes */
} kb_opts_t;

/* One launch's results of every mode and size. */
typedef struct kb_results {
    size_t sizes[KB_NSIZES];
    int nsizes;
    double lat_us[KB_NMODES][KB_NSIZES];
    double bw_mbs[KB_NMODES][KB_NSIZES];
} kb_results_t;

static void kb_usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [-c] [-i ITERS] [MAX_BYTES]\n"
            "  device-initiated put from PE 0 to PE 1, %u to MAX_BYTES "
            "(default %u) bytes\n"
            "  -c  CSV; -i  timed round trips (latency) and windows "
            "(bandwidth) per size\n",
            prog, KB_MIN_BYTES, KB_MAX_BYTES);
}

static int kb_parse(int argc, char **argv, kb_opts_t *o)
{
    int c;

    o->csv = 0;
    o->iters = 0;
    o->max = KB_MAX_BYTES;
    while ((c = getopt(argc, argv, "ci:h")) != -1) {
        if (c == 'c')
            o->csv = 1;
        else if (c == 'i' && atoi(optarg) > 0)
            o->iters = (uint32_t)atoi(optarg);
        else
            return -1;
    }
    if (optind < argc)
        o->max = strtoull(argv[optind++], NULL, 0);
    return optind == argc && o->max >= KB_MIN_BYTES ? 0 : -1;
}

/*
 * Iterations per size. The mock runs each GPU thread as a host thread
 * (a block of them on 2 cores trades the processor for every barrier),
 * so it gets few: enough to check the path and see its cost, not to
 * measure a GPU.
 */
static void kb_iters(const kb_opts_t *o, size_t n, kb_args_t *a, int latency)
{
    uint32_t big = n > (64u << 10);

    if (KB_MOCK_BUILD) {
        a->iters = latency ? (big ? 4 : 16) : 2;
        a->warmup = 1;
        a->window = 4;
    } else {
        a->iters = latency ? (big ? 100 : 1000) : (big ? 10 : 50);
        a->warmup = latency ? 50 : 2;
        a->window = 64;
    }
    if (o->iters)
        a->iters = o->iters;
}

static unsigned kb_threads(int mode)
{
    return mode == KB_THREAD ? 1 : mode == KB_WARP ? 32 : KB_BLOCK_THREADS;
}

/* One launch on every PE; PE 0 returns the seconds its kernel timed. */
static double kb_run(kb_args_t *a, int latency)
{
    unsigned grid[3] = {1, 1, 1}, block[3] = {kb_threads(a->mode), 1, 1};
    void *args[] = {a};
    double secs = 0;

    shmem_barrier_all(); /* both PEs leave the previous size together */
    if (shmemx_collective_launch(kb_kernel(latency), grid, block, args, 0,
                                 NULL) != 0 ||
        shmemx_stream_synchronize(NULL) != 0 ||
        shmemx_memcpy_on_stream(&secs, a->elapsed, sizeof(secs), NULL) != 0 ||
        shmemx_stream_synchronize(NULL) != 0) {
        fprintf(stderr, "kernel_bench: PE %d: %s launch failed\n",
                shmem_my_pe(), latency ? "latency" : "bandwidth");
        shmem_global_exit(1);
    }
    return secs;
}

/* Every size of every mode: latency (one way, half the round trip) and
 * bandwidth (1 MB = 1e6 bytes). */
static void kb_measure(const kb_opts_t *o, kb_args_t *a, kb_results_t *r)
{
    for (int m = 0; m < KB_NMODES; m++) {
        for (int s = 0; s < r->nsizes; s++) {
            size_t n = r->sizes[s];
            double t;

            a->mode = (uint32_t)m;
            a->nbytes = n;
            kb_iters(o, n, a, 1);
            t = kb_run(a, 1);
            a->base += a->warmup + a->iters;
            r->lat_us[m][s] = t * 1e6 / (2.0 * a->iters);
            kb_iters(o, n, a, 0);
            t = kb_run(a, 0);
            r->bw_mbs[m][s] =
                t > 0 ? (double)n * a->window * a->iters / t / 1e6 : 0;
        }
    }
}

static void kb_print(const kb_opts_t *o, const kb_results_t *r,
                     const char *backend, const char *path)
{
    if (o->csv) {
        printf("mode,bytes,latency_us,bandwidth_MBs\n");
        for (int m = 0; m < KB_NMODES; m++)
            for (int s = 0; s < r->nsizes; s++)
                printf("%s,%zu,%.3f,%.2f\n", kb_mode_names[m], r->sizes[s],
                       r->lat_us[m][s], r->bw_mbs[m][s]);
        return;
    }
    printf("# Weft device-initiated put, PE 0 -> PE 1 "
           "(SHMEM_DEVICE_BACKEND=%s, %s)\n",
           backend, path);
    for (int m = 0; m < KB_NMODES; m++) {
        printf("# Weft device-initiated put latency, per %s (%s + "
               "shmemd_putmem_signal, %u thread%s)\n",
               kb_mode_names[m], kb_mode_routines[m], kb_threads(m),
               kb_threads(m) == 1 ? "" : "s");
        printf("%-10s %12s\n", "# size", "latency_us");
        for (int s = 0; s < r->nsizes; s++)
            printf("%-10zu %12.2f\n", r->sizes[s], r->lat_us[m][s]);
        printf("# Weft device-initiated put bandwidth, per %s (%s, "
               "shmemd_quiet per window)\n",
               kb_mode_names[m], kb_mode_routines[m]);
        printf("%-10s %14s\n", "# size", "bandwidth_MB/s");
        for (int s = 0; s < r->nsizes; s++)
            printf("%-10zu %14.2f\n", r->sizes[s], r->bw_mbs[m][s]);
    }
}

/* The path the kernels' puts take to PE 1, as the device state says. */
static const char *kb_path(void)
{
    shmemd_state_t st;

    if (shmemx_kernel_state(&st, sizeof(st)) != 0)
        return "unknown path";
    return st.n_proxied > 0 ? "through the proxy" : "load/store (IPC)";
}

/* The back end this build's kernels run on, or NULL with the reason why
 * this one cannot (a skip, not a failure: run-gpu-tests.sh runs every
 * benchmark with one back end). */
static const char *kb_backend(const char **why)
{
    const char *b = getenv("SHMEM_DEVICE_BACKEND");

    b = b ? b : "none";
    *why = KB_MOCK_BUILD ? "its kernels are host code: "
                           "SHMEM_DEVICE_BACKEND=mock only"
                         : "its kernels are GPU code: not on the mock";
    if ((strcmp(b, "mock") == 0) != KB_MOCK_BUILD)
        return NULL;
    return b;
}

/* Allocates the buffers; 0, or 77 (skip) without a device heap. */
static int kb_setup(size_t max, kb_args_t *a)
{
    memset(a, 0, sizeof(*a));
    a->dst = (char *)shmemx_calloc_device(1, max);
    a->src = (char *)shmemx_calloc_device(1, max);
    a->sig = (uint64_t *)shmemx_calloc_device(1, sizeof(uint64_t));
    a->elapsed = (double *)shmemx_calloc_device(1, sizeof(double));
    if (!a->dst || !a->src || !a->sig || !a->elapsed)
        return 77;
    if (shmemd_init() != 0) {
        fprintf(stderr, "kernel_bench: PE %d: shmemd_init failed\n",
                shmem_my_pe());
        return 1;
    }
#if defined(__HIPCC__)
    int khz = 100000; /* gfx9's constant 100 MHz, for HIP without the query */

#if HIP_VERSION >= 60000000
    if (hipDeviceGetAttribute(&khz, hipDeviceAttributeWallClockRate, 0) !=
            hipSuccess ||
        khz <= 0)
        return 1;
#endif
    a->clock_khz = (uint64_t)khz;
#endif
    return 0;
}

static int kb_main(int argc, char **argv)
{
    kb_opts_t o;
    kb_args_t a;
    kb_results_t r = {{0}, 0, {{0}}, {{0}}};
    const char *why, *backend = kb_backend(&why);
    int ret;

    if (kb_parse(argc, argv, &o) != 0) {
        kb_usage(argv[0]);
        return 2;
    }
    shmem_init();
    ret = !backend ? 77 : shmem_n_pes() < 2 ? 2 : kb_setup(o.max, &a);
    if (ret != 0) {
        if (shmem_my_pe() == 0 && !backend)
            printf("kernel_bench: %s: skipped\n", why);
        else if (shmem_my_pe() == 0)
            printf(ret == 77  ? "no device heap: skipped\n"
                   : ret == 2 ? "kernel_bench needs 2 PEs\n"
                              : "kernel_bench: set-up failed\n");
        shmem_finalize();
        return ret;
    }
    for (size_t n = KB_MIN_BYTES; n <= o.max && r.nsizes < KB_NSIZES; n *= 2)
        r.sizes[r.nsizes++] = n;
    kb_measure(&o, &a, &r);
    if (shmem_my_pe() == 0)
        kb_print(&o, &r, backend, kb_path());
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}

#endif /* KERNEL_BENCH_HOST_H */
