/*
 * Misuse of the stream-ordered routines ends the job with a message that
 * names the routine and the argument (run through tests/heap/expect_fatal.sh
 * or tests/badinput/expect_fail.sh):
 *   stream_bad hostsrc   putmem_on_stream from a host buffer
 *   stream_bad hostdest  putmem_on_stream to the host heap
 *   stream_bad hostsig   signal_wait_until_on_stream on a host-heap word
 *   stream_bad pe        getmem_on_stream from PE n_pes
 *   stream_bad coll      fcollectmem_on_stream into the host heap
 *   stream_bad create    shmemx_stream_create without a device heap
 *   stream_bad destroy2  shmemx_stream_destroy twice on one stream
 *   stream_bad deadput   putmem_on_stream on a destroyed stream
 *   stream_bad deadsync  shmemx_stream_synchronize of a destroyed stream
 *   stream_bad garbage   putmem_on_stream on a pointer that is no stream
 *   stream_bad garbagehf host_func_on_stream on a pointer that is no stream
 *   stream_bad memcpy16  memcpy_on_stream from device memory to address 0x10
 *   stream_bad memcpybig memcpy_on_stream of more bytes than the allocation
 *   stream_bad huge      putmem_on_stream of 2^62 bytes
 *   stream_bad hugecoll  fcollectmem_on_stream whose dest size overflows
 *   stream_bad hugered   a reduction on a stream of 2^61 longs
 * Every PE makes the same mistake.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <shmem.h>
#include <shmemx.h>

static char host_buf[4096];

static void nothing(void *arg)
{
    (void)arg;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "none";
    char *dev, *host_sym;
    uint64_t *host_sig;
    int peer;

    shmem_init();
    peer = (shmem_my_pe() + 1) % shmem_n_pes();
    dev = shmemx_malloc_device(4096 * 8);
    host_sym = shmem_malloc(4096 * 8);
    host_sig = shmem_calloc(1, sizeof(uint64_t));
    if (strcmp(what, "create") == 0) {
        void *s;

        shmemx_stream_create(&s);
    }
    if (!dev) {
        printf("no device heap: skipped\n");
        fflush(stdout);
        shmem_finalize();
        return 77;
    }
    if (strcmp(what, "hostsrc") == 0)
        shmemx_putmem_on_stream(dev, host_buf, 64, 0, NULL);
    else if (strcmp(what, "hostdest") == 0)
        shmemx_putmem_on_stream(host_sym, dev, 64, 0, NULL);
    else if (strcmp(what, "hostsig") == 0)
        shmemx_signal_wait_until_on_stream(host_sig, SHMEM_CMP_EQ, 1, NULL);
    else if (strcmp(what, "pe") == 0)
        shmemx_getmem_on_stream(dev, dev, 64, shmem_n_pes(), NULL);
    else if (strcmp(what, "coll") == 0)
        shmemx_fcollectmem_on_stream(SHMEM_TEAM_WORLD, host_sym, dev, 64, NULL);
    else if (strncmp(what, "dead", 4) == 0 || strcmp(what, "destroy2") == 0) {
        void *s;

        if (shmemx_stream_create(&s) != 0) {
            printf("shmemx_stream_create failed\n");
            return 1;
        }
        /* Work on the stream first: its lane exists when it is destroyed. */
        shmemx_putmem_on_stream(dev, dev + 4096, 64, peer, s);
        shmemx_quiet_on_stream(s);
        shmemx_stream_synchronize(s);
        shmemx_stream_destroy(s);
        printf("PE %d: stream %p destroyed\n", shmem_my_pe(), s);
        fflush(stdout);
        if (strcmp(what, "destroy2") == 0)
            shmemx_stream_destroy(s);
        else if (strcmp(what, "deadput") == 0)
            shmemx_putmem_on_stream(dev, dev + 4096, 64, peer, s);
        else
            shmemx_stream_synchronize(s);
    } else if (strcmp(what, "garbage") == 0) {
        shmemx_putmem_on_stream(dev, dev + 4096, 64, peer, host_buf);
    } else if (strcmp(what, "garbagehf") == 0) {
        shmemx_host_func_on_stream(host_buf + 16, nothing, NULL);
    } else if (strcmp(what, "memcpy16") == 0) {
        shmemx_memcpy_on_stream((void *)0x10, dev, 64, NULL);
    } else if (strcmp(what, "memcpybig") == 0) {
        shmemx_memcpy_on_stream(host_buf, dev, (size_t)1 << 40, NULL);
    } else if (strcmp(what, "huge") == 0) {
        shmemx_putmem_on_stream(dev, dev + 4096, (size_t)1 << 62, peer, NULL);
    } else if (strcmp(what, "hugecoll") == 0) {
        shmemx_fcollectmem_on_stream(SHMEM_TEAM_WORLD, dev, dev + 4096,
                                     SIZE_MAX / 2 + 2, NULL);
    } else if (strcmp(what, "hugered") == 0) {
        shmemx_long_sum_reduce_on_stream(SHMEM_TEAM_WORLD, (long *)dev,
                                         (long *)(dev + 4096), (size_t)1 << 61,
                                         NULL);
    }
    shmemx_stream_synchronize(NULL);
    shmem_finalize();
    return 0;
}
