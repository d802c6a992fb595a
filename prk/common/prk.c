/*
 * Shared helpers of the Parallel Research Kernels (see prk.h).
 */
/* clock_gettime, posix_memalign and madvise's MADV_HUGEPAGE */
#define _DEFAULT_SOURCE
#include "prk.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "prk_comm.h"

/* Arrays from this size up are aligned to, and asked to be backed by,
 * 2 MiB pages: the kernels sweep them with large strides (the transpose
 * walks A across columns), where 4 KiB pages cost a TLB miss per access. */
#define PRK_HUGE_BYTES (2UL << 20)

double prk_wtime(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int prk_parse_long(const char *text, long *out)
{
    char *end;
    long value;

    if (text == NULL || *text == '\0')
        return -1;
    errno = 0;
    value = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = value;
    return 0;
}

long prk_block(long n, int parts, int k, long *start)
{
    long base = n / parts, extra = n % parts;

    if (k < extra) {
        *start = k * (base + 1);
        return base + 1;
    }
    *start = extra * (base + 1) + (k - extra) * base;
    return base;
}

long prk_block_max(long n, int parts)
{
    return n / parts + (n % parts != 0);
}

int prk_agree_error(int local_err, const char *msg)
{
    int any = prk_comm_max_int(local_err != 0);

    if (any && prk_comm_rank() == 0) {
        printf("ERROR: %s\n", local_err ? msg : "a check failed on another PE");
        fflush(stdout);
    }
    /* No PE leaves (and exits non-zero, which makes a launcher stop the
     * job) before the message is out. */
    if (any)
        prk_comm_barrier();
    return any;
}

void prk_banner(const char *title)
{
    if (prk_comm_rank() != 0)
        return;
    printf("Parallel Research Kernels version %s\n", PRK_VERSION);
    printf("%s %s\n", prk_comm_model(), title);
    fflush(stdout);
}

double prk_avgtime(double local_elapsed, long iterations)
{
    return prk_comm_max_double(local_elapsed) / (double)iterations;
}

double prk_timed_sweeps(long iterations, void (*sweep)(void *ctx, long iter),
                        void *ctx)
{
    double t0 = 0.0;

    for (long iter = 0; iter <= iterations; iter++) {
        if (iter == 1) {
            prk_comm_barrier();
            t0 = prk_wtime();
        }
        sweep(ctx, iter);
    }
    return prk_wtime() - t0;
}

void *prk_alloc(size_t count, size_t size)
{
    size_t bytes;
    void *p;

    if (size != 0 && count > SIZE_MAX / size)
        return NULL;
    bytes = count * size == 0 ? 1 : count * size;
    if (bytes < PRK_HUGE_BYTES)
        return malloc(bytes);
    if (posix_memalign(&p, PRK_HUGE_BYTES, bytes) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    /* Advice only: where the kernel has no transparent huge pages for
     * this memory the call fails and nothing changes. */
    (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}
