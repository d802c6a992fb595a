/*
 * Address space left for symmetric heaps (heap_space.c): used by start-up
 * (segments.c) to say what SHMEM_SYMMETRIC_SIZE can be when the one asked
 * for cannot be mapped.
 */
#ifndef SHMI_HEAP_HEAP_SPACE_H
#define SHMI_HEAP_HEAP_SPACE_H

#include <stddef.h>

/* shmi_heap_space_fits probes at most this many regions: beyond, the node's
 * PEs share one answer anyway. */
#define SHMI_HEAP_SPACE_MAX_COUNT 256

/* The largest size s (to 1 MiB) such that count regions of s + overhead
 * bytes can be reserved at once now (count capped as below). */
size_t shmi_heap_space_fit(int count, size_t overhead);

/* 1 when count separate regions of bytes each can be reserved at once
 * (count is capped at SHMI_HEAP_SPACE_MAX_COUNT), else 0. */
int shmi_heap_space_fits(size_t bytes, int count);

/* bytes as SHMEM_SYMMETRIC_SIZE would be written, rounded down to the
 * largest k/m/g/t unit that fits ("63t", "512m"), into buf. */
void shmi_heap_space_text(size_t bytes, char *buf, size_t len);

#endif /* SHMI_HEAP_HEAP_SPACE_H */
