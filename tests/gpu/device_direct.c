/*
 * The device heap and the device data path (transports/device/device.h), called
 * directly: allocation (shmemx_malloc_device, shmem_free, shmem_realloc,
 * shmem_ptr), then put, get, atomics and put-with-signal between device
 * heaps and between device and host memory, with transfers large enough to
 * run the staging pipeline and the device service's chunks (several MiB).
 * Run with SHMEM_DEVICE_BACKEND=mock on 2 or more PEs, with and without
 * SHMEM_LOCAL=0; skipped when no device heap exists. GT_DEVICE_ROUTE
 * names the path the other PEs' device heaps must be reached by, so that a
 * case cannot pass on another one:
 *   ipc      the IPC mappings (fabric not registered; without a fabric,
 *            no device service either)
 *   fabric   the fabric's registration (SHMEM_DEVICE_MOCK_DMA=1)
 *   service  the device service (fabric cannot reach the device heaps)
 *   all      the service for everything, atomics read-modify-write
 */
#include "config.h"

#include "core/device_mem.h"
#include "core/heap/device_heap.h"
#include "core/segment.h"
#include "core/state.h"
#include "shmem.h"
#include "shmemx.h"
#include "tests/gpu/device_transport.h"

#include "gpu_test.h"

#define R "device_direct"

/* Large: several staging chunks and a ragged tail. */
#define BIG (3 * SHMT_DEV_STAGE_CHUNK + 4099)
/* Larger: many service chunks (more than its replies in flight). */
#define HUGE ((size_t)6 * 1024 * 1024 + 12345)

static const shmi_gpu_ops_t *g;
static int me, npes, right, left;

static size_t dev_off(const void *p)
{
    size_t off = 0;

    CHECK_MSG(shmi_seg_lookup(p, 1, &off) == SHMI_SEG_DEVICE,
              "%p is in the device segment", p);
    return off;
}

static size_t host_off(const void *p)
{
    size_t off = 0;

    CHECK_MSG(shmi_seg_lookup(p, 1, &off) == SHMI_SEG_HEAP,
              "%p is in the host heap", p);
    return off;
}

static void dev_write(void *dev, const void *host, size_t n)
{
    CHECK_MSG(g->copy(dev, host, n, SHMI_GPU_H2D) == 0, "H2D copy");
}

static void dev_read(void *host, const void *dev, size_t n)
{
    CHECK_MSG(g->copy(host, dev, n, SHMI_GPU_D2H) == 0, "D2H copy");
}

/* Same offsets everywhere, reuse after free, exhaustion alike, realloc
 * keeps data, freed memory reads as zero, shmem_ptr. */
static void test_alloc(void)
{
    static size_t offs[2];
    size_t root[2] = {0, 0}, big = shmi_state.seg[SHMI_SEG_DEVICE].size + 1;
    unsigned char buf[256], out[256];
    char *a = shmemx_malloc_device(1000);
    char *b = shmemx_malloc_device(4096);
    char *c;

    CHECK_MSG(a && b && a != b, "two device blocks");
    CHECK_MSG(((uintptr_t)a & 63) == 0 && ((uintptr_t)b & 63) == 0,
              "blocks are cache-line aligned");
    CHECK_MSG(shmi_device_touches(a, 1) && !shmi_device_touches(buf, 1),
              "shmi_device_touches tells device from host memory");
    offs[0] = dev_off(a);
    offs[1] = dev_off(b);
    shmem_barrier_all();
    shmem_getmem(root, offs, sizeof(root), 0);
    CHECK_MSG(root[0] == offs[0] && root[1] == offs[1],
              "same device offsets as PE 0");
    shmem_free(a);
    c = shmemx_malloc_device(1000);
    CHECK_MSG(c == a, "a freed block is reused (%p, %p)", (void *)c, (void *)a);
    CHECK_MSG(shmemx_malloc_device(big) == NULL,
              "more than the device heap gives NULL");
    gt_fill(buf, sizeof(buf), me, 1);
    dev_write(b, buf, sizeof(buf));
    b = shmem_realloc(b, 3 * 1024 * 1024);
    CHECK_MSG(b && shmi_device_heap_contains(b), "device realloc");
    dev_read(out, b, sizeof(out));
    CHECK_MSG(gt_diff(out, sizeof(out), me, 1) == sizeof(out),
              "realloc keeps the data");
    shmem_free(b);
    b = shmemx_malloc_device(3 * 1024 * 1024);
    dev_read(out, b, sizeof(out));
    CHECK_MSG(out[0] == 0 && memcmp(out, out + 1, sizeof(out) - 1) == 0,
              "freed device memory reads as zero");
    CHECK_MSG(shmem_ptr(b, me) == b, "shmem_ptr on self");
    CHECK_MSG(shmem_ptr(b, right) != NULL &&
                  (right == me || shmem_ptr(b, right) != b),
              "shmem_ptr on a PE of this node maps its device heap");
    CHECK_MSG(shmem_addr_accessible(b, right), "device heap accessible");
    shmem_free(b);
    shmem_free(c);
}

/* A deterministic mix of sizes and frees gives the same offsets as on PE
 * 0; the heap fills up alike everywhere and coalesces back to one block. */
static void test_alloc_pattern(void)
{
    enum { NB = 48 };
    static size_t offs[NB + 1];
    size_t *root = gt_xmalloc(sizeof(offs)), nfull = 0;
    void *blk[NB], **full = gt_xmalloc(4096 * sizeof(void *));
    shmi_alloc_stats_t st;
    unsigned x = 12345;

    for (int i = 0; i < NB; i++) {
        x = x * 1103515245u + 12345u;
        blk[i] = shmemx_malloc_device(64 + (x >> 8) % 100000);
        offs[i] = blk[i] ? dev_off(blk[i]) : SIZE_MAX;
        if (i % 3 == 2) { /* free an earlier one: holes to reuse */
            shmem_free(blk[i - 2]);
            blk[i - 2] = NULL;
        }
    }
    while (nfull < 4096 &&
           (full[nfull] = shmemx_malloc_device(1 << 20)) != NULL)
        nfull++;
    offs[NB] = nfull;
    shmem_barrier_all();
    shmem_getmem(root, offs, sizeof(offs), 0);
    CHECK_MSG(memcmp(root, offs, sizeof(offs)) == 0,
              "same offsets and same exhaustion point as PE 0");
    CHECK_MSG(nfull > 0, "1 MiB blocks until the heap is full (%zu)", nfull);
    while (nfull > 0)
        shmem_free(full[--nfull]);
    for (int i = 0; i < NB; i++)
        shmem_free(blk[i]);
    shmi_device_heap_stats(&st);
    CHECK_MSG(st.in_use == 0 && st.n_blocks == 0 && st.largest_free == st.size,
              "everything freed coalesces (%zu in use, largest free %zu of "
              "%zu)",
              st.in_use, st.largest_free, st.size);
    free(full);
    free(root);
}

/* Put and get of n bytes, device <-> device and device <-> host. */
static void test_rma(size_t n, int round)
{
    unsigned char *h = gt_xmalloc(n), *o = gt_xmalloc(n);
    char *dsrc = shmemx_malloc_device(n);
    char *ddst = shmemx_malloc_device(n);
    unsigned char *hsym = shmem_malloc(n);
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    size_t d;
    int ret;

    CHECK_MSG(dsrc && ddst && hsym, "buffers of %zu bytes", n);
    gt_fill(h, n, me, round);
    dev_write(dsrc, h, n);
    shmem_barrier_all();
    /* device -> device heap of the right neighbour */
    ret = gt_dev_put(ctx, right, SHMI_SEG_DEVICE, dev_off(ddst), dsrc,
                          n, 0);
    CHECK_MSG(ret == 0, "D2D put: %d", ret);
    /* device -> host heap of the right neighbour (staged without LOCAL) */
    ret = gt_dev_put(ctx, right, SHMI_SEG_HEAP, host_off(hsym), dsrc, n,
                          1);
    CHECK_MSG(ret == 0, "device-to-host put: %d", ret);
    shmem_quiet();
    shmem_barrier_all();
    dev_read(o, ddst, n);
    CHECK_MSG((d = gt_diff(o, n, left, round)) == n, "D2D put, byte %zu", d);
    CHECK_MSG((d = gt_diff(hsym, n, left, round)) == n,
              "device-to-host put, byte %zu", d);
    /* get: device heap of right -> host; host heap of right -> device */
    memset(o, 0, n);
    ret =
        gt_dev_get(ctx, right, SHMI_SEG_DEVICE, dev_off(dsrc), o, n, 0);
    CHECK_MSG(ret == 0 && (d = gt_diff(o, n, right, round)) == n,
              "get from a device heap into host memory (%d)", ret);
    ret = gt_dev_get(ctx, right, SHMI_SEG_HEAP, host_off(hsym), ddst, n,
                          0);
    dev_read(o, ddst, n);
    CHECK_MSG(ret == 0 && (d = gt_diff(o, n, me, round)) == n,
              "get from a host heap into device memory (%d), byte %zu", ret, d);
    shmem_barrier_all();
    /* host private buffer -> device heap of the right neighbour */
    gt_fill(h, n, me, round + 1);
    ret =
        gt_dev_put(ctx, right, SHMI_SEG_DEVICE, dev_off(ddst), h, n, 0);
    shmem_barrier_all();
    dev_read(o, ddst, n);
    CHECK_MSG(ret == 0 && (d = gt_diff(o, n, left, round + 1)) == n,
              "host-to-device put (%d), byte %zu", ret, d);
    shmem_barrier_all();
    shmem_free(hsym);
    shmem_free(ddst);
    shmem_free(dsrc);
    free(h);
    free(o);
}

static void test_amo(void)
{
    enum { K = 200 };
    uint64_t *ctr = shmemx_malloc_device(64);
    uint64_t one = 1, old = 0, v = 0, cmp, nw;
    size_t off = dev_off(ctr);
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    int32_t i4 = 5, f4 = 0;

    shmem_barrier_all();
    for (int k = 0; k < K; k++)
        for (int pe = 0; pe < npes; pe++)
            CHECK_MSG(gt_dev_amo(ctx, pe, SHMI_SEG_DEVICE, off,
                                      SHMI_AMO_FETCH_ADD, SHMI_DT_UINT64, &one,
                                      NULL, &old, 0) == 0,
                      "fetch-add");
    shmem_barrier_all();
    dev_read(&v, ctr, 8);
    CHECK_MSG(v == (uint64_t)K * npes, "counter %llu, expected %llu",
              (unsigned long long)v, (unsigned long long)K * npes);
    shmem_barrier_all();
    /* compare-and-swap: exactly one PE wins on PE 0's word */
    cmp = (uint64_t)K * npes;
    nw = 1000 + (uint64_t)me;
    CHECK_MSG(gt_dev_amo(ctx, 0, SHMI_SEG_DEVICE, off, SHMI_AMO_CSWAP,
                              SHMI_DT_UINT64, &nw, &cmp, &old, 0) == 0,
              "cswap");
    shmem_barrier_all();
    if (me == 0) {
        dev_read(&v, ctr, 8);
        CHECK_MSG(v >= 1000 && v < 1000 + (uint64_t)npes, "cswap winner %llu",
                  (unsigned long long)v);
    }
    /* a 32-bit word next to it: swap then fetch */
    CHECK_MSG(gt_dev_amo(ctx, right, SHMI_SEG_DEVICE, off + 8,
                              SHMI_AMO_SET, SHMI_DT_INT32, &i4, NULL, NULL,
                              0) == 0 &&
                  gt_dev_amo(ctx, right, SHMI_SEG_DEVICE, off + 8,
                                  SHMI_AMO_FETCH, SHMI_DT_INT32, NULL, NULL,
                                  &f4, 0) == 0 &&
                  f4 == 5,
              "int32 set/fetch (%d)", (int)f4);
    shmem_barrier_all();
    shmem_free(ctr);
}

/* put-with-signal: device data with a device signal, then device data to
 * a host buffer with a host signal. */
static void test_signal(size_t n)
{
    unsigned char *h = gt_xmalloc(n), *o = gt_xmalloc(n);
    char *dsrc = shmemx_malloc_device(n);
    char *ddst = shmemx_malloc_device(n);
    uint64_t *dsig = shmemx_malloc_device(8);
    unsigned char *hdst = shmem_malloc(n);
    uint64_t *hsig = shmem_calloc(1, 8);
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    int ret;

    gt_fill(h, n, me, 7);
    dev_write(dsrc, h, n);
    shmem_barrier_all();
    ret = gt_dev_put_signal(ctx, right, SHMI_SEG_DEVICE, dev_off(ddst),
                                 dsrc, n, SHMI_SEG_DEVICE, dev_off(dsig), 3,
                                 SHMEM_SIGNAL_ADD, 0);
    CHECK_MSG(ret == 0, "put_signal to device: %d", ret);
    CHECK_MSG(shmi_device_signal_wait(R, dsig, SHMEM_CMP_EQ, 3) == 3,
              "device signal arrives");
    dev_read(o, ddst, n);
    CHECK_MSG(gt_diff(o, n, left, 7) == n, "data before the device signal");
    CHECK_MSG(shmi_device_signal_fetch(R, dsig) == 3, "signal fetch");
    ret = gt_dev_put_signal(ctx, right, SHMI_SEG_HEAP, host_off(hdst),
                                 dsrc, n, SHMI_SEG_HEAP, host_off(hsig), 9,
                                 SHMEM_SIGNAL_SET, 1);
    CHECK_MSG(ret == 0, "put_signal to host: %d", ret);
    CHECK_MSG(shmem_signal_wait_until(hsig, SHMEM_CMP_EQ, 9) == 9,
              "host signal arrives");
    CHECK_MSG(gt_diff(hdst, n, left, 7) == n, "data before the host signal");
    shmem_barrier_all();
    shmem_free(hsig);
    shmem_free(hdst);
    shmem_free(dsig);
    shmem_free(ddst);
    shmem_free(dsrc);
    free(h);
    free(o);
}

/* The path GT_DEVICE_ROUTE asks for is the one in use. */
static void test_route(void)
{
    const char *want = getenv("GT_DEVICE_ROUTE");
    const shmt_ops_t *f = shmi_state.fabric;
    int reach = f && f->reachable(right, SHMI_SEG_DEVICE);

    if (!want || npes < 2)
        return;
    if (strcmp(want, "ipc") == 0)
        /* Without a fabric, a back end with device atomics starts no
         * service thread. */
        CHECK_MSG(!reach && shmi_device_peer_ptr(right, 0) != NULL &&
                      (f || !shmt_dev_svc_up()),
                  "route ipc: fabric %d, mapping %p, service %d", reach,
                  shmi_device_peer_ptr(right, 0), shmt_dev_svc_up());
    else if (strcmp(want, "fabric") == 0)
        CHECK_MSG(reach && !shmt_dev_svc_all(),
                  "route fabric: the fabric reaches PE %d's device heap",
                  right);
    else if (strcmp(want, "service") == 0)
        CHECK_MSG(!reach && shmt_dev_svc_up() && !shmt_dev_svc_all(),
                  "route service: fabric %d, service %d", reach,
                  shmt_dev_svc_up());
    else if (strcmp(want, "all") == 0)
        CHECK_MSG(shmt_dev_svc_all() && shmt_dev_svc_rmw(),
                  "route all: service for everything, rmw atomics");
    else
        CHECK_MSG(0, "GT_DEVICE_ROUTE=%s is not ipc, fabric, service or all",
                  want);
}

/* The service served requests exactly when the route says it must. */
static void test_served(void)
{
    const char *want = getenv("GT_DEVICE_ROUTE");
    uint64_t n = shmt_dev_svc_served();

    shmem_barrier_all();
    if (!want || npes < 2)
        return;
    if (strcmp(want, "service") == 0 || strcmp(want, "all") == 0)
        CHECK_MSG(n > 0, "the device service served no request");
    else
        CHECK_MSG(n == 0, "route %s, yet the service served %llu requests",
                  want, (unsigned long long)n);
}

/* Every PE adds to every PE's counter at once, through whatever path, own
 * word included: the total must be exact (one engine per word). */
static void test_amo_storm(void)
{
    enum { K = 64 };
    uint64_t *ctr = shmemx_malloc_device(16);
    uint64_t v[2], inc = (uint64_t)me + 1, old = 0, n = (uint64_t)npes;
    size_t off = dev_off(ctr);

    shmem_barrier_all();
    for (int k = 0; k < K; k++)
        for (int i = 0; i < npes; i++) {
            int pe = (me + i) % npes;

            CHECK_MSG(gt_dev_amo(SHMEM_CTX_DEFAULT, pe, SHMI_SEG_DEVICE,
                                      off, SHMI_AMO_ADD, SHMI_DT_UINT64, &inc,
                                      NULL, NULL, 0) == 0 &&
                          gt_dev_amo(SHMEM_CTX_DEFAULT, pe,
                                          SHMI_SEG_DEVICE, off + 8,
                                          SHMI_AMO_FETCH_INC, SHMI_DT_UINT64,
                                          NULL, NULL, &old, 0) == 0,
                      "add, fetch-inc");
        }
    shmem_quiet();
    shmem_barrier_all();
    dev_read(v, ctr, sizeof(v));
    CHECK_MSG(v[0] == K * n * (n + 1) / 2 && v[1] == K * n,
              "concurrent atomics: sum %llu (want %llu), count %llu (want "
              "%llu)",
              (unsigned long long)v[0],
              (unsigned long long)(K * n * (n + 1) / 2),
              (unsigned long long)v[1], (unsigned long long)(K * n));
    shmem_barrier_all();
    shmem_free(ctr);
}

int main(void)
{
    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    g = shmi_device_backend();
    if (!g) {
        return gt_skip_no_device_heap();
    }
    test_alloc();
    test_alloc_pattern();
    test_rma(1, 0);
    test_rma(4000, 1);
    test_route();
    test_rma(BIG, 2);
    test_rma(HUGE, 3);
    test_amo();
    test_amo_storm();
    test_signal(100);
    test_signal(BIG);
    test_served();
    return check_pes_end(R);
}
