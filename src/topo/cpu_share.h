/*
 * Which PEs of the job compete for this PE's cores: the input of the wait
 * policy's "crowded" test (src/services/backoff.h; docs/design.md,
 * decision 10).
 *
 * Each PE publishes the cores it may run on, after binding
 * (shmi_topo_cpus_publish, during shmi_topo_init); after the bootstrap's
 * fence each reads those of the PEs of its node (shmi_topo_cpu_sharers).
 * Bound PEs that each have a core of their own do not compete, however
 * few cores each may use; unbound PEs, or bound ones stacked on one core,
 * do.
 */
#ifndef SHMI_TOPO_CPU_SHARE_H
#define SHMI_TOPO_CPU_SHARE_H

/* Publishes this PE's CPU affinity (a bootstrap key). 0 or SHMI_E*. */
int shmi_topo_cpus_publish(void);

/* After the bootstrap's fence: *ncpus = how many cores this PE may run
 * on, *sharers = the PEs of this node (this one included) that may run on
 * one of them, counted only as far as the crowded test needs: the PEs of
 * the node where they do not outnumber *ncpus, and *ncpus + 1 once the
 * sharers do (each count costs a bootstrap get). Where a peer's affinity
 * cannot be read it counts as sharing. 0 or SHMI_E*. */
int shmi_topo_cpu_sharers(int *sharers, int *ncpus);

#endif /* SHMI_TOPO_CPU_SHARE_H */
