/*
 * Placement at start-up (src/topo/topo.c): binding per SHMEM_BIND, and the
 * PE's place on its node for the other layers (placement.h, cpu_share.h).
 * The core hands in what the bootstrap found (who is on this node), so
 * that topo needs nothing of the core (docs/architecture.md, "The
 * layers").
 */
#ifndef SHMI_TOPO_H
#define SHMI_TOPO_H

#include "boot/boot.h"

/* Binds this PE as SHMEM_BIND asks and publishes the cores it may run on
 * (a bootstrap key). boot must stay valid until shmi_topo_finalize. 0 or
 * SHMI_E*; binding is a hint and never fails start-up. */
int shmi_topo_init(const shmi_boot_info_t *boot);

/* Releases the topology; called from shmem_finalize. */
void shmi_topo_finalize(void);

/* What shmi_topo_init was handed, or NULL before it. */
const shmi_boot_info_t *shmi_topo_boot(void);

#endif /* SHMI_TOPO_H */
