/*
 * Device symmetric memory through the public API only: shmem_putmem,
 * shmem_getmem (blocking, nbi, strided), atomics and put-with-signal with
 * device memory as target, source or destination, checked by getting the
 * data back into host memory. Needs the core hooks of docs/gpu.md; run with
 * SHMEM_DEVICE_BACKEND=mock; skipped without a device heap.
 */
#include <shmem.h>
#include <shmemx.h>

#include "gpu_test.h"

#define BIG ((size_t)3 * 1024 * 1024 + 777)

static int me, npes, right, left;

/* Host copy of n bytes of own device memory, through a get from self. */
static unsigned char *readback(const void *dev, size_t n)
{
    unsigned char *h = gt_xmalloc(n);

    shmem_getmem(h, dev, n, me);
    return h;
}

static void test_rma(size_t n, int r)
{
    unsigned char *h = gt_xmalloc(n), *o;
    char *dsrc = shmemx_malloc_device(n);
    char *ddst = shmemx_malloc_device(n);
    unsigned char *hsym = shmem_malloc(n);
    size_t d;

    CHECK_MSG(dsrc && ddst && hsym, "buffers of %zu bytes", n);
    gt_fill(h, n, me, r);
    shmem_putmem(dsrc, h, n, me); /* host -> own device heap */
    shmem_barrier_all();
    shmem_putmem(ddst, dsrc, n, right);     /* device -> device */
    shmem_putmem_nbi(hsym, dsrc, n, right); /* device -> host heap */
    shmem_quiet();
    shmem_barrier_all();
    o = readback(ddst, n);
    CHECK_MSG((d = gt_diff(o, n, left, r)) == n, "device put, byte %zu", d);
    CHECK_MSG((d = gt_diff(hsym, n, left, r)) == n,
              "device-to-host put, byte %zu", d);
    free(o);
    shmem_getmem_nbi(ddst, hsym, n, right); /* host heap -> device */
    shmem_quiet();
    o = readback(ddst, n);
    CHECK_MSG((d = gt_diff(o, n, me, r)) == n, "get into device, byte %zu", d);
    memset(o, 0, n);
    shmem_getmem(o, dsrc, n, right); /* device heap -> host */
    CHECK_MSG((d = gt_diff(o, n, right, r)) == n, "device get, byte %zu", d);
    free(o);
    shmem_barrier_all();
    shmem_free(hsym);
    shmem_free(ddst);
    shmem_free(dsrc);
    free(h);
}

/* Typed, several MiB, checked element by element: host -> remote device
 * heap, remote device heap -> own device heap (get), read back. */
static void test_typed_large(void)
{
    const size_t ne = (size_t)3 << 18; /* 6 MiB of longs */
    long *h = gt_xmalloc(ne * sizeof(long)), *o;
    long *dv = shmemx_malloc_device(ne * sizeof(long));
    long *dw = shmemx_malloc_device(ne * sizeof(long));
    size_t bad = 0, first = ne;

    CHECK_MSG(dv && dw, "device arrays of %zu longs", ne);
    for (size_t i = 0; i < ne; i++)
        h[i] = (long)(i * 2654435761u) ^ ((long)me << 40);
    shmem_barrier_all();
    shmem_long_put(dv, h, ne, right);
    shmem_barrier_all();
    shmem_long_get(dw, dv, ne, right); /* right's copy holds my values */
    o = (long *)readback(dw, ne * sizeof(long));
    for (size_t i = 0; i < ne; i++)
        if (o[i] != h[i]) {
            bad++;
            first = first < i ? first : i;
        }
    CHECK_MSG(bad == 0, "%zu of %zu longs wrong, first at %zu", bad, ne, first);
    free(o);
    o = (long *)readback(dv, ne * sizeof(long));
    bad = 0;
    for (size_t i = 0; i < ne; i++)
        bad += o[i] != ((long)(i * 2654435761u) ^ ((long)left << 40));
    CHECK_MSG(bad == 0, "%zu of %zu longs put by PE %d wrong", bad, ne, left);
    free(o);
    shmem_barrier_all();
    shmem_free(dw);
    shmem_free(dv);
    free(h);
}

static void test_strided(void)
{
    enum { NE = 64 };
    int *dv = shmemx_malloc_device(2 * NE * sizeof(int));
    int src[NE], out[2 * NE];

    for (int i = 0; i < NE; i++)
        src[i] = me * 1000 + i;
    shmem_barrier_all();
    shmem_int_iput(dv, src, 2, 1, NE, right);
    shmem_barrier_all();
    shmem_int_iget(out, dv, 1, 2, NE, me);
    for (int i = 0; i < NE; i++)
        CHECK_MSG(out[i] == left * 1000 + i, "iput element %d: %d", i, out[i]);
    shmem_barrier_all();
    shmem_free(dv);
}

static void test_amo(void)
{
    enum { K = 100 };
    uint64_t *ctr = shmemx_malloc_device(64);
    int *iw = (int *)(ctr + 1);
    uint64_t v, cmp = (uint64_t)K * npes;

    shmem_barrier_all();
    for (int k = 0; k < K; k++)
        for (int pe = 0; pe < npes; pe++)
            shmem_uint64_atomic_fetch_add(ctr, 1, pe);
    shmem_barrier_all();
    v = shmem_uint64_atomic_fetch(ctr, me);
    CHECK_MSG(v == cmp, "device counter %llu", (unsigned long long)v);
    shmem_barrier_all();
    (void)shmem_uint64_atomic_compare_swap(ctr, cmp, 1000 + (uint64_t)me, 0);
    shmem_int_atomic_set(iw, 40 + me, right);
    shmem_int_atomic_inc(iw, right);
    shmem_barrier_all();
    v = shmem_uint64_atomic_fetch(ctr, 0);
    CHECK_MSG(v >= 1000 && v < 1000 + (uint64_t)npes, "cswap %llu",
              (unsigned long long)v);
    CHECK_MSG(shmem_int_atomic_fetch(iw, me) == 41 + left, "int set+inc");
    shmem_barrier_all();
    shmem_free(ctr);
}

static void test_signal(size_t n)
{
    unsigned char *h = gt_xmalloc(n), *o;
    char *dsrc = shmemx_malloc_device(n);
    char *ddst = shmemx_malloc_device(n);
    uint64_t *dsig = shmemx_malloc_device(8);
    uint64_t *hsig = shmem_calloc(1, 8);
    unsigned char *hdst = shmem_malloc(n);

    gt_fill(h, n, me, 5);
    shmem_putmem(dsrc, h, n, me);
    shmem_barrier_all();
    shmem_putmem_signal(ddst, dsrc, n, dsig, 2, SHMEM_SIGNAL_ADD, right);
    CHECK_MSG(shmem_signal_wait_until(dsig, SHMEM_CMP_EQ, 2) == 2,
              "device signal");
    o = readback(ddst, n);
    CHECK_MSG(gt_diff(o, n, left, 5) == n, "data before the device signal");
    free(o);
    shmem_barrier_all(); /* every PE saw 2 before anyone adds more */
    shmem_uint64_atomic_add(dsig, 1, right); /* signal_add on device */
    CHECK_MSG(shmem_signal_wait_until(dsig, SHMEM_CMP_GE, 3) == 3,
              "atomic add on a device signal");
    CHECK_MSG(shmem_signal_fetch(dsig) == 3, "signal fetch");
    shmem_putmem_signal_nbi(hdst, dsrc, n, hsig, 7, SHMEM_SIGNAL_SET, right);
    CHECK_MSG(shmem_signal_wait_until(hsig, SHMEM_CMP_EQ, 7) == 7,
              "host signal");
    CHECK_MSG(gt_diff(hdst, n, left, 5) == n, "data before the host signal");
    shmem_quiet();
    shmem_barrier_all();
    shmem_free(hdst);
    shmem_free(hsig);
    shmem_free(dsig);
    shmem_free(ddst);
    shmem_free(dsrc);
    free(h);
}

int main(void)
{
    void *probe;

    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    probe = shmemx_malloc_device(64);
    if (!probe) {
        return gt_skip_no_device_heap();
    }
    CHECK_MSG(shmem_ptr(probe, me) == probe, "shmem_ptr on own device heap");
    shmem_free(probe);
    test_rma(8, 0);
    test_rma(BIG, 1);
    test_typed_large();
    test_strided();
    test_amo();
    test_signal(64);
    test_signal(BIG);
    return check_pes_end("device_api");
}
