/*
 * Lanes (stream.h): one helper thread (services/helper_thread.h) per
 * device stream that this PE has used for a stream-ordered routine, made
 * on first use and stopped by shmem_finalize. Enqueuing an operation
 * promises it to the lane; the host function on the stream posts it and
 * sleeps until the lane has run it.
 *
 * Why a thread per stream rather than one per PE: an operation may wait
 * (shmemx_signal_wait_until_on_stream, a barrier on a stream) for work that
 * another stream of this PE must do first; one thread for all streams would
 * hold that work behind the wait. Why not run the operation in the host
 * function itself: the runtimes forbid calls into them there, and every
 * operation may copy device memory.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ctx.h"
#include "core/dataplane.h"
#include "core/device_mem.h"
#include "core/heap/device_heap.h"
#include "core/state.h"
#include "core/stream/stream.h"
#include "services/error.h"
#include "services/helper_thread.h"

/* Streams of one PE that get a lane; more is an error naming the routine
 * (a program with more streams than this reuses them). */
#define LANES_MAX 64

struct shmi_stream_lane {
    void *stream;          /* the user's stream (NULL: the default stream) */
    shmi_helper_t *thread; /* serves the lane's operations, in order */
    shmi_coll_exec_t exec;
};

/* What the host function carries: one operation, posted by the host
 * function and run by the lane's thread. */
typedef struct lane_call {
    shmi_helper_item_t item; /* item.what: the public routine */
    shmi_stream_lane_t *lane;
    shmi_stream_fn_t run;
    void *arg;
} lane_call_t;

static struct {
    pthread_mutex_t lock;
    shmi_stream_lane_t *lane[LANES_MAX];
    int n;
} lanes = {PTHREAD_MUTEX_INITIALIZER, {NULL}, 0};

const shmi_gpu_ops_t *shmi_stream_backend(const char *routine)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();

    if (!g)
        SHMI_FATAL("%s: PE %d has no device heap (SHMEM_DEVICE_BACKEND): "
                   "stream-ordered routines need one",
                   routine, shmi_my_pe_fast());
    return g;
}

/* On the lane's thread (the helper's item hook). */
static void lane_run(void *client_arg, shmi_helper_item_t *item)
{
    shmi_stream_lane_t *l = client_arg;
    lane_call_t *c = (lane_call_t *)item; /* item is its first member */

    c->run(&l->exec, c->arg);
    free(c->arg);
}

static shmi_stream_lane_t *lane_new(const char *routine, void *stream)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();
    shmi_stream_lane_t *l = calloc(1, sizeof(*l));
    /* No ring: the thread sleeps until a host function posts. */
    shmi_helper_client_t client = {.name = "stream lane"};
    int ret;

    if (!l)
        SHMI_FATAL("%s: PE %d: out of memory", routine, shmi_my_pe_fast());
    l->stream = stream;
    l->exec.lane = 1;
    l->exec.ctx = shmi_ctx_runtime_new(SHMEM_CTX_PRIVATE);
    if (!l->exec.ctx)
        SHMI_FATAL("%s: PE %d cannot make a context for a stream", routine,
                   shmi_my_pe_fast());
    if ((ret = g->stream_create(&l->exec.work_stream)) != 0)
        shmi_device_fail(routine, shmi_my_pe_fast(), ret);
    client.arg = l;
    if (shmi_helper_start(&client, &l->thread) != 0)
        SHMI_FATAL("%s: PE %d cannot start a thread for a stream", routine,
                   shmi_my_pe_fast());
    return l;
}

/* The lane of stream, made on first use, with one operation promised to
 * it (under lanes.lock, so that shmi_stream_forget cannot stop it in
 * between: its stop then waits for that operation). */
static shmi_stream_lane_t *lane_of(const char *routine, void *stream)
{
    shmi_stream_lane_t *l = NULL;

    pthread_mutex_lock(&lanes.lock);
    for (int i = 0; i < lanes.n && !l; i++)
        if (lanes.lane[i]->stream == stream)
            l = lanes.lane[i];
    if (!l) {
        if (lanes.n == LANES_MAX) {
            pthread_mutex_unlock(&lanes.lock);
            SHMI_FATAL("%s: PE %d uses more than %d streams for "
                       "stream-ordered routines",
                       routine, shmi_my_pe_fast(), LANES_MAX);
        }
        l = lane_new(routine, stream);
        lanes.lane[lanes.n++] = l;
    }
    if (shmi_helper_promise(l->thread, routine) != 0)
        SHMI_FATAL("%s: PE %d: the lane of stream %p is stopping", routine,
                   shmi_my_pe_fast(), stream);
    pthread_mutex_unlock(&lanes.lock);
    return l;
}

/* The host function: posts the operation and sleeps until the lane ran
 * it. */
static void lane_host_fn(void *arg)
{
    lane_call_t *c = arg;

    (void)shmi_helper_post(c->lane->thread, &c->item,
                           SHMI_HELPER_WAIT | SHMI_HELPER_PROMISED);
    free(c);
}

void shmi_stream_enqueue(const char *routine, void *stream,
                         shmi_stream_fn_t run, void *arg)
{
    const shmi_gpu_ops_t *g = shmi_stream_backend(routine);
    lane_call_t *c = calloc(1, sizeof(*c));
    int ret;

    if (!c || !arg)
        SHMI_FATAL("%s: PE %d: out of memory", routine, shmi_my_pe_fast());
    c->lane = lane_of(routine, stream);
    c->item.what = routine;
    c->item.run = lane_run;
    c->run = run;
    c->arg = arg;
    if ((ret = g->stream_host(stream, lane_host_fn, c)) != 0) {
        shmi_helper_unpromise(c->lane->thread);
        free(c);
        free(arg);
        shmi_device_fail(routine, shmi_my_pe_fast(), ret);
    }
}

/* Waits until every host function enqueued for l has returned (the
 * stream's earlier work runs to its end first; the stream itself is not
 * touched: the program may have destroyed it), then stops the lane. */
static void lane_stop(const shmi_gpu_ops_t *g, shmi_stream_lane_t *l)
{
    shmi_helper_stop(l->thread); /* drains: every promised operation runs */
    g->stream_destroy(l->exec.work_stream);
    if (l->exec.scratch)
        g->free(l->exec.scratch);
    shmi_ctx_runtime_free(l->exec.ctx);
    free(l);
}

void shmi_stream_forget(void *stream)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();

    pthread_mutex_lock(&lanes.lock);
    for (int i = 0; i < lanes.n; i++) {
        if (lanes.lane[i]->stream != stream)
            continue;
        lane_stop(g, lanes.lane[i]);
        lanes.lane[i] = lanes.lane[--lanes.n];
        break;
    }
    pthread_mutex_unlock(&lanes.lock);
}

unsigned long shmi_stream_lanes_pending(void)
{
    unsigned long n = 0;

    pthread_mutex_lock(&lanes.lock);
    for (int i = 0; i < lanes.n; i++)
        n += shmi_helper_pending(lanes.lane[i]->thread, NULL);
    pthread_mutex_unlock(&lanes.lock);
    return n;
}

void shmi_stream_lanes_say(char *buf, size_t len)
{
    int busy = 0;

    if (len)
        buf[0] = '\0';
    pthread_mutex_lock(&lanes.lock);
    for (int i = 0; i < lanes.n && !busy; i++) {
        shmi_stream_lane_t *l = lanes.lane[i];
        const char *running;
        unsigned long pending = shmi_helper_pending(l->thread, &running);

        if (pending > 0) {
            busy = 1;
            if (running)
                snprintf(buf, len,
                         "the lane of stream %p runs %s (%lu operation(s) of "
                         "that stream enqueued and not ended)",
                         l->stream, running, pending);
            else
                snprintf(buf, len,
                         "stream %p has %lu stream-ordered operation(s) "
                         "enqueued behind work that has not ended",
                         l->stream, pending);
        }
    }
    pthread_mutex_unlock(&lanes.lock);
}

void shmi_stream_lanes_stop(void)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();

    pthread_mutex_lock(&lanes.lock);
    for (int i = 0; i < lanes.n; i++)
        lane_stop(g, lanes.lane[i]);
    lanes.n = 0;
    pthread_mutex_unlock(&lanes.lock);
}
