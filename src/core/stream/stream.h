/*
 * Stream-ordered communication (docs/gpu.md, "Stream-ordered
 * communication"): the shmemx_*_on_stream routines enqueue their operation
 * on a device stream of the back end and return; the operation takes effect
 * after the work enqueued before it and before the work enqueued after it.
 *
 * Two mechanisms:
 *   - a copy on the stream itself, where the back end's copy reaches the
 *     target (the own device heap, or a peer's mapped through IPC whose
 *     host heap is mapped here too: the device transport's IPC route);
 *   - otherwise a host function on the stream that hands the operation to
 *     the stream's lane, a thread of this PE with a private context, and
 *     waits for it to finish: the host function must not call the GPU
 *     runtime itself (CUDA's and HIP's rule), the lane may. The stream
 *     therefore stalls exactly as long as the operation takes.
 * Files: lane.c (lanes and the host-function hand-off), stream_rma.c (RMA,
 * signals, quiet, the stream helpers), stream_coll.c (barrier, sync and
 * the collectives).
 */
#ifndef SHMI_STREAM_H
#define SHMI_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "core/coll/coll.h"
#include "services/gpu_ops.h"
#include "shmem.h"

typedef struct shmi_stream_lane shmi_stream_lane_t;

/* An operation for a lane: run(exec, arg) on the lane's thread, in stream
 * order; exec is the lane's (its private context, a device stream of its
 * own for kernels, scratch; it synchronises with shmi_coll_ctx_sync). arg
 * is the caller's, freed by the lane after run. */
typedef void (*shmi_stream_fn_t)(shmi_coll_exec_t *exec, void *arg);

/* The device back end, fatal (naming routine) when this PE has none. */
const shmi_gpu_ops_t *shmi_stream_backend(const char *routine);

/* Enqueues run(arg) on stream, after the work enqueued before. arg must be
 * malloc'ed; the lane frees it. Fatal on failure, naming routine. */
void shmi_stream_enqueue(const char *routine, void *stream,
                         shmi_stream_fn_t run, void *arg);

/* Stops every lane once the host functions enqueued for it have returned
 * (shmem_finalize, before its barrier). */
void shmi_stream_finalize(void);

/* Stops the lane of stream, if any, the same way (before the stream is
 * destroyed: shmemx_stream_destroy). */
void shmi_stream_forget(void *stream);

/* Fatal unless [p, p+len) lies in the device heap (a symmetric argument);
 * what names the argument. */
void shmi_stream_need_device_heap(const char *routine, const char *what,
                                  const void *p, size_t len);

/* Fatal unless [p, p+len) is device memory; what names the argument. */
void shmi_stream_need_device(const char *routine, const char *what,
                             const void *p, size_t len);

#endif /* SHMI_STREAM_H */
