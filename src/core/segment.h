/*
 * Symmetric segments: which segment a symmetric address belongs to, and its
 * offset there (the same on every PE).
 *
 * Segments are set up by src/core/heap/ (heap, data+bss) and src/gpu/ (device
 * heap); their bases and sizes live in shmi_state.seg[].
 */
#ifndef SHMI_SEGMENT_H
#define SHMI_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "core/route.h"
#include "core/state.h"

/*
 * Finds the segment holding [addr, addr+len). Returns the segment id and sets
 * *off, or returns -1 when the range is not (entirely) symmetric. The heap is
 * tested first: it is where nearly all traffic goes.
 */
static inline int shmi_seg_lookup(const void *addr, size_t len, size_t *off)
{
    uintptr_t a = (uintptr_t)addr;

    for (int s = 0; s < SHMI_SEG_COUNT; s++) {
        uintptr_t base = (uintptr_t)shmi_state.seg[s].base;
        size_t size = shmi_state.seg[s].size;

        if (a >= base && a - base <= size && len <= size - (a - base)) {
            *off = a - base;
            return s;
        }
    }
    return -1;
}

/* Address of (seg, off) on pe when it is mapped here now (the route's
 * base, src/core/route.h), else NULL; NULL too outside the table's
 * lifetime. */
static inline void *shmi_seg_peer_mapped(int pe, int seg, size_t off)
{
    const shmi_route_t *routes = shmi_state.route[seg];
    char *b = routes ? __atomic_load_n(&routes[pe].base, __ATOMIC_ACQUIRE)
                     : NULL;

    return b ? b + off : NULL;
}

/* The same, mapping a peer of this node whose route says so first
 * (shmi_route_map): where a caller needs the address, not the fact. */
static inline void *shmi_seg_peer_ptr(int pe, int seg, size_t off)
{
    if (shmi_state.route[seg] == NULL)
        return NULL;
    (void)shmi_route_ready(pe, seg);
    return shmi_seg_peer_mapped(pe, seg, off);
}

/* Sets up the heap and data segments of this PE and maps those of the PEs
 * on this node (unless SHMEM_LOCAL=0), using the bootstrap exchange. Called
 * once from shmem_init after shmi_boot_init. src/core/heap/. */
int shmi_segments_init(void);

/* Called once from shmem_init after every transport connected and a
 * bootstrap fence: peers have mapped, so shared objects can be unlinked,
 * except those the peers map on first use (shmi_segments_map_on_use). */
void shmi_segments_connected(void);

/* The segments (bit 1 << seg) of this PE that the peers of its node may
 * map at their first access rather than at start-up: with
 * SHMEM_MAP_PEERS=first-use, those behind a memfd, which stays open until
 * shmem_finalize (a POSIX name is removed at start-up instead, so that
 * nothing outlives the job in /dev/shm). The job's PEs share their
 * environment, so a peer's answer is this PE's. */
unsigned shmi_segments_map_on_use(void);

/* Narrows the range checks of the program's calls to the user part of each
 * segment (shmi_seg_t.user): called once from shmem_init after the
 * runtime's own start-up state is allocated in the heap (teams,
 * collectives). Returns 0 or a negative SHMI_E* code. */
int shmi_segments_user_start(void);

/* Widens them back to whole segments at the start of shmem_finalize (the
 * runtime's own tear-down traffic). */
void shmi_segments_user_end(void);

/* Opens and maps segment seg of pe (a PE of this node) into this process,
 * from the descriptor pe published: the map_peer of shmt_job_t
 * (transports/transport.h). SHMEM_SYMMETRIC_SIZE differing between PEs is
 * fatal; a segment pe did not share is SHMI_ENOTSUP. */
int shmi_segments_map_peer(int pe, shmi_seg_id_t seg, void **base,
                           size_t *len);

/* Unmaps everything; called from shmem_finalize. */
void shmi_segments_finalize(void);

#endif /* SHMI_SEGMENT_H */
