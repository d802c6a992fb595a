/*
 * The local (load/store) transport: every PE of a node maps the symmetric
 * heaps of the others (docs/design.md, decision 1), so put/get are memcpy and
 * atomics are CPU atomics on the peer's mapping.
 *
 * The operations struct shmt_local_ops is defined in local_map.c, which also
 * owns the mappings (init, connect, finalize, reachable, and
 * shmi_state.peer_base[][]). The data members are in local_ops.c. The core
 * does not call these through the struct on its hot path: it tests
 * shmi_seg_peer_ptr() and uses the inline forms of local_inline.h; the
 * members below exist so that the transport is complete on its own (tests,
 * tools, a core that knows only shmt_ops_t).
 *
 * Completion: every local operation is complete when it returns (the store
 * is in this CPU's coherent cache hierarchy); fence and quiet are memory
 * fences. Thread safety: all members may be called concurrently.
 */
#ifndef SHMT_LOCAL_H
#define SHMT_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "transports/transport.h"

/* ---- local_map.c: mappings --------------------------------------------- */

int shmt_local_init(void);
int shmt_local_connect(void);
void shmt_local_finalize(void);
int shmt_local_reachable(int pe, shmi_seg_id_t seg);

/* ---- local_ops.c: data movement ------------------------------------------ */

/* No per-context state: *ep is set to a non-NULL dummy so that callers can
 * tell "created" from "not created". */
int shmt_local_ep_create(long options, shmt_ep_t **ep);
void shmt_local_ep_destroy(shmt_ep_t *ep);

/* Return SHMI_ERANGE when (pe, seg) is not mapped here. */
int shmt_local_put(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                   const void *src, size_t len, int nbi);
int shmt_local_get(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                   void *dst, size_t len, int nbi);
int shmt_local_amo(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                   shmi_amo_op_t op, shmi_dtype_t dt, const void *operand,
                   const void *compare, void *fetched, int nbi);
int shmt_local_put_signal(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                          const void *src, size_t len, shmi_seg_id_t sig_seg,
                          size_t sig_off, uint64_t signal, int sig_op, int nbi);
int shmt_local_fence(shmt_ep_t *ep);
int shmt_local_quiet(shmt_ep_t *ep, int pe);
void shmt_local_progress(void);

#endif /* SHMT_LOCAL_H */
