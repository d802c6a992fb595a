/*
 * Placement at start-up: binds this PE as SHMEM_BIND asks, and tells the
 * other layers which GPU and NIC this PE should use (docs/design.md,
 * decision 8). The topology is loaded only when something needs it, since
 * loading it (with I/O devices) costs start-up time: binding, a device
 * heap, or a provider that offers several domains.
 */
#include "config.h"

#include <hwloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "services/env.h"
#include "services/error.h"
#include "topo/cpu_share.h"
#include "topo/placement.h"
#include "topo/topo.h"

static shmi_placement_t placement;
static int placement_ret = SHMI_ENODEV;
static pthread_once_t placement_once = PTHREAD_ONCE_INIT;
static hwloc_topology_t topology; /* kept for binding; freed at exit */
static const shmi_boot_info_t *topo_boot; /* handed in by shmi_topo_init */

const shmi_boot_info_t *shmi_topo_boot(void)
{
    return topo_boot;
}

/* This node's topology: as the launcher loaded it once for the node
 * where it hands it out, else discovered here. Discovery reads sysfs and
 * /proc and costs every PE that does it tens of milliseconds, far more
 * when a whole node of PEs does it at once. */
static int topology_load(void)
{
    char *xml = shmi_boot_node_topology();
    int ret = SHMI_ENODEV;

    if (xml)
        ret = shmi_topo_load_this_node(&topology, xml);
    free(xml);
    if (ret == 0) {
        SHMI_LOG(SHMI_LOG_DEBUG, "topo", "topology as the launcher loaded it");
        return 0;
    }
    SHMI_LOG(SHMI_LOG_DEBUG, "topo", "topology discovered by this PE");
    return shmi_topo_load(&topology, NULL);
}

static void placement_compute(void)
{
    const shmi_boot_info_t *b = topo_boot;

    if (!b)
        return; /* before shmi_topo_init: no PE to place yet */
    placement_ret = topology_load();
    if (placement_ret != 0) {
        SHMI_LOG(SHMI_LOG_WARN, "topo", "hwloc could not load the topology");
        return;
    }
    placement_ret = shmi_topo_place(topology, b->local_rank,
                                    b->local_size, &placement);
    SHMI_LOG(SHMI_LOG_DEBUG, "topo",
             "local rank %d of %d: gpu %d of %d, nic '%s' of %d, numa %d, "
             "core %d", b->local_rank, b->local_size,
             placement.gpu, placement.ngpus, placement.nic, placement.nnics,
             placement.numa, placement.core);
}

const shmi_placement_t *shmi_topo_placement(void)
{
    pthread_once(&placement_once, placement_compute);
    return placement_ret == 0 ? &placement : NULL;
}

static int topo_bind(const char *bind)
{
    const shmi_placement_t *p = shmi_topo_placement();
    int numa = strcmp(bind, "numa") == 0;
    hwloc_obj_t obj = NULL;

    if (p)
        obj = hwloc_get_obj_by_type(topology,
                                    numa ? HWLOC_OBJ_NUMANODE : HWLOC_OBJ_CORE,
                                    (unsigned)(numa ? p->numa : p->core));
    if (!obj || hwloc_set_cpubind(topology, obj->cpuset,
                                  HWLOC_CPUBIND_PROCESS) != 0) {
        SHMI_LOG(SHMI_LOG_WARN, "topo", "could not bind to a %s (SHMEM_BIND=%s)",
                 numa ? "NUMA node" : "core", bind);
        return 0; /* binding is a hint: run unbound rather than fail */
    }
    SHMI_LOG(SHMI_LOG_DEBUG, "topo", "bound to %s %u", bind,
             obj->logical_index);
    return 0;
}

int shmi_topo_init(const shmi_boot_info_t *boot)
{
    topo_boot = boot;
    if (strcmp(shmi_env.BIND, "none") != 0)
        (void)topo_bind(shmi_env.BIND); /* a hint: never fails start-up */
    /* The cores this PE may run on now, bound or not, for the wait
     * policy (cpu_share.h). */
    return shmi_topo_cpus_publish();
}

void shmi_topo_finalize(void)
{
    if (topology)
        hwloc_topology_destroy(topology);
    topology = NULL;
}
