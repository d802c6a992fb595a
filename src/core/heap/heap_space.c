/*
 * How much address space this process has left for symmetric heaps (its own
 * and, through transports/local, those of the other PEs of its node), so
 * that a SHMEM_SYMMETRIC_SIZE that cannot fit is reported at start-up with
 * what would fit, instead of as a mapping failure later (heap_space.h).
 *
 * Probes are PROT_NONE, MAP_NORESERVE reservations, undone at once: they
 * cost address space for a moment, never memory.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#include "core/heap/heap_space.h"

/* 1 when count regions of bytes each can be reserved at once. */
static int space_try(size_t bytes, int count)
{
    void *held[SHMI_HEAP_SPACE_MAX_COUNT];
    int n = 0, ok = 1;

    for (; n < count; n++) {
        held[n] = mmap(NULL, bytes, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (held[n] == MAP_FAILED) {
            ok = 0;
            break;
        }
    }
    while (n-- > 0)
        munmap(held[n], bytes);
    return ok;
}

size_t shmi_heap_space_fit(int count, size_t overhead)
{
    size_t lo = 0, hi = (size_t)1 << 57; /* beyond any user address space */

    if (count > SHMI_HEAP_SPACE_MAX_COUNT)
        count = SHMI_HEAP_SPACE_MAX_COUNT;
    /* The same reservations the mappings would make, tried for real: the
     * holes of the address space decide, not only its total. */
    while (hi - lo > ((size_t)1 << 20)) {
        size_t mid = lo + (hi - lo) / 2;

        if (space_try(mid + overhead, count))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int shmi_heap_space_fits(size_t bytes, int count)
{
    if (count > SHMI_HEAP_SPACE_MAX_COUNT)
        count = SHMI_HEAP_SPACE_MAX_COUNT;
    return space_try(bytes, count);
}

void shmi_heap_space_text(size_t bytes, char *buf, size_t len)
{
    static const char units[] = "kmgt";
    int u = 3;

    /* Rounded down to the largest unit that leaves a number >= 1. */
    while (u >= 0 && bytes < ((size_t)1 << (10 * (u + 1))))
        u--;
    if (u < 0)
        snprintf(buf, len, "%zu", bytes);
    else
        snprintf(buf, len, "%zu%c", bytes >> (10 * (u + 1)), units[u]);
}
