/*
 * Misuse of the stream-ordered routines ends the job with a message that
 * names the routine and the argument (run through tests/heap/expect_fatal.sh):
 *   stream_bad hostsrc   putmem_on_stream from a host buffer
 *   stream_bad hostdest  putmem_on_stream to the host heap
 *   stream_bad hostsig   signal_wait_until_on_stream on a host-heap word
 *   stream_bad pe        getmem_on_stream from PE n_pes
 *   stream_bad coll      fcollectmem_on_stream into the host heap
 *   stream_bad create    shmemx_stream_create without a device heap
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <shmem.h>
#include <shmemx.h>

static char host_buf[4096];

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "none";
    char *dev, *host_sym;
    uint64_t *host_sig;

    shmem_init();
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
    shmemx_stream_synchronize(NULL);
    shmem_finalize();
    return 0;
}
