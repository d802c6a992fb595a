/*
 * The symmetric heap allocator: hands out offsets in a region of `size`
 * bytes, keeping all of its bookkeeping in private memory (never inside the
 * region), so the same code manages the host heap and a device heap that the
 * CPU cannot touch.
 *
 * Deterministic: identical sequences of calls on identically created
 * allocators return identical offsets (docs/design.md, decision 2). Nothing
 * here depends on addresses, time or randomness; that is what makes a
 * collective shmem_malloc symmetric without any communication.
 *
 * Structure: TLSF-style segregated free lists (two-level size classes with
 * bitmaps: O(1) search) over an address-ordered list of blocks (O(1)
 * coalescing with both neighbours), and a hash table from the offset of every
 * allocated block to its descriptor (O(1) free). Sizes are rounded up to
 * SHMI_ALLOC_GRAIN bytes, so every block starts on a cache line: two
 * allocations never share one (no false sharing between symmetric objects).
 *
 * Not thread safe: the heap layer serialises calls.
 */
#ifndef SHMI_HEAP_ALLOC_H
#define SHMI_HEAP_ALLOC_H

#include <stddef.h>

/* Allocation unit and minimum alignment of every block, in bytes. */
#define SHMI_ALLOC_GRAIN ((size_t)64)

typedef struct shmi_alloc shmi_alloc_t;

/* Statistics (bytes are block bytes, i.e. rounded to the grain). */
typedef struct shmi_alloc_stats {
    size_t size;          /* bytes managed */
    size_t in_use;        /* bytes in allocated blocks */
    size_t n_blocks;      /* allocated blocks */
    size_t largest_free;  /* largest free block: an upper bound of the
                             largest shmi_alloc_alloc that can succeed */
    size_t n_free_blocks; /* free blocks (fragmentation indicator) */
} shmi_alloc_stats_t;

/*
 * Creates an allocator over offsets [0, size). size is rounded down to the
 * grain. max_align (a power of two >= the grain) is the largest alignment the
 * caller can honour in addresses (the alignment of the region's base in every
 * process); larger requests fail with SHMI_EINVAL.
 */
int shmi_alloc_create(size_t size, size_t max_align, shmi_alloc_t **out);
void shmi_alloc_destroy(shmi_alloc_t *a);

/*
 * Allocates a block of at least size bytes (size > 0) whose offset is a
 * multiple of align (0 or a power of two; at least the grain is used).
 * Sets *off and returns 0; SHMI_ENOMEM when no free block fits (the
 * allocator is unchanged); SHMI_EINVAL for size 0, a bad alignment or one
 * above max_align.
 */
int shmi_alloc_alloc(shmi_alloc_t *a, size_t size, size_t align, size_t *off);

/*
 * Frees the block starting at off. Sets *len to the block's size: the caller
 * owns [off, off + *len) until it returns, e.g. to zero it. SHMI_EINVAL when
 * no allocated block starts at off (never allocated, or already freed).
 */
int shmi_alloc_free(shmi_alloc_t *a, size_t off, size_t *len);

/* Size of the allocated block starting at off; SHMI_EINVAL if none. */
int shmi_alloc_block_size(const shmi_alloc_t *a, size_t off, size_t *len);

/*
 * Resizes the allocated block at off in place to at least size bytes
 * (size > 0). On success returns 0, and sets [*released, *released +
 * *released_len) to the bytes the block gave back when it shrank
 * (*released_len = 0 otherwise; the caller may zero them). Returns
 * SHMI_ENOMEM, leaving everything unchanged, when the block cannot grow in
 * place; SHMI_EINVAL when no allocated block starts at off.
 */
int shmi_alloc_resize(shmi_alloc_t *a, size_t off, size_t size,
                      size_t *released, size_t *released_len);

/*
 * Fixes the window where later allocations can land: [*lo, *hi), *lo the
 * offset of the first free block (everything below is allocated), *hi =
 * *lo + want rounded up to the grain, or the end of the region when that is
 * smaller. The region is cut to *hi (the free space past it is given up for
 * good), so that no block can ever be handed out outside the window.
 * SHMI_EINVAL, changing nothing, when an allocated block lies past *hi.
 */
int shmi_alloc_window(shmi_alloc_t *a, size_t want, size_t *lo, size_t *hi);

void shmi_alloc_get_stats(const shmi_alloc_t *a, shmi_alloc_stats_t *st);

/*
 * Checks every internal invariant (lists, bitmaps, coalescing, accounting).
 * Returns 0 or SHMI_EINVAL with a description in msg; for tests and
 * SHMEM_DEBUG. O(number of blocks).
 */
int shmi_alloc_check(const shmi_alloc_t *a, char *msg, size_t msglen);

#endif /* SHMI_HEAP_ALLOC_H */
