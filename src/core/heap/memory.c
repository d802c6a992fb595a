/*
 * The symmetric memory routines: shmem_malloc, shmem_calloc, shmem_align,
 * shmem_realloc, shmem_free, shmem_malloc_with_hints (collective), and the
 * address queries shmem_ptr, shmem_team_ptr, shmem_addr_accessible.
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
 * same rules; shmem_free and shmem_realloc recognise its pointers, and
 * shmem_ptr returns the IPC mapping of a local PE's device heap (a device
 * address). shmem_malloc_with_hints never gives device memory: its hints
 * describe use, not place.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "core/core_decl.h"
#include "core/coll/watch.h"
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

static int is_device_ptr(const void *ptr)
{
    return ptr && shmi_device_heap_contains(ptr);
}

/* ---- allocation ---------------------------------------------------------- */

static void *collective_alloc(const char *routine, size_t size, size_t align)
{
    void *p = NULL;

    shmi_require_init(routine);
    shmi_coll_enter(routine, &shmem_impl_team_world);
    debug_check(routine, size, align);
    if (size > 0)
        p = shmi_heap_alloc(size, align);
    if (!p && size > 0)
        SHMI_LOG(SHMI_LOG_DEBUG, "heap",
                 "%s(%zu): symmetric heap exhausted "
                 "(SHMEM_SYMMETRIC_SIZE)",
                 routine, size);
    shmi_barrier_all();
    shmi_coll_leave();
    return p;
}

void *shmi_malloc(size_t size)
{
    return collective_alloc("shmem_malloc", size, 0);
}

/* count * size, or 0 (with a warning naming the routine) when the product
 * does not fit in size_t: the allocation then fails alike on every PE, as
 * the arguments are the same everywhere. */
static size_t calloc_bytes(const char *routine, size_t count, size_t size)
{
    if (count && size > SIZE_MAX / count) {
        SHMI_LOG(SHMI_LOG_WARN, "heap",
                 "%s: count %zu times size %zu does not fit in size_t; "
                 "returning NULL",
                 routine, count, size);
        return 0;
    }
    return count * size;
}

/* 1 when alignment is a power of two of at most max; else a warning naming
 * the routine and 0. */
static int align_ok(const char *routine, size_t alignment, size_t max)
{
    if (alignment && !(alignment & (alignment - 1)) && alignment <= max)
        return 1;
    SHMI_LOG(SHMI_LOG_WARN, "heap",
             "%s: alignment %zu is not a power of two of at most %zu; "
             "returning NULL",
             routine, alignment, max);
    return 0;
}

void *shmi_calloc(size_t count, size_t size)
{
    /* Free heap memory reads as zero (heap.h): nothing to clear. */
    return collective_alloc("shmem_calloc",
                            calloc_bytes("shmem_calloc", count, size), 0);
}

void *shmi_align(size_t alignment, size_t size)
{
    /* Before the heap exists its largest alignment means nothing. */
    shmi_require_init("shmem_align");
    if (!align_ok("shmem_align", alignment, shmi_heap_max_align()))
        return collective_alloc("shmem_align", 0, 0);
    return collective_alloc("shmem_align", size, alignment);
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
    return collective_alloc("shmem_malloc_with_hints", size, 0);
}

/* The device heap's collective_alloc. */
static void *device_alloc(const char *routine, size_t size, size_t align)
{
    void *p = NULL;

    shmi_require_init(routine);
    shmi_coll_enter(routine, &shmem_impl_team_world);
    debug_check(routine, size, align);
    if (size > 0 && !shmi_device_backend())
        SHMI_LOG(SHMI_LOG_DEBUG, "heap",
                 "%s(%zu): no device heap "
                 "(SHMEM_DEVICE_BACKEND, SHMEM_SYMMETRIC_DEVICE_SIZE)",
                 routine, size);
    else if (size > 0 && !(p = shmi_device_heap_alloc(size, align)))
        SHMI_LOG(SHMI_LOG_DEBUG, "heap",
                 "%s(%zu): device symmetric heap exhausted "
                 "(SHMEM_SYMMETRIC_DEVICE_SIZE)",
                 routine, size);
    shmi_barrier_all();
    shmi_coll_leave();
    return p;
}

void *shmix_malloc_device(size_t size)
{
    return device_alloc("shmemx_malloc_device", size, 0);
}

void *shmix_calloc_device(size_t count, size_t size)
{
    const char *r = "shmemx_calloc_device";

    /* Free device memory reads as zero too (freed blocks are cleared,
     * device_heap.c): nothing to clear. */
    return device_alloc(r, calloc_bytes(r, count, size), 0);
}

void *shmix_align_device(size_t alignment, size_t size)
{
    const char *r = "shmemx_align_device";

    shmi_require_init(r);
    if (!align_ok(r, alignment, shmi_device_heap_max_align()))
        return device_alloc(r, 0, 0);
    return device_alloc(r, size, alignment);
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
    if (is_device_ptr(ptr))
        shmi_device_heap_free("shmem_free", ptr);
    else
        shmi_heap_free("shmem_free", ptr);
}

/* Moves a block that cannot grow in place; NULL (and ptr untouched) when no
 * block is large enough. */
static void *realloc_move(void *ptr, size_t size)
{
    size_t old = shmi_heap_block_size("shmem_realloc", ptr);
    void *p = shmi_heap_alloc(size, 0);

    if (!p)
        return NULL;
    memcpy(p, ptr, old < size ? old : size);
    shmi_heap_free("shmem_realloc", ptr);
    return p;
}

/* shmem_realloc of a device block: in place, else a new block and a
 * device-to-device copy. */
static void *device_realloc(void *ptr, size_t size)
{
    const char *r = "shmem_realloc";
    size_t old;
    void *p;

    if (shmi_device_heap_resize(r, ptr, size) == 0)
        return ptr;
    old = shmi_device_heap_block_size(r, ptr);
    p = shmi_device_heap_alloc(size, 0);
    if (!p)
        return NULL;
    if (shmi_device_backend()->copy(p, ptr, old < size ? old : size,
                                    SHMI_GPU_D2D) != 0)
        SHMI_FATAL("%s: cannot copy the device block to its new place", r);
    shmi_device_heap_free(r, ptr);
    return p;
}

void *shmi_realloc(void *ptr, size_t size)
{
    void *p;

    if (!ptr)
        return collective_alloc("shmem_realloc", size, 0);
    if (size == 0) {
        shmi_free(ptr);
        return NULL;
    }
    shmi_require_init("shmem_realloc");
    shmi_coll_enter("shmem_realloc", &shmem_impl_team_world);
    debug_check("shmem_realloc", sym_key(ptr), size);
    /* Entry barrier: other PEs may still be using the old block. */
    shmi_barrier_all();
    if (is_device_ptr(ptr))
        p = device_realloc(ptr, size);
    else if (shmi_heap_resize("shmem_realloc", ptr, size) == 0)
        p = ptr;
    else
        p = realloc_move(ptr, size);
    shmi_barrier_all();
    shmi_coll_leave();
    return p;
}

/* ---- address queries ----------------------------------------------------- */

/* The address queries are fatal outside the library's lifetime (a NULL or
 * 0 there would read as "not accessible", which hides the mistake); the
 * state check replaces the one that returned NULL, at the same cost. */
/* 1 when addr lies in the part of its segment the program may address
 * (state.h, range_check.c): the runtime's state before the heap's user area
 * and the slack past it are no symmetric addresses of the program's. */
static int shmi_addr_in_user(const void *addr)
{
    for (int s = 0; s < SHMI_SEG_COUNT; s++) {
        const shmi_seg_t *g = &shmi_state.seg[s];

        if ((uintptr_t)addr - (uintptr_t)g->user < g->user_size)
            return 1;
    }
    return 0;
}

static void *shmi_ptr_of(const char *routine, const void *dest, int pe)
{
    size_t off;
    int seg;

    shmi_require_init(routine);
    if (pe < 0 || pe >= shmi_n_pes_fast())
        return NULL;
    seg = shmi_seg_lookup(dest, 1, &off);
    if (seg < 0 || !shmi_addr_in_user(dest))
        return NULL;
    if (seg == SHMI_SEG_DEVICE)
        return shmi_device_peer_ptr(pe, off);
    return shmi_seg_peer_ptr(pe, seg, off);
}

void *shmi_ptr(const void *dest, int pe)
{
    return shmi_ptr_of("shmem_ptr", dest, pe);
}

void *shmi_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    int wpe;

    shmi_require_init("shmem_team_ptr");
    if (shmi_team_check("shmem_team_ptr", team))
        return NULL;
    wpe = shmi_team_translate_to_world(team, pe);
    return wpe < 0 ? NULL : shmi_ptr_of("shmem_team_ptr", dest, wpe);
}

int shmi_addr_accessible(const void *addr, int pe)
{
    size_t off;
    int seg;

    shmi_require_init("shmem_addr_accessible");
    if (pe < 0 || pe >= shmi_n_pes_fast())
        return 0;
    seg = shmi_seg_lookup(addr, 1, &off);
    if (seg < 0 || !shmi_addr_in_user(addr))
        return 0;
    if (shmi_seg_peer_ptr(pe, seg, off))
        return 1;
    /* The route's transport reaches it (the device transport: device
     * heaps through IPC, the fabric or the owner's service). */
    return shmi_state.route[seg] && shmi_route_of(pe, seg)->ops != NULL &&
           shmi_route_of(pe, seg)->ops->reachable(pe, (shmi_seg_id_t)seg);
}
