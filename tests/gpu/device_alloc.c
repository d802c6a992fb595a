/*
 * The routines that allocate device memory (shmemx.h): shmemx_malloc_device,
 * shmemx_calloc_device and shmemx_align_device give blocks of the device
 * heap (calloc's zeroed, align's aligned) that a put and a get through the
 * public API reach, and shmem_free takes back; bad arguments (an alignment
 * that is no power of two or too large, an overflowing count * size, size
 * 0) give NULL on every PE and leave the heap usable. Without a device heap
 * (SHMEM_DEVICE_BACKEND=none) every call gives NULL. Host memory stays host
 * memory: shmem_malloc_with_hints with the bit the old device hint used
 * gives a block of the host heap also when a device heap exists.
 */
#include "config.h"

#include <stdint.h>

#include "core/heap/device_heap.h"
#include "core/segment.h"
#include "shmem.h"
#include "shmemx.h"

#include "gpu_test.h"

#define N 4096

static int me, npes, right, left;

static int in_seg(const void *p, int seg)
{
    size_t off;

    return p && shmi_seg_lookup(p, 1, &off) == seg;
}

/* Put this PE's pattern into the right neighbour's block, get the own block
 * back (written by the left neighbour) through the public API. */
static void round_trip(const char *what, unsigned char *d, size_t n, int r)
{
    unsigned char *h = gt_xmalloc(n), *o = gt_xmalloc(n);

    gt_fill(h, n, me, r);
    shmem_barrier_all();
    shmem_putmem(d, h, n, right);
    shmem_barrier_all();
    memset(o, 0, n);
    shmem_getmem(o, d, n, me);
    CHECK_MSG(gt_diff(o, n, left, r) == n, "%s: put from PE %d", what, left);
    memset(o, 0, n);
    shmem_getmem(o, d, n, left);
    CHECK_MSG(gt_diff(o, n, (left + npes - 1) % npes, r) == n,
              "%s: get from PE %d", what, left);
    free(h);
    free(o);
}

static void test_malloc(void)
{
    unsigned char *d = shmemx_malloc_device(N);

    CHECK_MSG(in_seg(d, SHMI_SEG_DEVICE), "shmemx_malloc_device: device heap");
    if (d)
        round_trip("shmemx_malloc_device", d, N, 1);
    shmem_free(d);
    CHECK_MSG(shmemx_malloc_device(0) == NULL, "size 0 gives NULL");
}

/* A block dirtied and freed, then calloc'ed again: zeroes. */
static void test_calloc(void)
{
    unsigned char *d = shmemx_malloc_device(N), *z;
    unsigned char *o = gt_xmalloc(N);

    if (d)
        round_trip("dirty", d, N, 2);
    shmem_free(d);
    z = shmemx_calloc_device(N / 8, 8);
    CHECK_MSG(in_seg(z, SHMI_SEG_DEVICE), "shmemx_calloc_device: device heap");
    if (z) {
        memset(o, 0xa5, N);
        shmem_getmem(o, z, N, me);
        CHECK_MSG(o[0] == 0 && memcmp(o, o + 1, N - 1) == 0,
                  "shmemx_calloc_device gives zeroes");
        round_trip("shmemx_calloc_device", z, N, 3);
    }
    shmem_free(z);
    CHECK_MSG(shmemx_calloc_device(0, 8) == NULL &&
                  shmemx_calloc_device(8, 0) == NULL,
              "count or size 0 gives NULL");
    CHECK_MSG(shmemx_calloc_device(SIZE_MAX / 4, 8) == NULL,
              "an overflowing count * size gives NULL");
    free(o);
}

/* Each alignment after pads of 0 to 4 grains (64 bytes), so that the block
 * would start at every offset modulo the largest alignment if the routine
 * ignored its argument. */
static void test_align(void)
{
    size_t max = shmi_device_heap_max_align();

    for (size_t a = 1; a <= max; a *= 2)
        for (size_t pad = 0; pad <= 4; pad++) {
            void *p = pad ? shmemx_malloc_device(pad * 64) : NULL;
            unsigned char *d = shmemx_align_device(a, 100);

            CHECK_MSG(in_seg(d, SHMI_SEG_DEVICE) && (uintptr_t)d % a == 0,
                      "shmemx_align_device(%zu) after %zu bytes: %p", a,
                      pad * 64, (void *)d);
            if (d && a == max && pad == 1)
                round_trip("shmemx_align_device", d, 100, 4);
            shmem_free(d);
            shmem_free(p);
        }
    CHECK_MSG(shmemx_align_device(3, 100) == NULL, "alignment 3 gives NULL");
    CHECK_MSG(shmemx_align_device(0, 100) == NULL, "alignment 0 gives NULL");
    CHECK_MSG(shmemx_align_device(2 * max, 100) == NULL,
              "alignment %zu (above %zu) gives NULL", 2 * max, max);
}

/* The device heap still works after the refusals; host memory stays host
 * memory whatever the hints. */
static void test_after(void)
{
    void *d = shmemx_malloc_device(N);
    void *h = shmem_malloc_with_hints(N, 1L << 16);
    void *m = shmem_malloc_with_hints(N, -1);

    CHECK_MSG(in_seg(d, SHMI_SEG_DEVICE), "device heap usable afterwards");
    CHECK_MSG(in_seg(h, SHMI_SEG_HEAP) && in_seg(m, SHMI_SEG_HEAP),
              "hints give host heap memory (%p, %p)", h, m);
    shmem_free(m);
    shmem_free(h);
    shmem_free(d);
}

/* Without a device heap: NULL everywhere, host allocation unaffected. */
static int test_none(void)
{
    void *h = shmem_malloc_with_hints(N, -1);

    CHECK_MSG(shmemx_malloc_device(N) == NULL, "malloc_device without heap");
    CHECK_MSG(shmemx_calloc_device(N, 1) == NULL, "calloc_device without heap");
    CHECK_MSG(shmemx_align_device(64, N) == NULL, "align_device without heap");
    CHECK_MSG(in_seg(h, SHMI_SEG_HEAP), "hints give host memory");
    shmem_free(h);
    return check_pes_end("device_alloc (no device heap)");
}

int main(void)
{
    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    if (!shmi_device_backend())
        return test_none();
    test_malloc();
    test_calloc();
    test_align();
    test_after();
    return check_pes_end("device_alloc");
}
