/*
 * The device (GPU) symmetric heap: segment SHMI_SEG_DEVICE (docs/design.md,
 * decision 9).
 *
 * One allocation of SHMEM_SYMMETRIC_DEVICE_SIZE bytes on the device this PE
 * uses, managed by the same deterministic allocator as the host heap
 * (alloc.h keeps its bookkeeping in host memory), so a device address has
 * the same offset on every PE. PEs of one node import each other's device
 * heaps through the back end's IPC: the device transport does, and keeps
 * them (never as the base of a route, src/core/route.h: the core's
 * load/store path must never dereference device memory). Data movement to
 * and from it is the device transport's (transports/device).
 *
 * Free device heap memory reads as zero, as on the host heap: a block is
 * cleared when it is freed.
 */
#ifndef SHMI_HEAP_DEVICE_HEAP_H
#define SHMI_HEAP_DEVICE_HEAP_H

#include <stddef.h>

#include "core/heap/alloc.h"
#include "gpu/gpu.h"

/* Key under which each PE publishes its device heap (back end, size). */
#define SHMI_DEVICE_KEY "weft.seg.device"

/*
 * Chooses the back end (SHMEM_DEVICE_BACKEND) and the device (SHMEM_DEVICE_ID,
 * hwloc, local rank), creates the device heap and publishes it. A back end
 * without a device means no device heap (logged), not an error. Called by
 * shmi_segments_init after the host heap exists.
 */
int shmi_device_heap_init(void);

/* After the bootstrap fence: checks that every PE has the same device heap
 * size. */
void shmi_device_heap_connected(void);

/* The device heap's reserve for the device barrier's words (zeroed, the
 * same offset on every PE, never handed out by the allocator), or NULL
 * without a device heap. */
void *shmi_device_heap_kernel_words(void);

/* Bytes of the device heap that the program may address: all but that
 * reserve, which starts right after them (0 without a device heap). The
 * range checks of host calls (shmi_seg_t.user_size, set when the PEs have
 * connected) and of device code (shmemd_state_t.heap_size) use it. */
size_t shmi_device_heap_user_size(void);

/* Frees the heap; shmi_segments_finalize. */
void shmi_device_heap_finalize(void);

/* The back end in use, or NULL when this PE has no device heap. */
const shmi_gpu_ops_t *shmi_device_backend(void);

/* The device ordinal in use, -1 without a device heap. */
int shmi_device_ordinal(void);

/* 1 when ptr lies in this PE's device heap. */
int shmi_device_heap_contains(const void *ptr);

/* Symmetric allocation from the device heap, with the rules of
 * shmi_heap_alloc (same call sequence on every PE, no barrier). NULL when
 * there is no device heap or it is exhausted. */
void *shmi_device_heap_alloc(size_t size, size_t align);

/* Largest alignment shmi_device_heap_alloc honours (a power of two), the
 * same with or without a device heap. */
size_t shmi_device_heap_max_align(void);

/* Frees (and clears) a block; fatal for a foreign pointer. NULL ignored. */
void shmi_device_heap_free(const char *routine, void *ptr);

/* Resizes in place (0) or SHMI_ENOMEM, as shmi_heap_resize. */
int shmi_device_heap_resize(const char *routine, void *ptr, size_t size);

/* Size of the block at ptr; fatal for a foreign pointer. */
size_t shmi_device_heap_block_size(const char *routine, const void *ptr);

/* Allocator statistics; zeroes without a device heap. */
void shmi_device_heap_stats(shmi_alloc_stats_t *st);

#endif /* SHMI_HEAP_DEVICE_HEAP_H */
