/*
 * The symmetric heap and data segment of this PE, as the rest of the core
 * sees them (docs/design.md, decisions 1-3).
 *
 * shmi_segments_init (segment.h) creates both; the public allocation
 * routines (sym_alloc.c) and internal users (teams, collectives: symmetric
 * scratch buffers) allocate through the functions below. Free heap memory
 * always reads as zero: a block is zeroed when it is freed (whole pages are
 * handed back to the system instead of written), so a new allocation needs
 * no clearing and a large shmem_malloc touches no page.
 */
#ifndef SHMI_HEAP_HEAP_H
#define SHMI_HEAP_HEAP_H

#include <stddef.h>

#include "core/heap/alloc.h"
#include "core/heap/shm_object.h"

/* Heap bytes added to SHMEM_SYMMETRIC_SIZE for the runtime's own symmetric
 * objects (team and collective state, allocated with shmi_heap_alloc), so
 * that the program gets at least what it asked for. Address space only:
 * pages cost memory once touched. */
#define SHMI_HEAP_RUNTIME_RESERVE ((size_t)8 << 20)

/* Keys under which each PE publishes its segments (shmi_shm_desc_t). */
#define SHMI_HEAP_KEY "weft.seg.heap"
#define SHMI_DATA_KEY "weft.seg.data"

/*
 * Symmetric allocation WITHOUT the barrier of shmem_malloc: every PE must
 * make the same sequence of shmi_heap_alloc/free/resize calls (e.g. during a
 * collective team creation), which then return the same offsets everywhere.
 * align is 0 or a power of two. Returns NULL when the heap is exhausted (on
 * every PE alike), when size is 0 or align is invalid. Thread safe.
 */
void *shmi_heap_alloc(size_t size, size_t align);

/* Frees a block from shmi_heap_alloc (same-sequence rule as above). NULL is
 * ignored. A pointer that is not the start of an allocated block is a fatal
 * error naming routine. */
void shmi_heap_free(const char *routine, void *ptr);

/*
 * Resizes a block in place when its neighbour allows it (0), else returns
 * SHMI_ENOMEM and changes nothing. Fatal for a foreign pointer, as above.
 */
int shmi_heap_resize(const char *routine, void *ptr, size_t size);

/* Size of the block at ptr (>= what was asked); fatal for a foreign ptr. */
size_t shmi_heap_block_size(const char *routine, const void *ptr);

/* Statistics of the heap allocator, for SHMEM_INFO, shmem_info, debugging.
 * Zeroes when the heap does not exist. */
void shmi_heap_stats(shmi_alloc_stats_t *st);

/* The largest alignment shmi_heap_alloc and shmem_align can honour (the
 * alignment of the heap base in every process that maps it). */
size_t shmi_heap_max_align(void);

/* Reads what pe published for segment seg (SHMI_SEG_HEAP or _DATA) into *d;
 * for transports/local. Returns 0 or a negative SHMI_E* code. */
int shmi_segments_peer_desc(int pe, int seg, shmi_shm_desc_t *d);

/* With SHMEM_DEBUG=1, allocates the slots through which shmem_malloc and
 * shmem_free compare their arguments across PEs (sym_alloc.c); called by
 * segments.c during shmem_init, before the user area is fixed. */
void shmi_heap_debug_init(void);

/* ---- heap.c, for segments.c ---------------------------------------------- */

/* Creates the heap object (kind: SHMEM_HEAP_OBJECT) of size bytes (rounded
 * up to a page), maps it and sets shmi_state.seg[SHMI_SEG_HEAP]; *desc is
 * what to publish. SHMI_ENOMEM when it cannot be mapped. */
int shmi_heap_create(size_t size, const char *kind, shmi_shm_desc_t *desc);

/* Fixes the heap's user area once the runtime's start-up state is
 * allocated (shmi_alloc_window): [*lo, *hi) in offsets, want bytes
 * (SHMEM_SYMMETRIC_SIZE) unless the heap is smaller. Returns 0 or
 * SHMI_EINVAL (see shmi_alloc_window). */
int shmi_heap_user_window(size_t want, size_t *lo, size_t *hi);

/* Drops the object's name and descriptor once peers mapped it. */
void shmi_heap_release_object(void);

/* Unmaps the heap and frees the allocator. */
void shmi_heap_destroy(void);

/* ---- data_seg.c ---------------------------------------------------------- */

/* Finds the main program's writable data and bss: [*base, *base + *size),
 * page aligned, excluding the part that becomes read-only after relocation
 * (RELRO); [*user, *user + *user_size) is the same without the page
 * rounding (the variables themselves). Returns SHMI_ENOTSUP when it cannot
 * be determined. */
int shmi_data_seg_find(char **base, size_t *size, char **user,
                       size_t *user_size);

/* Moves [base, base + size) onto a new shared-memory object (contents
 * preserved, same addresses), so that peers can map it. See data_seg.c for
 * what this implies. On failure the memory is unchanged. */
int shmi_data_seg_remap(char *base, size_t size, shmi_shm_t *obj);

#endif /* SHMI_HEAP_HEAP_H */
