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
 * the collectives), stream_check.c (the checks of streams, buffers and
 * sizes), drain.c (what shmem_finalize waits for).
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

/*
 * shmem_finalize's first step (drain.c): waits until the work enqueued
 * before it has ended on every stream it can reach (the live streams of
 * shmemx_stream_create, the default stream once used, and the operations
 * handed to lanes on any other stream), in a loop the watchdog reports
 * (src/core/watchdog.h), then stops the lanes.
 */
void shmi_stream_finalize(void);

/* Stops the lane of stream, if any, once the host functions enqueued for
 * it have returned (before the stream is destroyed: shmemx_stream_destroy). */
void shmi_stream_forget(void *stream);

/* lane.c, for drain.c: host functions enqueued for lanes that have not
 * returned; what the first busy lane does, in words (buf of len bytes);
 * stops every lane (each once its host functions have returned). */
unsigned long shmi_stream_lanes_pending(void);
void shmi_stream_lanes_say(char *buf, size_t len);
void shmi_stream_lanes_stop(void);

/* ---- checks (stream_check.c) ---- */

/* Fatal, naming routine, when stream was destroyed by shmemx_stream_destroy
 * or (on the mock, whose every stream shmemx_stream_create made) is not a
 * stream. Every routine that takes a stream calls it first. */
void shmi_stream_check(const char *routine, void *stream);

/* shmemx_stream_create made stream / shmemx_stream_destroy is about to
 * destroy it (fatal for NULL, a stream destroyed already, or one that
 * shmi_stream_check refuses). */
void shmi_stream_made(const char *routine, void *stream);
void shmi_stream_unmake(const char *routine, void *stream);

/* The streams shmem_finalize drains: the live ones of shmemx_stream_create
 * and NULL (the default stream) when some routine was given it. *streams
 * is malloc'ed (the caller frees it); returns their number. */
size_t shmi_stream_drain_list(void ***streams);

/* Forgets every stream (shmem_finalize, after the drain). */
void shmi_stream_forget_all(void);

/* Fatal unless nbytes (count elements of the routine's argument named
 * what, SIZE_MAX when their size overflowed: shmi_nbytes) fit in the
 * device heap: the message names what and count. */
void shmi_stream_need_count(const char *routine, const char *what, size_t count,
                            size_t nbytes);

/* Fatal unless [p, p+len) lies in the user part of the device heap (a
 * symmetric argument); what names the argument. */
void shmi_stream_need_device_heap(const char *routine, const char *what,
                                  const void *p, size_t len);

/* Fatal unless [p, p+len) is device memory, all of it; what names the
 * argument, size_name the one that gave len. */
void shmi_stream_need_device(const char *routine, const char *what,
                             const void *p, const char *size_name, size_t len);

/* Fatal unless [p, p+len) is memory this process can read (the host side
 * of shmemx_memcpy_on_stream): not NULL, the first page or unmapped. */
void shmi_stream_need_host(const char *routine, const char *what, const void *p,
                           const char *size_name, size_t len);

#endif /* SHMI_STREAM_H */
