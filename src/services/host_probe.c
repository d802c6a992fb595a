/*
 * Probing this process's own memory one byte a page (host_probe.h).
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <sys/uio.h>
#include <unistd.h>

#include "services/host_probe.h"

/* Pages probed per system call. */
#define SHMI_PROBE_BATCH 64

uintptr_t shmi_host_unreachable(uintptr_t a, size_t n, int write)
{
    const uintptr_t page = 4096, last = a + n - 1;
    uintptr_t p = a;
    pid_t me = getpid();

    for (int more = 1; more;) {
        struct iovec loc[SHMI_PROBE_BATCH], rem[SHMI_PROBE_BATCH];
        unsigned char bytes[SHMI_PROBE_BATCH];
        unsigned long k = 0;
        ssize_t got;

        while (k < SHMI_PROBE_BATCH && more) {
            loc[k].iov_base = &bytes[k];
            rem[k].iov_base = (void *)p;
            loc[k].iov_len = rem[k].iov_len = 1;
            k++;
            more = (p | (page - 1)) < last;
            p = (p | (page - 1)) + 1;
        }
        got = process_vm_readv(me, loc, k, rem, k, 0);
        if (got < 0 && errno != EFAULT)
            return 0;
        if (got >= 0 && write) {
            /* only the pages that could be read can be written back */
            unsigned long readable = (unsigned long)got;

            got = readable ? process_vm_writev(me, loc, readable, rem,
                                               readable, 0)
                           : 0;
            if (got < 0 && errno != EFAULT)
                return 0;
        }
        if (got < 0)
            got = 0;
        if (got != (ssize_t)k)
            return (uintptr_t)rem[got].iov_base;
    }
    return 0;
}
