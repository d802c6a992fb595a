/*
 * What shmem_finalize waits for on the streams (stream.h,
 * shmi_stream_finalize; docs/gpu.md, "Stream-ordered communication"): the
 * work enqueued before it runs to its end, on every path, before the
 * finalize's barrier (the work may need the other PEs, which wait there)
 * and before the heaps it reads and writes go away.
 *
 * On every stream that finalize can name safely (the live streams of
 * shmemx_stream_create and the default stream once used) it enqueues a
 * host function that marks its end; the stream's earlier work, copies and
 * host functions alike (the direct copies of the IPC path never pass a
 * lane), has ended once it ran. A stream the program made with its own
 * runtime may have been destroyed by now, so it is not touched: there the
 * wait covers the operations handed to its lane only, and the program
 * synchronises such a stream itself (as CUDA requires before destroying
 * one). The wait polls with a back-off that the watchdog times
 * (src/core/watchdog.h), so that work that can never end (a barrier on a
 * stream entered by one PE only, a stream wait nobody satisfies) is
 * reported instead of hanging the job in silence.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/heap/device_heap.h"
#include "core/state.h"
#include "core/stream/stream.h"
#include "core/watchdog.h"
#include "services/backoff.h"
#include "services/error.h"

typedef struct drain_mark {
    void *stream;
    int done; /* set by mark_end, in stream order */
} drain_mark_t;

typedef struct drain {
    drain_mark_t *mark;
    size_t n;
} drain_t;

/* The host function: the stream's earlier work has ended. It calls nothing
 * of the back end (the runtimes' rule for host functions). */
static void mark_end(void *arg)
{
    __atomic_store_n(&((drain_mark_t *)arg)->done, 1, __ATOMIC_RELEASE);
}

/* The first stream not drained yet, or NULL with *left = 0. */
static const drain_mark_t *first_left(const drain_t *d, size_t *left)
{
    const drain_mark_t *first = NULL;

    *left = 0;
    for (size_t i = 0; i < d->n; i++)
        if (!__atomic_load_n(&d->mark[i].done, __ATOMIC_ACQUIRE)) {
            if (!first)
                first = &d->mark[i];
            (*left)++;
        }
    return first;
}

static size_t say_more(char *buf, size_t len, size_t off, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (off >= len)
        return off;
    va_start(ap, fmt);
    k = vsnprintf(buf + off, len - off, fmt, ap);
    va_end(ap);
    return k < 0 ? off : off + (size_t)k;
}

/* The watchdog's words for the wait (watchdog.h, shmi_watchdog_say_t). */
static void drain_say(const void *arg, char *buf, size_t len)
{
    const drain_mark_t *first;
    char lane[256];
    size_t left, off;

    first = first_left(arg, &left);
    off = say_more(buf, len, 0,
                   "shmem_finalize, waiting for the stream-ordered work "
                   "enqueued before it to end");
    if (first && first->stream)
        off = say_more(buf, len, off,
                       ": stream %p has not reached its end (%zu stream(s) "
                       "not drained)",
                       first->stream, left);
    else if (first)
        off = say_more(buf, len, off,
                       ": the default stream (NULL) has not reached its end "
                       "(%zu stream(s) not drained)",
                       left);
    shmi_stream_lanes_say(lane, sizeof(lane));
    if (lane[0])
        off = say_more(buf, len, off, "; %s", lane);
    say_more(buf, len, off,
             " (a barrier or collective on a stream that another PE never "
             "entered, or a stream wait or host function nobody satisfies, "
             "waits forever)");
}

void shmi_stream_finalize(void)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();
    drain_t d = {NULL, 0};
    void **streams = NULL;
    shmi_backoff_t b;
    size_t left;

    if (g) {
        d.n = shmi_stream_drain_list(&streams);
        d.mark = calloc(d.n ? d.n : 1, sizeof(*d.mark));
        if (!d.mark)
            SHMI_FATAL("shmem_finalize: PE %d: out of memory",
                       shmi_my_pe_fast());
        for (size_t i = 0; i < d.n; i++) {
            int ret;

            d.mark[i].stream = streams[i];
            ret = g->stream_host(streams[i], mark_end, &d.mark[i]);
            if (ret != 0) {
                SHMI_LOG(SHMI_LOG_DEBUG, "stream",
                         "shmem_finalize cannot drain stream %p: %s",
                         streams[i], shmi_strerror(ret));
                d.mark[i].done = 1;
            }
        }
        free(streams);
        shmi_backoff_init(&b);
        while (first_left(&d, &left) || shmi_stream_lanes_pending() > 0) {
            shmi_watchdog_check(&b, drain_say, &d);
            shmi_backoff_wait(&b);
        }
        free(d.mark);
    }
    shmi_stream_lanes_stop();
    shmi_stream_forget_all();
}
