/*
 * Lanes (stream.h): one thread per device stream that this PE has used for
 * a stream-ordered routine, made on first use and stopped by
 * shmem_finalize. A host function on the stream hands its operation to the
 * lane and sleeps until the lane has run it.
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

/* Streams of one PE that get a lane; more is an error naming the routine
 * (a program with more streams than this reuses them). */
#define LANES_MAX 64

/* One operation in flight: posted by the host function, run by the lane. */
typedef struct lane_job {
    struct lane_job *next;
    const char *routine; /* the public routine that enqueued it */
    shmi_stream_fn_t run;
    void *arg;
    int done;
} lane_job_t;

struct shmi_stream_lane {
    void *stream; /* the user's stream (NULL: the default stream) */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t posted; /* a job was posted, or stop */
    pthread_cond_t ran;    /* a job finished */
    lane_job_t *head, *tail;
    unsigned long pending; /* enqueued host functions not yet returned */
    const char *running;   /* routine of the job the lane runs, or NULL */
    int stop;
    int started;
    shmi_coll_exec_t exec;
};

/* What the host function carries: the lane and the job. */
typedef struct lane_call {
    shmi_stream_lane_t *lane;
    lane_job_t job;
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

static void *lane_main(void *arg)
{
    shmi_stream_lane_t *l = arg;

    pthread_mutex_lock(&l->lock);
    for (;;) {
        lane_job_t *j;

        while (!l->head && !l->stop)
            pthread_cond_wait(&l->posted, &l->lock);
        if (!l->head)
            break;
        j = l->head;
        l->head = j->next;
        if (!l->head)
            l->tail = NULL;
        l->running = j->routine;
        pthread_mutex_unlock(&l->lock);
        j->run(&l->exec, j->arg);
        free(j->arg);
        pthread_mutex_lock(&l->lock);
        l->running = NULL;
        j->done = 1;
        pthread_cond_broadcast(&l->ran);
    }
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

static shmi_stream_lane_t *lane_new(const char *routine, void *stream)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();
    shmi_stream_lane_t *l = calloc(1, sizeof(*l));
    int ret;

    if (!l)
        SHMI_FATAL("%s: PE %d: out of memory", routine, shmi_my_pe_fast());
    l->stream = stream;
    pthread_mutex_init(&l->lock, NULL);
    pthread_cond_init(&l->posted, NULL);
    pthread_cond_init(&l->ran, NULL);
    l->exec.lane = 1;
    l->exec.ctx = shmi_ctx_runtime_new(SHMEM_CTX_PRIVATE);
    if (!l->exec.ctx)
        SHMI_FATAL("%s: PE %d cannot make a context for a stream", routine,
                   shmi_my_pe_fast());
    if ((ret = g->stream_create(&l->exec.work_stream)) != 0)
        shmi_device_fail(routine, shmi_my_pe_fast(), ret);
    shmi_progress_share();
    if (pthread_create(&l->thread, NULL, lane_main, l) != 0)
        SHMI_FATAL("%s: PE %d cannot start a thread for a stream", routine,
                   shmi_my_pe_fast());
    l->started = 1;
    return l;
}

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
    pthread_mutex_unlock(&lanes.lock);
    return l;
}

/* The host function: posts the job and sleeps until the lane ran it. */
static void lane_host_fn(void *arg)
{
    lane_call_t *c = arg;
    shmi_stream_lane_t *l = c->lane;

    pthread_mutex_lock(&l->lock);
    if (l->tail)
        l->tail->next = &c->job;
    else
        l->head = &c->job;
    l->tail = &c->job;
    pthread_cond_signal(&l->posted);
    while (!c->job.done)
        pthread_cond_wait(&l->ran, &l->lock);
    l->pending--;
    pthread_cond_broadcast(&l->ran);
    pthread_mutex_unlock(&l->lock);
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
    c->job.routine = routine;
    c->job.run = run;
    c->job.arg = arg;
    pthread_mutex_lock(&c->lane->lock);
    c->lane->pending++;
    pthread_mutex_unlock(&c->lane->lock);
    if ((ret = g->stream_host(stream, lane_host_fn, c)) != 0) {
        pthread_mutex_lock(&c->lane->lock);
        c->lane->pending--;
        pthread_mutex_unlock(&c->lane->lock);
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
    pthread_mutex_lock(&l->lock);
    while (l->pending > 0)
        pthread_cond_wait(&l->ran, &l->lock);
    l->stop = 1;
    pthread_cond_signal(&l->posted);
    pthread_mutex_unlock(&l->lock);
    pthread_join(l->thread, NULL);
    g->stream_destroy(l->exec.work_stream);
    if (l->exec.scratch)
        g->free(l->exec.scratch);
    shmi_ctx_runtime_free(l->exec.ctx);
    pthread_mutex_destroy(&l->lock);
    pthread_cond_destroy(&l->posted);
    pthread_cond_destroy(&l->ran);
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
    for (int i = 0; i < lanes.n; i++) {
        pthread_mutex_lock(&lanes.lane[i]->lock);
        n += lanes.lane[i]->pending;
        pthread_mutex_unlock(&lanes.lane[i]->lock);
    }
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

        pthread_mutex_lock(&l->lock);
        if (l->pending > 0) {
            busy = 1;
            if (l->running)
                snprintf(buf, len,
                         "the lane of stream %p runs %s (%lu operation(s) of "
                         "that stream enqueued and not ended)",
                         l->stream, l->running, l->pending);
            else
                snprintf(buf, len,
                         "stream %p has %lu stream-ordered operation(s) "
                         "enqueued behind work that has not ended",
                         l->stream, l->pending);
        }
        pthread_mutex_unlock(&l->lock);
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
