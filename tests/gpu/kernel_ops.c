/*
 * The device API (include/shmemx_device.h, docs/gpu.md "Device-initiated
 * communication") on the mock: the kernels of kernel_bodies.h run as host
 * threads (2 blocks of 40 threads per PE, warps of 32 and 8; fewer with
 * GT_KERNEL_THREADS), through the
 * same peer table, ring and proxy as on a GPU, and the host checks what
 * they left in the device heaps:
 *
 *   rma      per-thread typed put and get to the right neighbour
 *   group    putmem/getmem _block and _warp
 *   pg       p and g of int and double
 *   amo      fetch_add, inc, add (64 and 32 bits) from every thread on
 *            every PE, each fetched value seen once; compare_swap has one
 *            winner per PE; swap; a double atomic set
 *   signal   putmem_signal around the ring, signal_wait_until, fence
 *   barrier  barrier_all by one thread, barrier_all_block by a block
 *   ptr      shmemd_ptr: an address for mapped PEs, NULL for proxied ones
 *   flood    with a small ring (SHMEM_KERNEL_RING=4 in its case) 80 threads
 *            post 48 atomics each at once: none is lost
 * GT_KERNEL_ROUTE=direct|proxy says which path the case must take. The
 * same file, included by kernel_ops.cu, runs the bodies as CUDA kernels
 * on a GPU (the bundle's tests/gpu/kernel_ops_cuda). With
 * argument bad_pe or bad_addr the program misuses the API instead and the
 * job must end with the proxy's message (tests/gpu/gpu.cases).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <shmem.h>
#include <shmemx.h>

#include "tests/gpu/gpu_test.h"
#include "tests/gpu/kernel_bodies.h"

#define KT_BLOCKS      2
#define KT_THREADS     40
#define KT_MAX_G       (KT_BLOCKS * KT_THREADS)
#define KT_GROUP_BYTES 4099

static int me, npes;
/* Threads per block (GT_KERNEL_THREADS, 1 to KT_THREADS: fewer where many
 * PEs share the cores, as across simulated nodes) and in the grid. */
static unsigned kt_threads = KT_THREADS, kt_g = KT_MAX_G;

#if SHMEMD_DEVICE_CODE
/* CUDA or HIP (kernel_ops.cu includes this file): the bodies as kernels. */
__global__ void k_rma(kt_args_t a)
{
    kt_rma(&a);
}
__global__ void k_group(kt_args_t a)
{
    kt_group(&a);
}
__global__ void k_pg(kt_args_t a)
{
    kt_pg(&a);
}
__global__ void k_amo(kt_args_t a)
{
    kt_amo(&a);
}
__global__ void k_signal(kt_args_t a)
{
    kt_signal(&a);
}
__global__ void k_barrier(kt_args_t a)
{
    kt_barrier(&a);
}
__global__ void k_ptr(kt_args_t a)
{
    kt_ptr(&a);
}
__global__ void k_flood(kt_args_t a)
{
    kt_flood(&a);
}
__global__ void k_bad_pe(kt_args_t a)
{
    kt_bad(&a, 1);
}
__global__ void k_bad_addr(kt_args_t a)
{
    kt_bad(&a, 2);
}
typedef void (*kt_kernel_t)(kt_args_t);

static int kt_device_sync(void)
{
#if defined(__HIPCC__)
    return hipDeviceSynchronize() == hipSuccess;
#else
    return cudaDeviceSynchronize() == cudaSuccess;
#endif
}
#else
/* Host code: the mock runs f(args) on host threads, args[0] = &a. */
static void k_rma(void **v)
{
    kt_rma((const kt_args_t *)v[0]);
}
static void k_group(void **v)
{
    kt_group((const kt_args_t *)v[0]);
}
static void k_pg(void **v)
{
    kt_pg((const kt_args_t *)v[0]);
}
static void k_amo(void **v)
{
    kt_amo((const kt_args_t *)v[0]);
}
static void k_signal(void **v)
{
    kt_signal((const kt_args_t *)v[0]);
}
static void k_barrier(void **v)
{
    kt_barrier((const kt_args_t *)v[0]);
}
static void k_ptr(void **v)
{
    kt_ptr((const kt_args_t *)v[0]);
}
static void k_flood(void **v)
{
    kt_flood((const kt_args_t *)v[0]);
}
static void k_bad_pe(void **v)
{
    kt_bad((const kt_args_t *)v[0], 1);
}
static void k_bad_addr(void **v)
{
    kt_bad((const kt_args_t *)v[0], 2);
}
typedef void (*kt_kernel_t)(void **);

/* The mock's launch returns when the kernel has ended. */
static int kt_device_sync(void)
{
    return 1;
}
#endif

static double kt_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Kernels built as host code run only on the mock, GPU kernels never on
 * it (the bundle's run-gpu-tests.sh runs the mock's cases on cuda too). */
static int kt_backend_matches(void)
{
    const char *b = getenv("SHMEM_DEVICE_BACKEND");
    int mock = b && strcmp(b, "mock") == 0;

    return mock == !SHMEMD_DEVICE_CODE;
}

static int kt_skip_backend(void)
{
    if (me == 0)
        printf("kernels built as %s code do not run on back end %s: "
               "skipped\n",
               SHMEMD_DEVICE_CODE ? "GPU" : "host",
               getenv("SHMEM_DEVICE_BACKEND"));
    fflush(stdout);
    shmem_finalize();
    return 77;
}

/* Runs fn on every PE and waits for it, then a host barrier: every PE's
 * kernel has ended before anyone checks. */
static void launch(kt_kernel_t fn, kt_args_t *a)
{
    unsigned grid[3] = {KT_BLOCKS, 1, 1}, block[3] = {kt_threads, 1, 1};
    void *args[1] = {a};

    shmem_barrier_all();
    CHECK(shmemx_collective_launch((const void *)fn, grid, block, args, 0,
                                   NULL) == 0);
    CHECK(kt_device_sync());
    if (getenv("GT_KERNEL_TRACE")) /* where the time goes, per PE */
        fprintf(stderr, "PE %d: kernel %p ended at %.3f s\n", me,
                (const void *)fn, kt_now());
    shmem_barrier_all();
}

static void *dev(size_t bytes)
{
    void *p = shmemx_calloc_device(1, bytes);

    CHECK_MSG(p != NULL, "shmemx_calloc_device(%zu) failed", bytes);
    return p;
}

/* Host copies of this PE's device memory (the device transport's copy). */
static void rd(void *host, const void *d, size_t n)
{
    shmem_getmem(host, d, n, me);
}

static void wr(void *d, const void *host, size_t n)
{
    shmem_putmem(d, host, n, me);
}

static void zero(void *d, size_t n)
{
    void *z = calloc(1, n);

    wr(d, z, n);
    free(z);
}

static void alloc_args(kt_args_t *a)
{
    size_t chunk = (size_t)kt_g * KT_CHUNK * sizeof(long);

    a->src = (long *)dev(chunk);
    a->dst = (long *)dev(chunk);
    a->got = (long *)dev(chunk);
    a->bytes = (char *)dev(5 * KT_GROUP_BYTES);
    a->nbytes = KT_GROUP_BYTES;
    a->ctr64 = (uint64_t *)dev(4 * sizeof(uint64_t));
    a->ctr32 = (unsigned *)dev(4 * sizeof(unsigned));
    a->fetched =
        (uint64_t *)dev((size_t)kt_g * KT_AMO_ROUNDS * npes * sizeof(uint64_t));
    a->winners = (int *)dev(kt_g * sizeof(int));
    a->sig = (uint64_t *)dev(4 * sizeof(uint64_t));
    a->slots = (long *)dev(KT_BARRIER_ROUNDS * sizeof(long));
    a->ptr_ok = (long *)dev((size_t)npes * sizeof(long));
    a->dbl = (double *)dev((kt_g + 1) * sizeof(double));
    a->ints = (int *)dev(kt_g * sizeof(int));
}

static void check_rma(kt_args_t *a)
{
    size_t n = (size_t)kt_g * KT_CHUNK;
    long *src = (long *)gt_xmalloc(n * sizeof(long));
    long *dst = (long *)gt_xmalloc(n * sizeof(long));
    long *got = (long *)gt_xmalloc(n * sizeof(long));
    int left = (me + npes - 1) % npes, right = (me + 1) % npes;

    for (unsigned g = 0; g < kt_g; g++)
        for (unsigned i = 0; i < KT_CHUNK; i++)
            src[g * KT_CHUNK + i] = kt_value(me, g, i);
    wr(a->src, src, n * sizeof(long));
    launch(k_rma, a);
    rd(dst, a->dst, n * sizeof(long));
    rd(got, a->got, n * sizeof(long));
    for (unsigned g = 0; g < kt_g; g++)
        for (unsigned i = 0; i < KT_CHUNK; i++) {
            size_t k = g * KT_CHUNK + i;

            CHECK_MSG(dst[k] == kt_value(left, g, i),
                      "rma: put: thread %u element %u: %ld", g, i, dst[k]);
            CHECK_MSG(got[k] == kt_value(right, g, i),
                      "rma: get: thread %u element %u: %ld", g, i, got[k]);
        }
    free(src);
    free(dst);
    free(got);
}

static void check_group(kt_args_t *a)
{
    size_t nb = KT_GROUP_BYTES, at;
    unsigned char *b = (unsigned char *)gt_xmalloc(5 * nb);
    int left = (me + npes - 1) % npes;

    gt_fill(b, nb, me, 1);
    wr(a->bytes, b, nb);
    launch(k_group, a);
    rd(b, a->bytes, 5 * nb);
    CHECK_MSG((at = gt_diff(b + nb, nb, left, 1)) == nb,
              "putmem_block: byte %zu", at);
    CHECK_MSG((at = gt_diff(b + 2 * nb, nb, left, 1)) == nb,
              "putmem_warp: byte %zu", at);
    CHECK_MSG((at = gt_diff(b + 3 * nb, nb, me, 1)) == nb,
              "getmem_block: byte %zu", at);
    CHECK_MSG((at = gt_diff(b + 4 * nb, nb, me, 1)) == nb,
              "getmem_warp: byte %zu", at);
    free(b);
}

static void check_pg(kt_args_t *a)
{
    long got[KT_MAX_G];
    int ints[KT_MAX_G], left = (me + npes - 1) % npes;
    double dbl[KT_MAX_G];

    launch(k_pg, a);
    rd(got, a->got, sizeof(got));
    rd(ints, a->ints, sizeof(ints));
    rd(dbl, a->dbl, sizeof(dbl));
    for (unsigned g = 0; g < kt_g; g++) {
        CHECK_MSG(got[g] == 1, "p/g: thread %u read back another value", g);
        CHECK_MSG(ints[g] == (int)kt_value(left, g, 7) &&
                      dbl[g] == (double)g + 0.25 * left,
                  "p: thread %u: %d %g", g, ints[g], dbl[g]);
    }
}

#include "tests/gpu/kernel_checks.h"

int main(int argc, char **argv)
{
    kt_args_t a;
    const char *t = getenv("GT_KERNEL_THREADS");

    if (t && atoi(t) >= 1 && atoi(t) <= KT_THREADS)
        kt_threads = (unsigned)atoi(t);
    kt_g = KT_BLOCKS * kt_threads;
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (!shmemx_malloc_device(64))
        return gt_skip_no_device_heap();
    if (!kt_backend_matches())
        return kt_skip_backend();
    CHECK(shmemd_init() == 0);
    alloc_args(&a);
    if (argc > 1 && strcmp(argv[1], "bad_pe") == 0)
        launch(k_bad_pe, &a);
    if (argc > 1 && strcmp(argv[1], "bad_addr") == 0)
        launch(k_bad_addr, &a);
    check_ptr(&a);
    check_rma(&a);
    check_group(&a);
    check_pg(&a);
    check_amo(&a);
    check_signal(&a);
    check_barrier(&a);
    check_flood(&a);
    return check_pes_end("kernel_ops");
}
