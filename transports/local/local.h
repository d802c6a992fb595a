/*
 * The local (load/store) transport: every PE of a node maps the symmetric
 * heaps of the others (docs/design.md, decision 1), so put/get are memcpy and
 * atomics are CPU atomics on the peer's mapping.
 *
 * The transport maps (local_map.c: init, connect, finalize, reachable,
 * mapped_base); the core does the loads, stores and CPU
 * atomics itself, inline (src/services/cpu_ops.h), so the data members of
 * shmt_local_ops are the contract's stubs.
 *
 * Completion: every load/store operation is complete when it returns (the
 * store is in this CPU's coherent cache hierarchy); fence and quiet are
 * memory fences (src/core/order.c).
 */
#ifndef SHMT_LOCAL_H
#define SHMT_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "transports/transport.h"

int shmt_local_init(const shmt_job_t *job);
int shmt_local_connect(void);
void shmt_local_finalize(void);
int shmt_local_reachable(int pe, shmi_seg_id_t seg);

#endif /* SHMT_LOCAL_H */
