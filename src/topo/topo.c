/*
 * Placement with hwloc: binds this PE as SHMEM_BIND asks (DESIGN.md
 * decision 8). The topology is loaded only when something needs it, since
 * loading it costs start-up time.
 */
#include "config.h"

#include <hwloc.h>
#include <string.h>

#include "core/env.h"
#include "core/error.h"
#include "core/init_seq.h"
#include "core/state.h"

/*
 * The hwloc object of `type` that local rank `lrank` of `lsize` gets: ranks
 * are spread evenly over the objects, so that with fewer PEs than objects
 * they land far apart (separate caches and memory controllers).
 */
static hwloc_obj_t topo_pick(hwloc_topology_t topo, hwloc_obj_type_t type,
                             int lrank, int lsize)
{
    int n = hwloc_get_nbobjs_by_type(topo, type);

    if (n <= 0)
        return NULL;
    if (lsize <= n)
        return hwloc_get_obj_by_type(topo, type, lrank * n / lsize);
    return hwloc_get_obj_by_type(topo, type, lrank % n);
}

int shmi_topo_init(void)
{
    const char *bind = shmi_env.BIND;
    hwloc_obj_type_t type;
    hwloc_topology_t topo;
    hwloc_obj_t obj;
    int ret = 0;

    if (strcmp(bind, "none") == 0)
        return 0;
    type = strcmp(bind, "numa") == 0 ? HWLOC_OBJ_NUMANODE : HWLOC_OBJ_CORE;
    if (hwloc_topology_init(&topo) != 0)
        return SHMI_ENOMEM;
    if (hwloc_topology_load(topo) != 0) {
        SHMI_LOG(SHMI_LOG_WARN, "topo", "hwloc could not load the topology; "
                 "SHMEM_BIND=%s ignored", bind);
        goto out_destroy;
    }
    obj = topo_pick(topo, type, shmi_state.boot.local_rank,
                    shmi_state.boot.local_size);
    if (!obj || hwloc_set_cpubind(topo, obj->cpuset,
                                  HWLOC_CPUBIND_PROCESS) != 0) {
        SHMI_LOG(SHMI_LOG_WARN, "topo", "could not bind to a %s (SHMEM_BIND=%s)",
                 type == HWLOC_OBJ_CORE ? "core" : "NUMA node", bind);
        goto out_destroy;
    }
    SHMI_LOG(SHMI_LOG_DEBUG, "topo", "bound to %s %u", bind, obj->logical_index);
out_destroy:
    hwloc_topology_destroy(topo);
    return ret;
}
