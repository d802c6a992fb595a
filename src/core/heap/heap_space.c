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

/* The largest length (a multiple of page) that one reservation gets now;
 * 0 when not even a page. */
static size_t space_largest(size_t page)
{
    size_t lo = 0, hi = (SIZE_MAX / 2 / page) * page;

    while (hi - lo > page) {
        size_t mid = lo + ((hi - lo) / 2 / page) * page;
        void *p = mmap(NULL, mid, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

        if (p == MAP_FAILED) {
            hi = mid;
        } else {
            munmap(p, mid);
            lo = mid;
        }
    }
    return lo;
}

int shmi_heap_space_ranges(size_t page, size_t *len, int max)
{
    void *held[SHMI_HEAP_SPACE_RANGES];
    int n = 0, found;

    if (max > SHMI_HEAP_SPACE_RANGES)
        max = SHMI_HEAP_SPACE_RANGES;
    /* Holding each range found makes the next search find the next one. */
    while (n < max) {
        len[n] = space_largest(page);
        if (len[n] == 0)
            break;
        held[n] = mmap(NULL, len[n], PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (held[n] == MAP_FAILED)
            break;
        n++;
    }
    found = n;
    while (n-- > 0)
        munmap(held[n], len[n]);
    return found;
}

/* How many regions of span bytes the ranges hold, each inside one range. */
static size_t space_count(const size_t *len, int n, size_t span)
{
    size_t c = 0;

    for (int i = 0; i < n; i++)
        c += len[i] / span;
    return c;
}

size_t shmi_heap_space_fit(const size_t *len, int n, int count, size_t overhead)
{
    size_t lo = 0, hi = 0;

    for (int i = 0; i < n; i++)
        hi = len[i] > hi ? len[i] : hi;
    /* Largest s with count regions of s + overhead bytes, to 1 MiB. */
    while (hi - lo > ((size_t)1 << 20)) {
        size_t mid = lo + (hi - lo) / 2;

        if (space_count(len, n, mid + overhead) >= (size_t)count)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int shmi_heap_space_fits(size_t bytes, int count)
{
    void *held[SHMI_HEAP_SPACE_MAX_COUNT];
    int n = 0, ok = 1;

    if (count > SHMI_HEAP_SPACE_MAX_COUNT)
        count = SHMI_HEAP_SPACE_MAX_COUNT;
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
