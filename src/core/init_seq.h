/*
 * The start-up and shut-down sequence, as each area exposes it to
 * src/core/init.c. Each returns 0 or a negative SHMI_E* code.
 *
 * shmem_init:
 *   shmi_env_load -> shmi_boot_init -> shmi_topo_init (binding; handed
 *   what boot found)
 *   -> shmi_paths_select (the registry's checks, SHMEM_TRANSPORT)
 *   -> shmi_segments_init (heap, data; publishes its bases)
 *   -> shmi_paths_init (chooses and inits the fabric transport if needed;
 *      publishes addresses/keys) -> shmi_boot_fence
 *   -> shmi_paths_connect (map local peers' segments, fabric connect)
 *   -> shmi_boot_fence -> shmi_segments_connected (unlink shared objects)
 *   -> shmi_ctx_default_init -> shmi_teams_init -> barrier
 * shmem_finalize: barrier -> shmi_teams_finalize -> shmi_ctx_default_finalize
 *   -> shmi_paths_finalize -> shmi_segments_finalize -> shmi_topo_finalize
 *   -> shmi_boot_finalize
 * start_pes: the shmem_init sequence.
 * A PE that exits with status 0 without shmem_finalize (after shmem_init,
 *   shmem_init_thread or start_pes) waits at exit for every PE to be there,
 *   then runs the shmem_finalize sequence (finalize_at_exit, init.c).
 */
#ifndef SHMI_INIT_SEQ_H
#define SHMI_INIT_SEQ_H

#include "topo/topo.h"
#include "transports/transport.h"

int shmi_paths_select(void);  /* src/core/path_select.c */
/* What SHMEM_TRANSPORT allows (set by shmi_paths_select): 1 when this job
 * may use transport t; 1 when it may use a network transport. */
int shmi_path_may_use(const shmt_ops_t *t);
int shmi_path_network_allowed(void);
/* src/core/path_select.c, called by src/core/path_start.c. */
int shmi_paths_fabric_refused(int any_off);
void shmi_paths_report_reach(int by_load_store);
int shmi_paths_init(void);    /* src/core/path_start.c */
int shmi_paths_connect(void); /* src/core/path_start.c */
void shmi_paths_started(void); /* src/core/path_start.c: after the first barrier */
void shmi_paths_finalize(void);

int shmi_teams_init(void);    /* src/core/team/ */
void shmi_teams_finalize(void);

/* shmi_topo_init, shmi_topo_finalize: src/topo/topo.h */

#endif /* SHMI_INIT_SEQ_H */
