/*
 * Why a symmetric range was refused (dataplane.h, shmi_dp_seg and the
 * common path of put/get): the message names the routine, the target PE, the
 * address and the byte count, and says which bound the range crossed, so
 * that a program that writes into the runtime's own state at the start of
 * the heap, past the end of the user area or past its bss learns which.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "core/dataplane.h"

/* Per segment: its name, the name of its user part and where the program's
 * symmetric memory of that kind comes from, for messages. The device heap's
 * user area ends where its reserve for the device barrier's words begins
 * (src/core/heap/device_heap.h). */
static const char *const shmi_range_names[SHMI_SEG_COUNT][3] = {
    {"symmetric heap", "the user area (what shmem_malloc hands out)",
     "use memory from shmem_malloc or a global or static variable"},
    {"data segment", "the program's global and static variables",
     "use memory from shmem_malloc or a global or static variable"},
    {"device heap", "the user area (what shmemx_malloc_device hands out)",
     "use memory from shmemx_malloc_device (the words after the user area "
     "are the device barrier's)"}};

/* Fatal when a lies in segment s: either outside its user part, or inside
 * it with a range that does not fit (the only other reason for a refusal).
 * Returns when a is not in segment s at all. */
static void shmi_range_explain(const char *routine, uintptr_t a, size_t len,
                               int pe, int s)
{
    const shmi_seg_t *g = &shmi_state.seg[s];
    uintptr_t lo = (uintptr_t)g->user, hi = lo + g->user_size;

    if (g->size == 0 || a - (uintptr_t)g->base >= g->size)
        return;
    if (a < lo || a >= hi)
        SHMI_FATAL("%s: address %p (%zu bytes, target PE %d) is in the %s "
                   "but %s %s, [%p, %p): it is not symmetric memory of the "
                   "program; %s",
                   routine, (void *)a, len, pe, shmi_range_names[s][0],
                   a < lo ? "before" : "past the end of",
                   shmi_range_names[s][1], (void *)lo, (void *)hi,
                   shmi_range_names[s][2]);
    SHMI_FATAL("%s: the range at %p of %zu bytes (target PE %d) runs past "
               "the end of %s in the %s, at %p (%zu bytes left there)",
               routine, (void *)a, len, pe, shmi_range_names[s][1],
               shmi_range_names[s][0], (void *)hi, (size_t)(hi - a));
}

_Noreturn void shmi_dp_bad_addr(const char *routine, const void *addr,
                                size_t len, int pe)
{
    uintptr_t a = (uintptr_t)addr;

    shmi_dp_check_state(routine);
    if (addr == NULL)
        SHMI_FATAL("%s: NULL address for %zu bytes (target PE %d)", routine,
                   len, pe);
    /* The typed routines pass SIZE_MAX when nelems times the element size
     * does not fit in size_t (shmi_nbytes, core_api.h). */
    if (len == SIZE_MAX)
        SHMI_FATAL("%s: nelems is too large: its size in bytes does not fit "
                   "in size_t (address %p, target PE %d)",
                   routine, addr, pe);
    for (int s = 0; s < SHMI_SEG_COUNT; s++)
        shmi_range_explain(routine, a, len, pe, s);
    SHMI_FATAL("%s: address %p (%zu bytes, target PE %d) is not inside a "
               "symmetric segment: use memory from shmem_malloc or a global "
               "or static variable",
               routine, addr, len, pe);
}

/* Fatal when [addr, addr + nbytes) starts in a segment but does not lie in
 * its user part; a buffer outside every segment is left alone (private
 * arrays that the runtime's own collectives pass, see reduce.c). */
static void shmi_range_check_buffer(const char *routine, const void *addr,
                                    size_t nbytes)
{
    uintptr_t a = (uintptr_t)addr;

    if (addr == NULL || nbytes == 0)
        return;
    for (int s = 0; s < SHMI_SEG_COUNT; s++) {
        const shmi_seg_t *g = &shmi_state.seg[s];
        uintptr_t d = a - (uintptr_t)g->user;

        if (a - (uintptr_t)g->base >= g->size)
            continue;
        if (d >= g->user_size || nbytes > g->user_size - d)
            shmi_dp_bad_addr(routine, addr, nbytes, shmi_my_pe_fast());
        return;
    }
}

void shmi_coll_check_count(const char *routine, const void *dest,
                           const void *src, size_t nelems, size_t es)
{
    /* SIZE_MAX bytes: the typed wrapper's shmi_nbytes overflowed. */
    if (es == 1 && nelems == SIZE_MAX)
        SHMI_FATAL("%s: nelems is too large: its size in bytes does not fit "
                   "in size_t (dest %p, source %p)",
                   routine, dest, src);
    if (es != 0 && nelems > (size_t)PTRDIFF_MAX / es)
        SHMI_FATAL("%s: nelems %zu is too large: %zu elements of %zu bytes "
                   "exceed any buffer (dest %p, source %p)",
                   routine, nelems, nelems, es, dest, src);
    shmi_range_check_buffer(routine, dest, nelems * es);
    shmi_range_check_buffer(routine, src, nelems * es);
}
