/*
 * Placement of the PEs of a node: which GPU, which NIC (libfabric domain)
 * and which cores each local rank gets, decided from the hwloc topology
 * (docs/design.md, decision 8).
 */
#ifndef SHMI_PLACEMENT_H
#define SHMI_PLACEMENT_H

#include <hwloc.h>

typedef struct shmi_placement {
    int gpu;          /* GPU ordinal in PCI bus order (the runtimes' device
                         number), or -1 when the node has no GPU */
    int ngpus;        /* GPUs found on the node */
    char nic[64];     /* the NIC's fabric name (OpenFabrics device such as
                         "cxi0" or "mlx5_0", else its network interface),
                         "" when the node has no NIC */
    int nnics;        /* NICs found on the node */
    int numa;         /* logical index of the NUMA node to bind near, -1 */
    int core;         /* logical index of the core for SHMEM_BIND=core, -1 */
} shmi_placement_t;

/*
 * Places local rank `lrank` of `lsize` on `topo` (loaded with I/O objects:
 * see shmi_topo_load). Ranks are spread evenly over the GPUs in bus order
 * (consecutive ranks share a GPU when there are more ranks than GPUs);
 * each takes the NIC closest to its GPU (deepest common ancestor in the PCI
 * tree) and the cores local to its GPU. Without GPUs, ranks are spread over
 * the NUMA nodes and take the NIC closest to theirs. Returns 0 or SHMI_E*.
 */
int shmi_topo_place(hwloc_topology_t topo, int lrank, int lsize,
                    shmi_placement_t *out);

/* Loads a topology with its I/O devices: this machine's, or the XML file
 * `xml` when non-NULL (tests). */
int shmi_topo_load(hwloc_topology_t *topo, const char *xml);

/* Loads this machine's topology from xml, a description of it (hwloc XML)
 * that was discovered once for the whole node: cheaper than discovering
 * it, and binding through it binds this process. */
int shmi_topo_load_this_node(hwloc_topology_t *topo, const char *xml);

/* This PE's placement, computed on first use (topology loaded once);
 * NULL when hwloc cannot load the topology. src/topo/topo.c */
const shmi_placement_t *shmi_topo_placement(void);

#endif /* SHMI_PLACEMENT_H */
