/*
 * Placement on synthetic topologies (the XML files next to this test, written by
 * make_topologies.py): which GPU, NIC, NUMA node and core each local rank
 * gets, for several numbers of PEs per node.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "topo/placement.h"
#include "tests/common/check.h"

typedef struct expect {
    int gpu;
    const char *nic;
    int numa;
    int core;
} expect_t;

static void check(hwloc_topology_t topo, const char *what, int lsize,
                  const expect_t *want)
{
    for (int r = 0; r < lsize; r++) {
        shmi_placement_t p;

        if (!CHECK_MSG(shmi_topo_place(topo, r, lsize, &p) == 0,
                       "%s: rank %d of %d", what, r, lsize))
            continue;
        CHECK_MSG(p.gpu == want[r].gpu && strcmp(p.nic, want[r].nic) == 0 &&
                      p.numa == want[r].numa && p.core == want[r].core,
                  "%s: rank %d of %d: got gpu %d nic %s numa %d core %d, "
                  "want gpu %d nic %s numa %d core %d",
                  what, r, lsize, p.gpu, p.nic, p.numa, p.core, want[r].gpu,
                  want[r].nic, want[r].numa, want[r].core);
    }
}

static hwloc_topology_t load(const char *dir, const char *file)
{
    char path[4096];
    hwloc_topology_t topo;

    snprintf(path, sizeof(path), "%s/%s", dir, file);
    if (!CHECK_MSG(shmi_topo_load(&topo, path) == 0, "cannot load %s", path))
        return NULL;
    return topo;
}

/* LUMI-G-like: GCD g sits with cxi(g/2) on NUMA {3,3,1,1,0,0,2,2}[g]. */
static void lumi(const char *dir)
{
    static const int numa_of_gcd[8] = {3, 3, 1, 1, 0, 0, 2, 2};
    static const char *const nic[4] = {"cxi0", "cxi1", "cxi2", "cxi3"};
    hwloc_topology_t topo = load(dir, "lumi-g.xml");
    expect_t want[16];

    if (!topo)
        return;
    /* 8 PEs: one per GCD; the two GCDs of a NUMA domain split its cores. */
    for (int r = 0; r < 8; r++)
        want[r] = (expect_t){r, nic[r / 2], numa_of_gcd[r],
                             16 * numa_of_gcd[r] + 8 * (r % 2)};
    check(topo, "lumi-g 8 PEs", 8, want);
    /* 4 PEs: GCDs 0, 2, 4, 6, so each PE has a NUMA domain and NIC alone. */
    for (int r = 0; r < 4; r++)
        want[r] = (expect_t){2 * r, nic[r], numa_of_gcd[2 * r],
                             16 * numa_of_gcd[2 * r]};
    check(topo, "lumi-g 4 PEs", 4, want);
    /* 16 PEs: two per GCD, four per NUMA domain, 4 cores apart. */
    for (int r = 0; r < 16; r++)
        want[r] = (expect_t){r / 2, nic[r / 4], numa_of_gcd[r / 2],
                             16 * numa_of_gcd[r / 2] + 4 * (r % 4)};
    check(topo, "lumi-g 16 PEs", 16, want);
    hwloc_topology_destroy(topo);
}

/* Dual socket: GPU s and mlx5_s on socket s (cores 16s..16s+15). */
static void dual_nvidia(const char *dir)
{
    hwloc_topology_t topo = load(dir, "dual-nvidia.xml");
    expect_t two[2] = {{0, "mlx5_0", 0, 0}, {1, "mlx5_1", 1, 16}};
    expect_t four[4] = {{0, "mlx5_0", 0, 0},
                        {0, "mlx5_0", 0, 8},
                        {1, "mlx5_1", 1, 16},
                        {1, "mlx5_1", 1, 24}};

    if (!topo)
        return;
    check(topo, "dual-nvidia 2 PEs", 2, two);
    check(topo, "dual-nvidia 4 PEs", 4, four);
    hwloc_topology_destroy(topo);
}

/* This machine: whatever it has, placement succeeds and stays in range. */
static void this_machine(void)
{
    hwloc_topology_t topo;
    shmi_placement_t p;

    if (!CHECK_MSG(shmi_topo_load(&topo, NULL) == 0,
                   "cannot load this machine's topology"))
        return;
    for (int r = 0; r < 4; r++) {
        CHECK_MSG(shmi_topo_place(topo, r, 4, &p) == 0 && p.gpu < p.ngpus &&
                      p.core >= 0,
                  "this machine: rank %d: gpu %d of %d core %d", r, p.gpu,
                  p.ngpus, p.core);
    }
    CHECK_MSG(shmi_topo_place(topo, 4, 4, &p) != 0,
              "rank out of range accepted");
    hwloc_topology_destroy(topo);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";

    lumi(dir);
    dual_nvidia(dir);
    this_machine();
    return check_end("placement");
}
