/*
 * Checks of the stream-ordered routines' arguments (stream.h): the stream
 * handle, as contexts and teams are checked (src/core/ctx.c,
 * src/core/team_api.c), and the buffers and sizes, so that a misuse ends
 * the job with a message naming the routine, the PE and the argument
 * instead of a crash, a hang or a misleading message (docs/gpu.md,
 * "Stream-ordered communication").
 *
 * Streams: the ones shmemx_stream_create made are kept in a list, and the
 * ones shmemx_stream_destroy destroyed in another, so that a second
 * destroy or any later use of a destroyed handle is an error naming the
 * routine, never a double free or a read of freed memory. A stream the
 * program made with its own runtime (cuda, hip) is not in the lists and is
 * passed on as it is: the runtimes have no call that tells a stream from a
 * garbage pointer without using it. On the mock every stream is one that
 * shmemx_stream_create made, so there any other pointer but NULL (the
 * default stream) is refused as not a stream.
 *
 * The lists also tell shmem_finalize which streams it may drain
 * (drain.c): the live ones made here, and the default stream once used.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core_api.h"
#include "core/device_mem.h"
#include "core/heap/device_heap.h"
#include "core/segment.h"
#include "core/state.h"
#include "core/stream/stream.h"
#include "services/error.h"
#include "services/host_probe.h"

typedef struct stream_set {
    void **p;
    size_t n, cap;
} stream_set_t;

static struct {
    pthread_mutex_t lock;
    stream_set_t live; /* made by shmemx_stream_create, not destroyed */
    stream_set_t dead; /* destroyed by shmemx_stream_destroy */
    int default_used;  /* a routine was given NULL (the default stream) */
} reg = {PTHREAD_MUTEX_INITIALIZER, {NULL, 0, 0}, {NULL, 0, 0}, 0};

static int set_find(const stream_set_t *s, const void *stream)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->p[i] == stream)
            return (int)i;
    return -1;
}

static void set_remove(stream_set_t *s, const void *stream)
{
    int i = set_find(s, stream);

    if (i >= 0)
        s->p[i] = s->p[--s->n];
}

/* Adds stream; 0, or -1 out of memory. */
static int set_add(stream_set_t *s, void *stream)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        void **p = realloc(s->p, cap * sizeof(*p));

        if (!p)
            return -1;
        s->p = p;
        s->cap = cap;
    }
    s->p[s->n++] = stream;
    return 0;
}

/* 1 when the back end's only streams are the ones shmemx_stream_create
 * makes (SHMI_GPU_OWN_STREAMS): any other pointer is no stream. */
static int backend_streams_all_known(void)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();

    return g && (g->flags & SHMI_GPU_OWN_STREAMS);
}

void shmi_stream_check(const char *routine, void *stream)
{
    int dead, known;

    if (!stream) {
        if (!__atomic_load_n(&reg.default_used, __ATOMIC_RELAXED))
            __atomic_store_n(&reg.default_used, 1, __ATOMIC_RELAXED);
        return;
    }
    pthread_mutex_lock(&reg.lock);
    dead = set_find(&reg.dead, stream) >= 0;
    known = set_find(&reg.live, stream) >= 0;
    pthread_mutex_unlock(&reg.lock);
    if (dead)
        SHMI_FATAL("%s: PE %d: stream %p was destroyed (shmemx_stream_destroy) "
                   "and cannot be used again",
                   routine, shmi_my_pe_fast(), stream);
    if (!known && backend_streams_all_known())
        SHMI_FATAL("%s: PE %d: stream %p is not a stream: pass NULL (the "
                   "default stream) or a stream from shmemx_stream_create",
                   routine, shmi_my_pe_fast(), stream);
}

void shmi_stream_made(const char *routine, void *stream)
{
    int ret;

    pthread_mutex_lock(&reg.lock);
    /* The runtime may hand out a destroyed stream's address again. */
    set_remove(&reg.dead, stream);
    ret = set_add(&reg.live, stream);
    pthread_mutex_unlock(&reg.lock);
    if (ret)
        SHMI_FATAL("%s: PE %d: out of memory", routine, shmi_my_pe_fast());
}

void shmi_stream_unmake(const char *routine, void *stream)
{
    int dead, ret;

    if (!stream)
        SHMI_FATAL("%s: PE %d: the default stream (NULL) cannot be destroyed",
                   routine, shmi_my_pe_fast());
    pthread_mutex_lock(&reg.lock);
    dead = set_find(&reg.dead, stream) >= 0;
    pthread_mutex_unlock(&reg.lock);
    if (dead)
        SHMI_FATAL("%s: PE %d: stream %p was already destroyed (a stream may "
                   "be destroyed once)",
                   routine, shmi_my_pe_fast(), stream);
    shmi_stream_check(routine, stream);
    pthread_mutex_lock(&reg.lock);
    set_remove(&reg.live, stream);
    ret = set_add(&reg.dead, stream);
    pthread_mutex_unlock(&reg.lock);
    if (ret)
        SHMI_FATAL("%s: PE %d: out of memory", routine, shmi_my_pe_fast());
}

size_t shmi_stream_drain_list(void ***streams)
{
    size_t n;
    void **p;

    pthread_mutex_lock(&reg.lock);
    n = reg.live.n + (reg.default_used ? 1 : 0);
    p = calloc(n ? n : 1, sizeof(*p));
    if (p) {
        if (reg.live.n)
            memcpy(p, reg.live.p, reg.live.n * sizeof(*p));
        /* the default stream last: NULL, already zero */
    } else {
        n = 0;
    }
    pthread_mutex_unlock(&reg.lock);
    *streams = p;
    return n;
}

void shmi_stream_forget_all(void)
{
    pthread_mutex_lock(&reg.lock);
    free(reg.live.p);
    free(reg.dead.p);
    memset(&reg.live, 0, sizeof(reg.live));
    memset(&reg.dead, 0, sizeof(reg.dead));
    reg.default_used = 0;
    pthread_mutex_unlock(&reg.lock);
}

/* ---- buffers and sizes ---- */

/* The part of the device heap that the program's calls may address. */
static void device_user(uintptr_t *lo, uintptr_t *hi)
{
    const shmi_seg_t *g = &shmi_state.seg[SHMI_SEG_DEVICE];

    if (g->user_size) {
        *lo = (uintptr_t)g->user;
        *hi = *lo + g->user_size;
    } else {
        *lo = (uintptr_t)g->base;
        *hi = *lo + g->size;
    }
}

void shmi_stream_need_count(const char *routine, const char *what, size_t count,
                            size_t nbytes)
{
    uintptr_t lo, hi;

    device_user(&lo, &hi);
    /* SIZE_MAX: count times the element size does not fit in size_t
     * (shmi_nbytes). */
    if (nbytes == SIZE_MAX)
        SHMI_FATAL("%s: PE %d: %s %zu is too large: its size in bytes does "
                   "not fit in size_t",
                   routine, shmi_my_pe_fast(), what, count);
    if (nbytes > hi - lo)
        SHMI_FATAL("%s: PE %d: %s %zu is too large: %zu bytes, more than the "
                   "device heap holds (%zu bytes, "
                   "SHMEM_SYMMETRIC_DEVICE_SIZE)",
                   routine, shmi_my_pe_fast(), what, count, nbytes,
                   (size_t)(hi - lo));
}

void shmi_stream_need_device_heap(const char *routine, const char *what,
                                  const void *p, size_t len)
{
    uintptr_t a = (uintptr_t)p, lo, hi;
    const shmi_seg_t *g = &shmi_state.seg[SHMI_SEG_DEVICE];

    if (len == 0)
        return;
    device_user(&lo, &hi);
    if (a >= lo && a < hi) {
        if (len <= hi - a)
            return;
        SHMI_FATAL("%s: PE %d: %s %p and the %zu bytes from it run past the "
                   "end of the device heap's user area at %p (%zu bytes left "
                   "there)",
                   routine, shmi_my_pe_fast(), what, p, len, (void *)hi,
                   (size_t)(hi - a));
    }
    if (a - (uintptr_t)g->base < g->size)
        SHMI_FATAL("%s: PE %d: %s %p is in the device heap but past the end "
                   "of its user area [%p, %p) (the words after it are the "
                   "device barrier's): use memory from shmemx_malloc_device",
                   routine, shmi_my_pe_fast(), what, p, (void *)lo, (void *)hi);
    SHMI_FATAL("%s: PE %d: %s %p is not in the device heap; a "
               "stream-ordered routine needs symmetric device memory "
               "(shmemx_malloc_device)",
               routine, shmi_my_pe_fast(), what, p);
}

/* 1 when [p, p + len) (len > 0, no wrap) lies in device memory: the user
 * part of the device heap, or memory of the back end at both ends. */
static int device_range(const void *p, size_t len)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();
    uintptr_t a = (uintptr_t)p, lo, hi;

    device_user(&lo, &hi);
    if (a >= lo && a < hi)
        return len <= hi - a;
    return g && g->is_device(p) && g->is_device((const char *)p + (len - 1));
}

void shmi_stream_need_device(const char *routine, const char *what,
                             const void *p, const char *size_name, size_t len)
{
    if (len == 0)
        return;
    if (!shmi_device_touches(p, len))
        SHMI_FATAL("%s: PE %d: %s %p is host memory; a stream-ordered "
                   "routine needs device memory (shmemx_malloc_device)",
                   routine, shmi_my_pe_fast(), what, p);
    if ((uintptr_t)p + (len - 1) < (uintptr_t)p || !device_range(p, len))
        SHMI_FATAL("%s: PE %d: %s %zu is too large for %s %p: the range "
                   "runs past the end of its device memory",
                   routine, shmi_my_pe_fast(), size_name, len, what, p);
}

void shmi_stream_need_host(const char *routine, const char *what, const void *p,
                           const char *size_name, size_t len)
{
    uintptr_t a = (uintptr_t)p, bad;

    if (len == 0)
        return;
    if (a < 4096 || a + (len - 1) < a)
        SHMI_FATAL("%s: PE %d: %s %p (%zu bytes) is not a valid address",
                   routine, shmi_my_pe_fast(), what, p, len);
    bad = shmi_host_unreachable(a, len, 0);
    if (bad == a)
        SHMI_FATAL("%s: PE %d: %s %p is neither device memory nor memory of "
                   "this process (not mapped)",
                   routine, shmi_my_pe_fast(), what, p);
    if (bad)
        SHMI_FATAL("%s: PE %d: %s %zu is too large for %s %p: the range "
                   "reaches memory this process does not have, at %p",
                   routine, shmi_my_pe_fast(), size_name, len, what, p,
                   (void *)bad);
}
