/*
 * The symmetric heap of this PE: a shared-memory object mapped here (and by
 * the PEs of this node, see transports/local/local_map.c), carved by the
 * deterministic allocator (alloc.c). See heap.h.
 */
#define _GNU_SOURCE
#include "config.h"

#include "core/heap/heap.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "core/state.h"
#include "services/error.h"

/* Bounds of the heap base alignment: 2 MiB lets the kernel use huge pages
 * and gives shmem_align room; beyond 1 GiB the address space reserved just
 * to align would be wasteful. */
#define HEAP_MIN_ALIGN ((size_t)2 << 20)
#define HEAP_MAX_ALIGN ((size_t)1 << 30)

/* Below this, zeroing a freed block is a memset; above, whole pages are
 * handed back to the system (they read as zero and cost no memory), except
 * for a POSIX object, whose pages stay reserved. */
#define ZERO_PUNCH_MIN ((size_t)256 << 10)

static struct {
    char *base;
    size_t size;
    size_t align;
    shmi_alloc_t *alloc;
    shmi_shm_t obj;
    pthread_mutex_t lock; /* serialises the allocator */
} heap = {.lock = PTHREAD_MUTEX_INITIALIZER, .obj = {.fd = -1, .unlinked = 1}};

static size_t heap_align_for(size_t size)
{
    size_t a = HEAP_MIN_ALIGN;

    while (a < size && a < HEAP_MAX_ALIGN)
        a <<= 1;
    return a;
}

int shmi_heap_create(size_t size, const char *kind, shmi_shm_desc_t *desc)
{
    size_t page = shmi_page_size();
    int ret;

    size = (size + page - 1) & ~(page - 1);
    heap.align = heap_align_for(size);
    ret = shmi_shm_create(kind, "heap", size, &heap.obj);
    if (ret != 0)
        return ret;
    heap.base = shmi_shm_map(heap.obj.fd, size, heap.align);
    if (!heap.base) {
        SHMI_LOG(SHMI_LOG_ERROR, "heap", "mmap of %zu bytes: %s", size,
                 strerror(errno));
        shmi_shm_release(&heap.obj);
        return SHMI_ENOMEM;
    }
    ret = shmi_alloc_create(size, heap.align, &heap.alloc);
    if (ret != 0) {
        munmap(heap.base, size);
        heap.base = NULL;
        shmi_shm_release(&heap.obj);
        return ret;
    }
    heap.size = size;
    heap.obj.desc.align = heap.align;
    shmi_state.seg[SHMI_SEG_HEAP].base = heap.base;
    shmi_state.seg[SHMI_SEG_HEAP].size = size;
    *desc = heap.obj.desc;
    return 0;
}

int shmi_heap_user_window(size_t want, size_t *lo, size_t *hi)
{
    int ret;

    if (!heap.alloc)
        return SHMI_EINVAL;
    pthread_mutex_lock(&heap.lock);
    ret = shmi_alloc_window(heap.alloc, want, lo, hi);
    pthread_mutex_unlock(&heap.lock);
    return ret;
}

void shmi_heap_release_object(void)
{
    shmi_shm_release(&heap.obj);
}

void shmi_heap_destroy(void)
{
    shmi_shm_release(&heap.obj);
    if (heap.base)
        munmap(heap.base, heap.size);
    shmi_alloc_destroy(heap.alloc);
    heap.alloc = NULL;
    heap.base = NULL;
    heap.size = 0;
    shmi_state.seg[SHMI_SEG_HEAP].base = NULL;
    shmi_state.seg[SHMI_SEG_HEAP].size = 0;
}

size_t shmi_heap_max_align(void)
{
    return heap.align;
}

/* Keeps "free heap memory reads as zero" true for [off, off+len). */
static void heap_zero(size_t off, size_t len)
{
    uintptr_t page = shmi_page_size();
    char *p = heap.base + off;

    /* A POSIX object's pages were reserved at creation (shm_object.c):
     * handing them back would let a full /dev/shm turn the next touch into
     * a SIGBUS. */
    if (len >= ZERO_PUNCH_MIN && heap.obj.desc.kind != SHMI_SHM_POSIX) {
        char *lo = (char *)(((uintptr_t)p + page - 1) & ~(page - 1));
        char *hi = (char *)(((uintptr_t)p + len) & ~(page - 1));

        if (hi > lo && madvise(lo, (size_t)(hi - lo), MADV_REMOVE) == 0) {
            memset(p, 0, (size_t)(lo - p));
            memset(hi, 0, (size_t)(p + len - hi));
            return;
        }
    }
    memset(p, 0, len);
}

/* Offset of ptr in the heap; fatal when ptr is not in it. */
static size_t heap_offset(const char *routine, const void *ptr)
{
    uintptr_t p = (uintptr_t)ptr, b = (uintptr_t)heap.base;

    if (!heap.alloc || p < b || p - b >= heap.size)
        SHMI_FATAL("%s: %p is not in the symmetric heap (it was not returned "
                   "by a symmetric allocation routine)",
                   routine, ptr);
    return p - b;
}

void *shmi_heap_alloc(size_t size, size_t align)
{
    size_t off;
    int ret;

    if (!heap.alloc || size == 0)
        return NULL;
    pthread_mutex_lock(&heap.lock);
    ret = shmi_alloc_alloc(heap.alloc, size, align, &off);
    pthread_mutex_unlock(&heap.lock);
    if (ret != 0) {
        SHMI_LOG(SHMI_LOG_DEBUG, "heap",
                 "no block of %zu bytes aligned to %zu: %s", size, align,
                 shmi_strerror(ret));
        return NULL;
    }
    return heap.base + off;
}

void shmi_heap_free(const char *routine, void *ptr)
{
    size_t off, len;
    int ret;

    if (!ptr)
        return;
    off = heap_offset(routine, ptr);
    pthread_mutex_lock(&heap.lock);
    ret = shmi_alloc_free(heap.alloc, off, &len);
    /* Zero before the block can be handed out again. */
    if (ret == 0)
        heap_zero(off, len);
    pthread_mutex_unlock(&heap.lock);
    if (ret != 0)
        SHMI_FATAL("%s: %p is not an allocated block of the symmetric heap "
                   "(never allocated, already freed, or not its start)",
                   routine, ptr);
}

int shmi_heap_resize(const char *routine, void *ptr, size_t size)
{
    size_t off = heap_offset(routine, ptr), rel = 0, rel_len = 0;
    int ret;

    pthread_mutex_lock(&heap.lock);
    ret = shmi_alloc_resize(heap.alloc, off, size, &rel, &rel_len);
    if (ret == 0 && rel_len)
        heap_zero(rel, rel_len);
    pthread_mutex_unlock(&heap.lock);
    if (ret == SHMI_EINVAL)
        SHMI_FATAL("%s: %p is not an allocated block of the symmetric heap",
                   routine, ptr);
    return ret;
}

size_t shmi_heap_block_size(const char *routine, const void *ptr)
{
    size_t off = heap_offset(routine, ptr), len = 0;
    int ret;

    pthread_mutex_lock(&heap.lock);
    ret = shmi_alloc_block_size(heap.alloc, off, &len);
    pthread_mutex_unlock(&heap.lock);
    if (ret != 0)
        SHMI_FATAL("%s: %p is not an allocated block of the symmetric heap",
                   routine, ptr);
    return len;
}

void shmi_heap_stats(shmi_alloc_stats_t *st)
{
    memset(st, 0, sizeof(*st));
    if (!heap.alloc)
        return;
    pthread_mutex_lock(&heap.lock);
    shmi_alloc_get_stats(heap.alloc, st);
    pthread_mutex_unlock(&heap.lock);
}
