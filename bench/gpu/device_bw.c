/*
 * Put bandwidth by message size into the device heap versus the host heap.
 *
 *   SHMEM_DEVICE_BACKEND=mock oshrun -n 2 bench/gpu/device_bw [max_bytes]
 *
 * PE 0 puts to PE 1 and prints one row per size (MB/s, 1 MB = 1e6 bytes):
 *   host       shmem_putmem host -> host heap (the load/store path)
 *   h2dev      host buffer -> PE 1's device heap (IPC mapping, H2D copy)
 *   dev2dev    PE 0's device heap -> PE 1's device heap (D2D copy)
 *   dev2host   PE 0's device heap -> PE 1's host heap (D2H copy into the
 *              mapped heap; staged through bounce buffers with SHMEM_LOCAL=0)
 * Every column is shmem_putmem, which the device transport
 * (transports/device) carries where either side is device memory. With the
 * mock device every copy also pays two mprotect calls per side: its numbers
 * show the cost of the path's logic and of that window, not of a GPU.
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

enum { COL_HOST, COL_H2DEV, COL_DEV2DEV, COL_DEV2HOST, NCOL };

/* One put of n bytes in the way column c measures. */
static void put_once(int c, char *hsym, char *dsym, char *hsrc, size_t n)
{
    switch (c) {
    case COL_HOST: shmem_putmem(hsym, hsrc, n, 1); break;
    case COL_H2DEV: shmem_putmem(dsym, hsrc, n, 1); break;
    case COL_DEV2DEV: shmem_putmem(dsym, dsym, n, 1); break;
    default: shmem_putmem(hsym, dsym, n, 1);
    }
}

static double rate(int c, char *hsym, char *dsym, char *hsrc, size_t n)
{
    /* About 64 MB per point, between 4 and 2000 puts: short runs. */
    size_t iters = (64u << 20) / n;
    double t;

    iters = iters < 4 ? 4 : iters > 2000 ? 2000 : iters;
    put_once(c, hsym, dsym, hsrc, n); /* warm-up */
    shmem_quiet();
    t = now();
    for (size_t i = 0; i < iters; i++)
        put_once(c, hsym, dsym, hsrc, n);
    shmem_quiet();
    t = now() - t;
    return (double)n * (double)iters / t / 1e6;
}

int main(int argc, char **argv)
{
    size_t max = argc > 1 ? strtoull(argv[1], NULL, 0) : (size_t)4 << 20;
    const char *backend = getenv("SHMEM_DEVICE_BACKEND");
    char *hsym, *dsym, *hsrc;

    shmem_init();
    /* No device heap: shmemx_malloc_device gives NULL on every PE. */
    dsym = shmem_n_pes() < 2 ? NULL : shmemx_malloc_device(max);
    if (dsym == NULL) {
        if (shmem_my_pe() == 0)
            printf("needs 2 PEs and a device heap "
                   "(SHMEM_DEVICE_BACKEND=mock): skipped\n");
        fflush(stdout);
        shmem_finalize();
        return 77;
    }
    hsym = shmem_malloc(max);
    hsrc = malloc(max);
    if (!hsym || !hsrc) {
        fprintf(stderr, "device_bw: cannot allocate %zu bytes\n", max);
        shmem_global_exit(1);
    }
    memset(hsrc, 1, max);
    if (shmem_my_pe() == 0)
        printf("%10s %12s %12s %12s %12s   (MB/s, back end %s)\n", "bytes",
               "host", "h2dev", "dev2dev", "dev2host",
               backend ? backend : "auto");
    for (size_t n = 8; n <= max; n *= 4) {
        if (shmem_my_pe() == 0) {
            printf("%10zu", n);
            for (int c = 0; c < NCOL; c++)
                printf(" %12.1f", rate(c, hsym, dsym, hsrc, n));
            printf("\n");
            fflush(stdout);
        }
        shmem_barrier_all();
    }
    shmem_free(dsym);
    shmem_free(hsym);
    free(hsrc);
    shmem_finalize();
    return 0;
}
