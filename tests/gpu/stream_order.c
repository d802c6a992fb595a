/*
 * The stream-ordered routines (shmemx.h, docs/gpu.md "Stream-ordered
 * communication") keep stream order and return without waiting:
 *
 *   put     data enqueued before a put (a copy behind a slow host function)
 *           is what arrives, and the put call returns before it happened;
 *   get     a get on the stream reads what the peer wrote before a barrier;
 *   signal  a put-with-signal of 1 MiB is seen by a waiter only with all
 *           of its data, on the host and through a stream wait;
 *   barrier a barrier on the streams orders each PE's put before the
 *           neighbour's read, although the PEs' streams start skewed;
 *   sync    shmemx_team_sync_on_stream on a team of the even PEs;
 *   quiet   shmemx_quiet_on_stream completes the puts before it;
 *   coll    broadcastmem, fcollectmem, alltoallmem on a stream.
 * Run on 2 and 4 PEs; direct copies on one node (IPC), through the lanes
 * with SHMEM_LOCAL=0 (the fabric and the device service).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <shmem.h>
#include <shmemx.h>

#include "tests/gpu/gpu_test.h"

#define BIG ((size_t)1 << 20)

static int slept; /* set by slow_host at its end */

/* A host function that holds the stream for ms milliseconds. */
static void slow_host(void *arg)
{
    struct timespec ts = {0, (long)(intptr_t)arg * 1000000L};

    nanosleep(&ts, NULL);
    __atomic_store_n(&slept, 1, __ATOMIC_RELEASE);
}

/* Copies n bytes of device memory into a host buffer and checks them
 * against the pattern of (pe, r). */
static void check_dev(const char *what, const void *dev, size_t n, int pe,
                      int r, void *stream)
{
    unsigned char *h = gt_xmalloc(n);
    size_t at;

    CHECK(shmemx_memcpy_on_stream(h, dev, n, stream) == 0);
    CHECK(shmemx_stream_synchronize(stream) == 0);
    at = gt_diff(h, n, pe, r);
    CHECK_MSG(at == n, "%s: byte %zu differs (pattern of PE %d, round %d)",
              what, at, pe, r);
    free(h);
}

static void fill_dev(void *dev, size_t n, int pe, int r, void *stream)
{
    unsigned char *h = gt_xmalloc(n);

    gt_fill(h, n, pe, r);
    CHECK(shmemx_memcpy_on_stream(dev, h, n, stream) == 0);
    CHECK(shmemx_stream_synchronize(stream) == 0);
    free(h);
}

int main(void)
{
    int me, n, right, left;
    unsigned char *src, *dst, *big, *bigdst, *coll_src, *coll_dst, *host;
    uint64_t *sig, *sig2;
    void *s;

    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    right = (me + 1) % n;
    left = (me + n - 1) % n;
    src = shmemx_malloc_device(4096);
    if (!src)
        return gt_skip_no_device_heap();
    dst = shmemx_malloc_device(4096);
    big = shmemx_malloc_device(BIG);
    bigdst = shmemx_malloc_device(BIG);
    coll_src = shmemx_malloc_device(4096 * (size_t)n);
    coll_dst = shmemx_malloc_device(4096 * (size_t)n);
    sig = shmemx_calloc_device(2, sizeof(uint64_t));
    sig2 = sig + 1;
    CHECK(dst && big && bigdst && coll_src && coll_dst && sig);
    CHECK(shmemx_stream_create(&s) == 0);
    host = gt_xmalloc(BIG);

    /* The first stream-ordered call on a stream starts its lane (a thread
     * and a context: endpoints on a fabric), which takes its time. */
    shmemx_quiet_on_stream(s);
    CHECK(shmemx_stream_synchronize(s) == 0);

    /* put: the copy into src waits behind 300 ms on the stream; the put
     * after it must carry the copied data, and the calls return first. */
    gt_fill(host, 4096, me, 1);
    slept = 0;
    CHECK(shmemx_host_func_on_stream(s, slow_host, (void *)(intptr_t)300) == 0);
    CHECK(shmemx_memcpy_on_stream(src, host, 4096, s) == 0);
    shmemx_putmem_on_stream(dst, src, 4096, right, s);
    /* (The stand-in runtime of tests/gpu/fake_runtime.c runs stream work
     * at once: GT_STREAM_AT_ONCE=1.) */
    if (!getenv("GT_STREAM_AT_ONCE"))
        CHECK_MSG(__atomic_load_n(&slept, __ATOMIC_ACQUIRE) == 0,
                  "the stream-ordered calls waited for the stream");
    CHECK(shmemx_stream_synchronize(s) == 0);
    shmem_barrier_all();
    check_dev("put", dst, 4096, left, 1, s);

    /* get: read the right neighbour's src (round 1 of PE right). */
    shmem_barrier_all();
    shmemx_getmem_on_stream(dst, src, 4096, right, s);
    check_dev("get", dst, 4096, right, 1, s);

    /* signal: 1 MiB with a signal; the waiter checks every byte as soon as
     * the signal is seen, on the host (round 2) and then on its stream
     * (round 3). */
    fill_dev(big, BIG, me, 2, s);
    shmem_barrier_all();
    CHECK(shmemx_host_func_on_stream(s, slow_host, (void *)(intptr_t)20) == 0);
    shmemx_putmem_signal_on_stream(bigdst, big, BIG, sig, 1, SHMEM_SIGNAL_SET,
                                   right, s);
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 1);
    {
        unsigned char *h = host;

        shmem_getmem(h, bigdst, BIG, me);
        CHECK_MSG(gt_diff(h, BIG, left, 2) == BIG,
                  "signal seen before its data (host wait)");
    }
    CHECK(shmemx_stream_synchronize(s) == 0);
    shmem_barrier_all();
    fill_dev(big, BIG, me, 3, s);
    shmem_barrier_all();
    shmemx_putmem_signal_on_stream(bigdst, big, BIG, sig2, 5, SHMEM_SIGNAL_ADD,
                                   right, s);
    shmemx_signal_wait_until_on_stream(sig2, SHMEM_CMP_GE, 5, s);
    check_dev("signal (stream wait)", bigdst, BIG, left, 3, s);
    shmem_barrier_all();

    /* barrier: PE k's stream starts 40k ms late; each PE puts round 4 into
     * its right neighbour's dst, then all meet on their streams and read
     * their own dst; without the barrier an early PE reads stale data. */
    fill_dev(src, 4096, me, 4, s);
    shmem_barrier_all();
    CHECK(shmemx_host_func_on_stream(s, slow_host,
                                     (void *)(intptr_t)(40 * me)) == 0);
    shmemx_putmem_on_stream(dst, src, 4096, right, s);
    shmemx_barrier_all_on_stream(s);
    check_dev("barrier", dst, 4096, left, 4, s);
    shmem_barrier_all();

    /* quiet: puts then quiet on the stream, then a host barrier. */
    fill_dev(src, 4096, me, 5, s);
    shmem_barrier_all();
    shmemx_putmem_on_stream(dst, src, 4096, right, s);
    shmemx_quiet_on_stream(s);
    CHECK(shmemx_stream_synchronize(s) == 0);
    shmem_barrier_all();
    check_dev("quiet", dst, 4096, left, 5, s);

    /* team sync on a team of the even PEs (a split team: its own slot). */
    {
        shmem_team_t even;

        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0,
                                 &even);
        if (even != SHMEM_TEAM_INVALID) {
            for (int i = 0; i < 3; i++)
                CHECK(shmemx_team_sync_on_stream(even, s) == 0);
            CHECK(shmemx_stream_synchronize(s) == 0);
            shmem_team_destroy(even);
        } else {
            CHECK(shmemx_team_sync_on_stream(even, s) == -1);
        }
    }

    /* collectives: sources are rounds 6 (broadcast: root n-1), 7, 8. */
    fill_dev(coll_src, 4096, me, 6, s);
    CHECK(shmemx_broadcastmem_on_stream(SHMEM_TEAM_WORLD, coll_dst, coll_src,
                                        4096, n - 1, s) == 0);
    check_dev("broadcast", coll_dst, 4096, n - 1, 6, s);
    fill_dev(coll_src, 4096, me, 7, s);
    CHECK(shmemx_fcollectmem_on_stream(SHMEM_TEAM_WORLD, coll_dst, coll_src,
                                       4096, s) == 0);
    for (int p = 0; p < n; p++)
        check_dev("fcollect", coll_dst + 4096 * (size_t)p, 4096, p, 7, s);
    /* alltoall: block j of PE p's source is pattern (p, 8 + j). */
    for (int j = 0; j < n; j++)
        fill_dev(coll_src + 1024 * (size_t)j, 1024, me, 8 + j, s);
    CHECK(shmemx_alltoallmem_on_stream(SHMEM_TEAM_WORLD, coll_dst, coll_src,
                                       1024, s) == 0);
    for (int p = 0; p < n; p++)
        check_dev("alltoall", coll_dst + 1024 * (size_t)p, 1024, p, 8 + me, s);

    CHECK(shmemx_stream_synchronize(s) == 0);
    /* Destroying a stream with work still on it, and finalizing with work
     * on another: both wait for the work (no crash, no hang). */
    CHECK(shmemx_host_func_on_stream(s, slow_host, (void *)(intptr_t)50) == 0);
    shmemx_putmem_on_stream(dst, src, 4096, right, s);
    shmemx_barrier_all_on_stream(s);
    CHECK(shmemx_stream_destroy(s) == 0);
    {
        void *s2;

        CHECK(shmemx_stream_create(&s2) == 0);
        CHECK(shmemx_host_func_on_stream(s2, slow_host, (void *)(intptr_t)50) ==
              0);
        shmemx_putmem_on_stream(dst, src, 4096, right, s2);
        shmemx_barrier_all_on_stream(s2);
    }
    free(host);
    shmem_free(sig);
    shmem_free(coll_dst);
    shmem_free(coll_src);
    shmem_free(bigdst);
    shmem_free(big);
    /* dst and src stay: s2's put may still use them until finalize. */
    return check_pes_end("stream_order");
}
