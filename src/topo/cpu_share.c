/*
 * The PEs that compete for this PE's cores (cpu_share.h).
 */
#include "config.h"

#define _GNU_SOURCE /* sched_getaffinity, CPU_AND, CPU_COUNT */

#include <sched.h>
#include <string.h>

#include "boot/boot.h"
#include "services/error.h"
#include "topo/cpu_share.h"
#include "topo/topo.h"

#define SHMI_CPUS_KEY "weft.cpus"

/* The cores this PE may run on; an empty set where they cannot be read. */
static void cpus_of_self(cpu_set_t *set)
{
    CPU_ZERO(set);
    if (sched_getaffinity(0, sizeof(*set), set) != 0)
        CPU_ZERO(set);
}

int shmi_topo_cpus_publish(void)
{
    cpu_set_t set;

    if (shmi_topo_boot()->local_size <= 1)
        return 0;
    cpus_of_self(&set);
    return shmi_boot_put(SHMI_CPUS_KEY, &set, sizeof(set));
}

int shmi_topo_cpu_sharers(int *sharers, int *ncpus)
{
    const shmi_boot_info_t *bi = shmi_topo_boot();
    cpu_set_t mine, theirs, both;
    int n = 1;

    cpus_of_self(&mine);
    if (CPU_COUNT(&mine) == 0) { /* unknown: the policy assumes the worst */
        *sharers = bi->local_size;
        *ncpus = 1;
        return 0;
    }
    *ncpus = CPU_COUNT(&mine);
    /* The policy asks only whether the sharers outnumber the cores
     * (shmi_backoff_configure), and each answer below costs a bootstrap
     * get (a hand-off to the PMIx client's thread, two context switches;
     * on crowded cores reading the whole node's affinities made start-up
     * O(P) per PE, docs/scaling.md). A node with no more PEs than this PE's
     * cores cannot crowd them, whatever the peers' affinities: the count
     * stays the upper bound, the PEs of the node. Otherwise the loop ends
     * as soon as the sharers outnumber the cores: unbound or stacked PEs
     * read ncpus peers, and only PEs bound apart read them all. */
    if (bi->local_size <= *ncpus) {
        *sharers = bi->local_size;
        return 0;
    }
    for (int i = 0; i < bi->local_size && n <= *ncpus; i++) {
        int pe = bi->local_pes[i];

        if (pe == bi->rank)
            continue;
        if (shmi_boot_get(pe, SHMI_CPUS_KEY, &theirs, sizeof(theirs)) != 0) {
            n++;
            continue;
        }
        CPU_AND(&both, &mine, &theirs);
        n += CPU_COUNT(&both) > 0;
    }
    *sharers = n;
    return 0;
}
