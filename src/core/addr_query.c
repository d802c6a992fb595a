/*
 * The address queries shmem_ptr, shmem_team_ptr and shmem_addr_accessible:
 * where a symmetric address of another PE is mapped here, if anywhere.
 * shmem_ptr returns the IPC mapping of a local PE's device heap (a device
 * address) for device memory.
 */
#include "config.h"

#include <stdint.h>

#include "core/core_decl.h"
#include "core/dataplane.h"
#include "core/device_mem.h"
#include "core/init.h"
#include "core/segment.h"
#include "core/state.h"
#include "core/team/team.h"
#include "services/error.h"

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
