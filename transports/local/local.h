/*
 * The local (load/store) transport: every PE of a node maps the symmetric
 * heaps of the others (docs/design.md, decision 1), so put/get are memcpy and
 * atomics are CPU atomics on the peer's mapping.
 *
 * The transport maps (local_map.c: init, connect, finalize, reachable,
 * mapped_base, and map_now for the peers it maps on their first access);
 * the core does the loads, stores and CPU
 * atomics itself, inline (src/services/cpu_ops.h), so shmt_local_ops has
 * no endpoints and none of the contract's parts.
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

shmt_init_fn shmt_local_init;
shmt_connect_fn shmt_local_connect;
shmt_finalize_fn shmt_local_finalize;
shmt_reachable_fn shmt_local_reachable;

#endif /* SHMT_LOCAL_H */
