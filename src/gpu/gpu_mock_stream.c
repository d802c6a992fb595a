/*
 * The mock device's streams (gpu_mock.h): what a GPU's stream is to the
 * code that enqueues on it, without a GPU. Each stream is a FIFO of work
 * items and one worker thread that runs them in order: copies and
 * reductions through the mock's own functions (so device memory stays
 * PROT_NONE to everything else), host functions as they are. Enqueueing
 * returns at once; shmi_gpu_mock_stream_sync waits until the queue is
 * drained. The default stream (NULL) is one such stream, made on first use.
 *
 * What it does not model: the legacy default stream's implicit
 * synchronisation with other streams (Weft's own work never relies on it,
 * src/gpu/gpu_runtime.c), and concurrency between the copy engines and
 * kernels of one stream (a GPU has none either).
 *
 * Every stream made here stays in a list for the life of the process, a
 * destroyed one marked so (its worker stopped, its few bytes kept): a
 * pointer that is not a live stream of the list (a destroyed stream, a
 * garbage pointer) is SHMI_EINVAL for every member, never a read of freed
 * or foreign memory, and no later stream can take a destroyed one's
 * address.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "gpu/gpu.h"
#include "gpu/gpu_mock.h"
#include "services/error.h"

typedef enum item_kind { ITEM_HOST, ITEM_COPY, ITEM_REDUCE } item_kind_t;

typedef struct mock_item {
    struct mock_item *next;
    item_kind_t kind;
    void (*fn)(void *); /* ITEM_HOST */
    void *arg;
    void *dst; /* ITEM_COPY: dst, src; ITEM_REDUCE: acc, in */
    const void *src;
    size_t len; /* bytes (copy) or elements (reduce) */
    shmi_gpu_copy_t dir;
    shmi_op_t op;
    shmi_dtype_t dt;
} mock_item_t;

typedef struct mock_stream {
    pthread_mutex_t lock;
    pthread_cond_t work; /* an item was queued, or stop */
    pthread_cond_t idle; /* an item finished */
    mock_item_t *head, *tail;
    uint64_t queued, finished;
    int error; /* first failure of an item, reported by sync */
    int stop;
    pthread_t thread;
    struct mock_stream *all_next; /* the list of every stream made */
    int dead;                     /* destroyed (under all_lock) */
} mock_stream_t;

static mock_stream_t *default_stream;
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;
static mock_stream_t *all_streams;

static void item_run(mock_item_t *it, int *error)
{
    int ret = 0;

    switch (it->kind) {
    case ITEM_HOST: it->fn(it->arg); break;
    case ITEM_COPY:
        ret = shmi_gpu_mock_ops.copy(it->dst, it->src, it->len, it->dir);
        break;
    case ITEM_REDUCE:
        ret = shmi_gpu_mock_reduce(it->dst, it->src, it->len, it->op, it->dt);
        break;
    }
    if (ret != 0 && *error == 0)
        *error = ret;
}

static void *stream_worker(void *arg)
{
    mock_stream_t *s = arg;

    pthread_mutex_lock(&s->lock);
    for (;;) {
        mock_item_t *it;
        int error = 0;

        while (!s->head && !s->stop)
            pthread_cond_wait(&s->work, &s->lock);
        if (!s->head)
            break;
        it = s->head;
        pthread_mutex_unlock(&s->lock);
        item_run(it, &error);
        pthread_mutex_lock(&s->lock);
        s->head = it->next;
        if (!s->head)
            s->tail = NULL;
        if (error && !s->error)
            s->error = error;
        s->finished++;
        pthread_cond_broadcast(&s->idle);
        free(it);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

int shmi_gpu_mock_stream_create(void **stream)
{
    mock_stream_t *s = calloc(1, sizeof(*s));

    if (!s)
        return SHMI_ENOMEM;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->work, NULL);
    pthread_cond_init(&s->idle, NULL);
    if (pthread_create(&s->thread, NULL, stream_worker, s) != 0) {
        free(s);
        return SHMI_ENOMEM;
    }
    pthread_mutex_lock(&all_lock);
    s->all_next = all_streams;
    all_streams = s;
    pthread_mutex_unlock(&all_lock);
    *stream = s;
    return 0;
}

/* The live stream that stream is, or NULL (destroyed, or none). */
static mock_stream_t *stream_live(void *stream)
{
    mock_stream_t *s;

    pthread_mutex_lock(&all_lock);
    for (s = all_streams; s && (void *)s != stream; s = s->all_next)
        ;
    if (s && s->dead)
        s = NULL;
    pthread_mutex_unlock(&all_lock);
    return s;
}

static void default_make(void)
{
    void *s = NULL;

    if (shmi_gpu_mock_stream_create(&s) == 0)
        default_stream = s;
}

/* The default stream for NULL, else the live stream, or NULL. */
static mock_stream_t *stream_of(void *stream)
{
    if (stream)
        return stream_live(stream);
    pthread_once(&default_once, default_make);
    return default_stream;
}

static int stream_push(void *stream, mock_item_t item)
{
    mock_stream_t *s = stream_of(stream);
    mock_item_t *it;

    if (!s)
        return stream ? SHMI_EINVAL : SHMI_ENOMEM;
    if (!(it = malloc(sizeof(*it))))
        return SHMI_ENOMEM;
    *it = item;
    it->next = NULL;
    pthread_mutex_lock(&s->lock);
    if (s->tail)
        s->tail->next = it;
    else
        s->head = it;
    s->tail = it;
    s->queued++;
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(&s->lock);
    return 0;
}

int shmi_gpu_mock_stream_sync(void *stream)
{
    mock_stream_t *s = stream_of(stream);
    int error;

    if (!s)
        return stream ? SHMI_EINVAL : SHMI_ENOMEM;
    pthread_mutex_lock(&s->lock);
    while (s->finished != s->queued)
        pthread_cond_wait(&s->idle, &s->lock);
    error = s->error;
    s->error = 0;
    pthread_mutex_unlock(&s->lock);
    return error;
}

int shmi_gpu_mock_stream_destroy(void *stream)
{
    mock_stream_t *s = stream ? stream_live(stream) : NULL;
    int error;

    if (!s || s == default_stream)
        return SHMI_EINVAL;
    pthread_mutex_lock(&all_lock);
    if (s->dead) { /* destroyed by another thread meanwhile */
        pthread_mutex_unlock(&all_lock);
        return SHMI_EINVAL;
    }
    s->dead = 1;
    pthread_mutex_unlock(&all_lock);
    /* What was enqueued before runs to its end; nothing can be added now. */
    pthread_mutex_lock(&s->lock);
    while (s->finished != s->queued)
        pthread_cond_wait(&s->idle, &s->lock);
    error = s->error;
    s->stop = 1;
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->work);
    pthread_cond_destroy(&s->idle);
    return error;
}

int shmi_gpu_mock_stream_host(void *stream, void (*fn)(void *), void *arg)
{
    return stream_push(stream,
                       (mock_item_t){.kind = ITEM_HOST, .fn = fn, .arg = arg});
}

int shmi_gpu_mock_stream_copy(void *dst, const void *src, size_t len,
                              shmi_gpu_copy_t dir, void *stream)
{
    return stream_push(
        stream,
        (mock_item_t){
            .kind = ITEM_COPY, .dst = dst, .src = src, .len = len, .dir = dir});
}

int shmi_gpu_mock_stream_reduce(void *acc, const void *in, size_t n,
                                shmi_op_t op, shmi_dtype_t dt, void *stream)
{
    if (!shmi_reduce_valid(op, dt))
        return SHMI_ENOTSUP;
    if (n == 0) /* the caller asks whether the kernel exists */
        return 0;
    return stream_push(stream, (mock_item_t){.kind = ITEM_REDUCE,
                                             .dst = acc,
                                             .src = in,
                                             .len = n,
                                             .op = op,
                                             .dt = dt});
}
