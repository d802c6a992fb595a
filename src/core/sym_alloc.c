/*
 * The symmetric allocation routines, entry points of the heaps:
 * shmem_malloc, shmem_calloc, shmem_align, shmem_realloc, shmem_free,
 * shmem_malloc_with_hints and their device forms (collective). The address
 * queries are addr_query.c.
 *
 * Symmetry needs no communication: every PE makes the same allocator calls
 * in the same order, and the allocator is deterministic, so every PE gets
 * the same offset, or every PE gets NULL (exhaustion is deterministic too).
 * The barriers are the ones the specification asks for: allocation ends
 * with one (the block may be used remotely as soon as the call returns),
 * free starts with one (nobody still uses the block).
 *
 * With SHMEM_DEBUG=1 each collective call also checks that every PE passed
 * the same arguments (an extra barrier and one small get from PE 0).
 *
 * Device memory (shmemx_malloc_device, shmemx_calloc_device,
 * shmemx_align_device) comes from the device heap (device_heap.h) under the
 * same rules; shmem_free and shmem_realloc recognise its pointers.
 * shmem_malloc_with_hints never gives device memory: its hints describe
 * use, not place.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "core/core_decl.h"
#include "core/coll/peer_record.h"
#include "core/core_api.h"
#include "core/dataplane.h"
#include "core/heap/device_heap.h"
#include "core/heap/heap.h"
#include "core/init.h"
#include "core/segment.h"
#include "core/state.h"
#include "core/team/team.h"
#include "services/env.h"
#include "services/error.h"
#include "shmem.h"
#include "shmemx.h"

/* ---- SHMEM_DEBUG: same arguments on every PE ----------------------------- */

/* Two slots of two words at the same offset on every PE, used alternately:
 * PE 0 cannot rewrite a slot before every PE has read it, because between
 * two uses of one slot lies a barrier that every PE reaches after reading. */
static uint64_t *debug_slots;
static unsigned debug_seq;

/* Runtime state, so allocated in shmem_init before the heap's user area is
 * fixed (segments.c): the program keeps all of SHMEM_SYMMETRIC_SIZE. Every
 * PE makes the same call: same offset everywhere. */
void shmi_heap_debug_init(void)
{
    if (shmi_env.DEBUG && shmi_n_pes_fast() >= 2 && !debug_slots)
        debug_slots = shmi_heap_alloc(4 * sizeof(uint64_t), 0);
}

static void debug_check(const char *routine, uint64_t a, uint64_t b)
{
    uint64_t *slot, root[2];
    size_t off;
    int seg;

    if (!shmi_env.DEBUG || !debug_slots)
        return;
    slot = debug_slots + 2 * (debug_seq++ & 1);
    slot[0] = a;
    slot[1] = b;
    shmi_barrier_all();
    /* A different collective call on some PE explains different arguments
     * better than the arguments do: name it first. */
    shmi_coll_compare_now();
    if (shmi_my_pe_fast() == 0)
        return;
    seg = shmi_eng_seg_at(routine, slot, sizeof(root), &off);
    shmi_eng_get(routine, SHMEM_CTX_DEFAULT, 0, seg, off, root, sizeof(root),
                 0);
    if (root[0] != a || root[1] != b)
        SHMI_FATAL("%s is collective and needs the same arguments on every "
                   "PE: PE 0 passed (%llu, %llu), PE %d passed (%llu, %llu)",
                   routine, (unsigned long long)root[0],
                   (unsigned long long)root[1], shmi_my_pe_fast(),
                   (unsigned long long)a, (unsigned long long)b);
}

/* A pointer as something equal on every PE: its heap offset (device heap
 * offsets are tagged with the top bit). */
static uint64_t sym_key(const void *ptr)
{
    size_t off;
    int seg = ptr ? shmi_seg_lookup(ptr, 1, &off) : -1;

    if (seg == SHMI_SEG_HEAP)
        return off;
    if (seg == SHMI_SEG_DEVICE)
        return off | (1ULL << 63);
    return UINT64_MAX;
}

/* ---- allocation ---------------------------------------------------------- */

/* One of the two symmetric heaps as the allocation routines see it: the
 * host heap (heap.h) and the device heap (device_heap.h) offer the same
 * calls, so each routine below is written once for both. */
typedef struct sym_heap {
    const char *what; /* for messages */
    const char *env;  /* what sizes it */
    void *(*alloc)(size_t size, size_t align);
    void (*free)(const char *routine, void *ptr);
    int (*resize)(const char *routine, void *ptr, size_t size);
    size_t (*block_size)(const char *routine, const void *ptr);
    size_t (*max_align)(void);
    /* Copies len bytes between two blocks of this heap; 0 or SHMI_E*. */
    int (*copy)(void *dst, const void *src, size_t len);
} sym_heap_t;

static int host_copy(void *dst, const void *src, size_t len)
{
    memcpy(dst, src, len);
    return 0;
}

static int device_copy(void *dst, const void *src, size_t len)
{
    return shmi_device_backend()->copy(dst, src, len, SHMI_GPU_D2D);
}

static const sym_heap_t host_heap = {
    "symmetric heap", "SHMEM_SYMMETRIC_SIZE", shmi_heap_alloc,
    shmi_heap_free, shmi_heap_resize, shmi_heap_block_size,
    shmi_heap_max_align, host_copy};
static const sym_heap_t device_heap = {
    "device symmetric heap", "SHMEM_SYMMETRIC_DEVICE_SIZE",
    shmi_device_heap_alloc, shmi_device_heap_free, shmi_device_heap_resize,
    shmi_device_heap_block_size, shmi_device_heap_max_align, device_copy};

static const sym_heap_t *heap_of(const void *ptr)
{
    return ptr && shmi_device_heap_contains(ptr) ? &device_heap : &host_heap;
}

static void *collective_alloc(const sym_heap_t *h, const char *routine,
                              size_t size, size_t align)
{
    void *p = NULL;

    shmi_require_init(routine);
    shmi_coll_enter(routine, &shmem_impl_team_world);
    debug_check(routine, size, align);
    if (size > 0 && h == &device_heap && !shmi_device_backend())
        SHMI_LOG(SHMI_LOG_DEBUG, "heap",
                 "%s(%zu): no device heap "
                 "(SHMEM_DEVICE_BACKEND, SHMEM_SYMMETRIC_DEVICE_SIZE)",
                 routine, size);
    else if (size > 0 && !(p = h->alloc(size, align)))
        SHMI_LOG(SHMI_LOG_DEBUG, "heap", "%s(%zu): %s exhausted (%s)",
                 routine, size, h->what, h->env);
    shmi_barrier_all();
    shmi_coll_leave();
    return p;
}

/* count * size, or 0 (with a warning naming the routine) when the product
 * does not fit in size_t: the allocation then fails alike on every PE, as
 * the arguments are the same everywhere. Free memory of either heap reads
 * as zero (heap.h; device_heap.c clears freed blocks): nothing to clear. */
static void *collective_calloc(const sym_heap_t *h, const char *routine,
                               size_t count, size_t size)
{
    if (count && size > SIZE_MAX / count) {
        SHMI_LOG(SHMI_LOG_WARN, "heap",
                 "%s: count %zu times size %zu does not fit in size_t; "
                 "returning NULL",
                 routine, count, size);
        return collective_alloc(h, routine, 0, 0);
    }
    return collective_alloc(h, routine, count * size, 0);
}

/* An alignment that is not a power of two of at most the heap's largest
 * gets a warning naming the routine and NULL, on every PE alike. */
static void *collective_align(const sym_heap_t *h, const char *routine,
                              size_t alignment, size_t size)
{
    /* Before the heap exists its largest alignment means nothing. */
    shmi_require_init(routine);
    if (!alignment || (alignment & (alignment - 1)) ||
        alignment > h->max_align()) {
        SHMI_LOG(SHMI_LOG_WARN, "heap",
                 "%s: alignment %zu is not a power of two of at most %zu; "
                 "returning NULL",
                 routine, alignment, h->max_align());
        return collective_alloc(h, routine, 0, 0);
    }
    return collective_alloc(h, routine, size, alignment);
}

void *shmi_malloc(size_t size)
{
    return collective_alloc(&host_heap, "shmem_malloc", size, 0);
}

void *shmi_calloc(size_t count, size_t size)
{
    return collective_calloc(&host_heap, "shmem_calloc", count, size);
}

void *shmi_align(size_t alignment, size_t size)
{
    return collective_align(&host_heap, "shmem_align", alignment, size);
}

void *shmi_malloc_with_hints(size_t size, long hints)
{
    /* The specification makes hints a request for performance that never
     * changes what the call returns; where it cannot be honoured the call
     * is shmem_malloc. So every value, unknown bits too, gives host memory
     * from the host heap: the standard hints (SHMEM_MALLOC_ATOMICS_REMOTE,
     * _SIGNAL_REMOTE) change nothing with one heap and one atomic engine
     * per target, and device memory has routines of its own (below). */
    (void)hints;
    return collective_alloc(&host_heap, "shmem_malloc_with_hints", size, 0);
}

void *shmix_malloc_device(size_t size)
{
    return collective_alloc(&device_heap, "shmemx_malloc_device", size, 0);
}

void *shmix_calloc_device(size_t count, size_t size)
{
    return collective_calloc(&device_heap, "shmemx_calloc_device", count,
                             size);
}

void *shmix_align_device(size_t alignment, size_t size)
{
    return collective_align(&device_heap, "shmemx_align_device", alignment,
                            size);
}

/* What a binding needs to describe device memory to other libraries
 * (DLPack's device type and ordinal; the Python package's
 * __dlpack_device__): which back end serves the heap, on which device. */
int shmix_device_info(const char **backend, int *device)
{
    const shmi_gpu_ops_t *g;

    shmi_require_init("shmemx_device_info");
    g = shmi_device_backend();
    if (backend)
        *backend = g ? g->name : NULL;
    if (device)
        *device = g ? shmi_device_ordinal() : -1;
    return g ? 0 : -1;
}

void shmi_free(void *ptr)
{
    shmi_require_init("shmem_free");
    shmi_coll_enter("shmem_free", &shmem_impl_team_world);
    debug_check("shmem_free", sym_key(ptr), 0);
    shmi_barrier_all();
    shmi_coll_leave();
    heap_of(ptr)->free("shmem_free", ptr);
}

/* shmem_realloc's block: in place, else a new block of the same heap and a
 * copy; NULL (and ptr untouched) when no block is large enough. */
static void *heap_realloc(const sym_heap_t *h, void *ptr, size_t size)
{
    const char *r = "shmem_realloc";
    size_t old;
    void *p;

    if (h->resize(r, ptr, size) == 0)
        return ptr;
    old = h->block_size(r, ptr);
    p = h->alloc(size, 0);
    if (!p)
        return NULL;
    if (h->copy(p, ptr, old < size ? old : size) != 0)
        SHMI_FATAL("%s: PE %d: cannot copy the block of the %s to its new "
                   "place", r, shmi_my_pe_fast(), h->what);
    h->free(r, ptr);
    return p;
}

void *shmi_realloc(void *ptr, size_t size)
{
    void *p;

    if (!ptr)
        return collective_alloc(&host_heap, "shmem_realloc", size, 0);
    if (size == 0) {
        shmi_free(ptr);
        return NULL;
    }
    shmi_require_init("shmem_realloc");
    shmi_coll_enter("shmem_realloc", &shmem_impl_team_world);
    debug_check("shmem_realloc", sym_key(ptr), size);
    /* Entry barrier: other PEs may still be using the old block. */
    shmi_barrier_all();
    p = heap_realloc(heap_of(ptr), ptr, size);
    shmi_barrier_all();
    shmi_coll_leave();
    return p;
}
