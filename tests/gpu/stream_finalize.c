/*
 * shmem_finalize waits for the stream-ordered work it was given (docs/gpu.md,
 * "Stream-ordered communication", shmem_finalize):
 *
 *   stream_finalize queued   (the default) every PE leaves on a stream a
 *                            slow host function, a put to its right
 *                            neighbour, a get of what it put, a copy of that
 *                            into host memory and another slow host
 *                            function, and a slower one on the default
 *                            stream, and calls shmem_finalize at once: after
 *                            it returns, the host memory holds the data and
 *                            every host function has run (on the IPC path
 *                            the copies are on the stream itself, with
 *                            SHMEM_LOCAL=0 the put and get go through the
 *                            lanes, the rest not);
 *   stream_finalize onebarrier  PE 0 alone enters a barrier on a stream: with
 *                            SHMEM_WATCHDOG the job ends with the watchdog's
 *                            report, not a hang;
 *   stream_finalize stuck    PE 0 leaves a host function on the default
 *                            stream that waits for what never comes; its
 *                            shmem_finalize's wait for the stream is what the
 *                            watchdog reports (the other PEs arrive late);
 *   stream_finalize sigwait  PE 0 leaves a signal wait on the default stream
 *                            that nobody satisfies: the same.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <shmem.h>
#include <shmemx.h>

#include "tests/gpu/gpu_test.h"

#define N 4096

static int ran_first, ran_last, ran_default; /* set by the host functions */
static volatile int never;                   /* nobody sets it */

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

/* Hold their stream 300 ms and 1.5 s, then mark *arg. */
static void slow_mark(void *arg)
{
    sleep_ms(300);
    __atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
}

static void slower_mark(void *arg)
{
    sleep_ms(1500);
    __atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
}

static void wait_forever(void *arg)
{
    (void)arg;
    while (!never)
        sleep_ms(10);
}

static int queued(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n;
    unsigned char *src, *dst, *chk, *host;
    void *s;
    size_t at;

    src = shmemx_malloc_device(N);
    if (!src)
        return gt_skip_no_device_heap();
    dst = shmemx_malloc_device(N);
    chk = shmemx_malloc_device(N);
    CHECK(dst && chk);
    CHECK(shmemx_stream_create(&s) == 0);
    host = gt_xmalloc(N);
    gt_fill(host, N, me, 1);
    CHECK(shmemx_memcpy_on_stream(src, host, N, s) == 0);
    /* The first stream-ordered call on a stream starts its lane (a thread
     * and a context: endpoints on a fabric), which takes its time. */
    shmemx_quiet_on_stream(s);
    CHECK(shmemx_stream_synchronize(s) == 0);
    memset(host, 0, N);
    shmem_barrier_all();

    CHECK(shmemx_host_func_on_stream(s, slow_mark, &ran_first) == 0);
    shmemx_putmem_on_stream(dst, src, N, right, s);
    shmemx_getmem_on_stream(chk, dst, N, right, s);
    CHECK(shmemx_memcpy_on_stream(host, chk, N, s) == 0);
    /* Work after the lanes' operations, and longer work on another stream:
     * waiting for the lanes alone is not enough. */
    CHECK(shmemx_host_func_on_stream(s, slow_mark, &ran_last) == 0);
    CHECK(shmemx_host_func_on_stream(NULL, slower_mark, &ran_default) == 0);
    CHECK_MSG(!__atomic_load_n(&ran_first, __ATOMIC_ACQUIRE),
              "the stream ran its work before shmem_finalize: the test "
              "proves nothing");
    shmem_finalize();

    CHECK_MSG(__atomic_load_n(&ran_first, __ATOMIC_ACQUIRE),
              "PE %d: the first host function had not run when "
              "shmem_finalize returned",
              me);
    CHECK_MSG(__atomic_load_n(&ran_last, __ATOMIC_ACQUIRE),
              "PE %d: the last host function had not run when "
              "shmem_finalize returned",
              me);
    CHECK_MSG(__atomic_load_n(&ran_default, __ATOMIC_ACQUIRE),
              "PE %d: the host function on the default stream had not run "
              "when shmem_finalize returned",
              me);
    at = gt_diff(host, N, me, 1);
    CHECK_MSG(at == N,
              "PE %d: byte %zu of the put read back from PE %d differs: the "
              "put, the get or the copy had not run when shmem_finalize "
              "returned",
              me, at, right);
    return check_end("stream_finalize queued");
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "queued";
    void *s;
    int me;

    shmem_init();
    me = shmem_my_pe();
    if (strcmp(what, "queued") == 0)
        return queued();
    if (!shmemx_malloc_device(64))
        return gt_skip_no_device_heap();
    if (strcmp(what, "onebarrier") == 0) {
        CHECK(shmemx_stream_create(&s) == 0);
        if (me == 0)
            shmemx_barrier_all_on_stream(s);
    } else if (strcmp(what, "stuck") == 0 || strcmp(what, "sigwait") == 0) {
        uint64_t *sig = shmemx_calloc_device(1, sizeof(uint64_t));

        if (me != 0)
            sleep_ms(3000); /* PE 0's wait is the first to be reported */
        else if (strcmp(what, "stuck") == 0)
            CHECK(shmemx_host_func_on_stream(NULL, wait_forever, NULL) == 0);
        else
            shmemx_signal_wait_until_on_stream(sig, SHMEM_CMP_EQ, 1, NULL);
    }
    shmem_finalize();
    printf("PE %d: shmem_finalize returned\n", me);
    return 0;
}
