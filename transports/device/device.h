/*
 * The device transport (docs/gpu.md): host-initiated RMA, atomics and
 * signals that touch device (GPU) memory, behind the transport contract
 * (transports/transport.h). The core routes every (PE, SHMI_SEG_DEVICE) to
 * it, and any call whose local buffer is device memory; the load/store path
 * never dereferences device memory. Its files:
 *
 *   device_ops.c    shmt_device_ops: init (IPC export), connect (IPC
 *                   import of this node's device heaps, the per-PE choice
 *                   of a path, the service's start), finalize, endpoints;
 *                   its parts are RMA and atomics (no ordering part: every
 *                   call completes on return, see "Completion" below)
 *   device_path.c   the data operations: put, get, atomics, put-with-signal
 *                   to device heaps, and between device buffers and host
 *                   segments (staging through the fabric)
 *   device_proxy.c  the device service: a per-PE thread that applies to its
 *                   device heap the requests of PEs that cannot reach it
 *
 * What it knows of the job is the shmt_job_t of init: this PE's device
 * heap (seg[SHMI_SEG_DEVICE]), the device back end (gpu) and the core's
 * host path (host), over which it reaches the fabric and the host heap.
 *
 * Paths to a device heap, decided per PE at connect, first that applies:
 *   - the own heap, or that of a PE of this node (IPC mapping) whose host
 *     heap is mapped here too (not with SHMEM_LOCAL=0, SHMEM_LOCAL_OFF_PES)
 *     unless SHMEM_DEVICE_SERVICE=all: the back end's copy (H2D, D2H, D2D)
 *     or atomic;
 *   - a heap the fabric reaches (FI_HMEM registration by the fabric): the
 *     fabric directly; a local device buffer the fabric cannot be handed
 *     is staged (device_path.c);
 *   - otherwise the owner's device service (device_proxy.c): requests in a
 *     ring in its host heap, applied by its thread, acknowledged;
 *   - without a fabric nor a mapping: SHMI_ENOTSUP.
 * Atomics: NIC atomics (the fabric reaches the heap and the job's engine
 * is not the CPU) for every PE; else, when the back end has no device
 * atomics (cuda, hip) or with SHMEM_DEVICE_SERVICE=all, read-modify-write
 * under the owner's service lock (its own atomics locally, the others as
 * requests); else the path above with the back end's atomic.
 *
 * Completion: every call is complete on return (the non-blocking forms
 * too: service requests are acknowledged, so quiet and fence need no more),
 * except that a fabric put is remotely complete only at the fabric's
 * quiet, as for host memory; the core's quiet quiets every transport.
 * Functions return 0 or a negative SHMI_E* code.
 */
#ifndef SHMT_DEVICE_H
#define SHMT_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "services/gpu_ops.h"
#include "transports/transport.h"

/* Bytes per chunk of a staged transfer (each of the two bounce buffers). */
#define SHMT_DEV_STAGE_CHUNK ((size_t)512 << 10)

/* The device service's ring: slots, reply boxes, payload bytes per slot. */
#define SHMT_DEV_SVC_SLOTS   8
#define SHMT_DEV_SVC_REPLIES 8
#define SHMT_DEV_SVC_CHUNK   ((size_t)64 << 10)

/* How a call reaches a PE's device heap (decided at connect). */
typedef enum shmt_dev_route {
    SHMT_DEV_IPC,     /* back-end copy or atomic on the mapping */
    SHMT_DEV_FABRIC,  /* the fabric (FI_HMEM registration) */
    SHMT_DEV_SERVICE, /* the owner's device service */
    SHMT_DEV_NONE
} shmt_dev_route_t;

/* The transport's state (device_ops.c), from init to finalize. */
typedef struct shmt_dev {
    const shmt_job_t *job;     /* what the core handed init */
    const shmi_gpu_ops_t *gpu; /* job->gpu */
    const shmt_host_t *host;   /* job->host */
    char *base;                /* this PE's device heap */
    size_t size;               /* its bytes (the same on every PE) */
    char **peer;               /* [npes] IPC mappings (peer[me] = base) */
    int *imported;             /* [npes] 1 when peer[pe] must be closed */
    /* 1 when the fabric may be handed a local buffer in the own heap as it
     * is (it registered the heap itself, not another view of it). */
    int fabric_direct;
    /* The job's atomics engine (shmt_host_t.cpu_atomics), fixed before
     * this transport connects: read once there, so that the data path
     * asks the core nothing it already knows. */
    int cpu_atomics;
} shmt_dev_t;

extern shmt_dev_t shmt_dev;

/* An endpoint: the context it serves, for the host path's calls. */
typedef struct shmt_dev_ep {
    void *owner;
} shmt_dev_ep_t;

static inline void *shmt_dev_owner(shmt_ep_t *ep)
{
    return ((shmt_dev_ep_t *)ep)->owner;
}

/* ---- device_ops.c ---- */

/* Where offset off of pe's device heap is mapped here (IPC), or NULL. */
char *shmt_dev_peer_ptr(int pe, size_t off);

/* 1 when ptr lies in this PE's device heap. */
int shmt_dev_contains(const void *ptr);

/* 1 when [addr, addr+len) is (partly) device memory of the back end. */
int shmt_dev_touches(const void *addr, size_t len);

/* ---- device_path.c: the data members ---- */

shmt_put_fn shmt_dev_put;
shmt_get_fn shmt_dev_get;
shmt_amo_fn shmt_dev_amo;
shmt_put_signal_fn shmt_dev_put_signal;

/* How pe's device heap is reached (device_ops.c sets the table). */
shmt_dev_route_t shmt_dev_route(int pe);

/* 1 when the fabric reaches pe's device heap (asked of the host path once
 * per PE, at connect). */
int shmt_dev_fabric_reaches(int pe);

/* Frees the bounce buffers. */
void shmt_dev_path_release(void);

/* ---- device_proxy.c: the device service ---- */

/* Starts the service where this job needs it (every PE, same point of
 * start-up: the ring is a symmetric allocation of the host heap): always
 * with a fabric; without one, only for a back end without device atomics
 * or with SHMEM_DEVICE_SERVICE=all, and only when every PE's ring is
 * mapped here (a lone PE serialises its own atomics under the lock, no
 * thread). 0, or a negative code when it cannot start. */
int shmt_dev_svc_connect(void);

/* Stops the thread and frees the ring. */
void shmt_dev_svc_stop(void);

/* 1 while the service runs (on this PE, hence on every PE). */
int shmt_dev_svc_up(void);

/* 1 when SHMEM_DEVICE_SERVICE=all: every access to another PE's device
 * heap goes through its service. */
int shmt_dev_svc_all(void);

/* 1 when device atomics are read-modify-write copies serialised by the
 * owner's service (back ends without device atomics, or =all). */
int shmt_dev_svc_rmw(void);

/* Requests this PE's service has served so far (tests, debugging). */
uint64_t shmt_dev_svc_served(void);

/* Requests to pe's service, on behalf of owner. src/dst: host or device
 * memory of any size. */
int shmt_dev_svc_put(void *owner, int pe, size_t off, const void *src,
                     size_t len);
int shmt_dev_svc_get(void *owner, int pe, size_t off, void *dst, size_t len);
int shmt_dev_svc_amo(void *owner, int pe, size_t off, shmi_amo_op_t op,
                     shmi_dtype_t dt, const void *operand, const void *compare,
                     void *fetched);

/* An atomic on a word of this PE's own device heap as the service applies
 * it (under its lock, read-modify-write in rmw mode). */
int shmt_dev_svc_amo_local(void *word, shmi_amo_op_t op, shmi_dtype_t dt,
                           const void *operand, const void *compare,
                           void *fetched);

#endif /* SHMT_DEVICE_H */
