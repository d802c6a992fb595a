/*
 * The device service: a per-PE thread that applies to this PE's device heap
 * the requests of PEs that cannot reach it themselves (docs/gpu.md).
 *
 * Why. Without FI_HMEM the fabric cannot read or write a GPU's memory, and
 * the cuda and hip back ends have no host-initiated device atomics. The PE
 * that owns a device heap can always copy to and from it, so the others ask
 * it to: puts, gets and atomics are requests, a put-with-signal is a put
 * request followed by an atomic one.
 *
 * Where. A request ring in each PE's host symmetric heap (allocated at the
 * same offset on every PE when the fabric connects, registered like the
 * rest of the heap, so every path reaches it; on one node without a fabric,
 * at the device heap's connect step, reached by load/store): a ticket
 * counter that requesters increment with a fabric atomic (a CPU atomic
 * where the owner's heap is mapped), the owner's count of tickets
 * served, SHMI_DEVICE_SVC_SLOTS request slots of SHMI_DEVICE_SVC_CHUNK
 * payload bytes each, and SHMI_DEVICE_SVC_REPLIES reply boxes where the
 * services of other PEs answer this PE's requests.
 *
 * Protocol. A requester takes ticket t, waits until the owner has served
 * ticket t - SLOTS (flow control), writes request and payload into slot
 * t % SLOTS and then, ordered after them, the slot's flag t + 1 (one put-
 * with-signal, or stores when the owner's heap is mapped here). The owner's
 * thread serves tickets in order, polling the next slot's flag with back-
 * off (a few sched_yield polls after a request, then sleeps from 1 us
 * growing to 100 us; it never spins), and
 * answers into the requester's reply box (data, status, then the box's
 * sequence number). Large transfers are cut into chunks, with up to
 * SHMI_DEVICE_SVC_REPLIES requests in flight per requester.
 *
 * Completion: every call below returns when the owner has applied the
 * request (acknowledged), so shmem_fence and shmem_quiet need nothing more.
 *
 * Functions return 0 or a negative SHMI_E* code.
 */
#ifndef SHMI_GPU_DEVICE_PROXY_H
#define SHMI_GPU_DEVICE_PROXY_H

#include <stddef.h>
#include <stdint.h>

#include "core/core_api.h"
#include "services/dtype.h"

#define SHMI_DEVICE_SVC_SLOTS   8
#define SHMI_DEVICE_SVC_REPLIES 8
#define SHMI_DEVICE_SVC_CHUNK   ((size_t)64 << 10)

/* Called by transports/ofi when the fabric has connected (every PE, same
 * point of start-up) and before it shuts down: allocates the ring and
 * starts the thread when this PE has a device heap; stops and frees. */
void shmi_device_service_start(void);
void shmi_device_service_stop(void);

/* Called by the device heap once the PEs are connected (every PE, same
 * point of start-up, after the fabric's call above). Without a fabric the
 * ring is reached by load/store, and the service starts only where a back
 * end needs it: no host-initiated device atomics (cuda, hip), or
 * SHMEM_DEVICE_SERVICE=all. A lone PE then serialises its own atomics
 * under the lock, without a thread; a back end with device atomics (the
 * mock) gets no thread. Stopped by shmi_device_service_stop. */
void shmi_device_service_connected(void);

/* 1 while the service runs (on this PE, hence on every PE). */
int shmi_device_svc_up(void);

/* 1 when SHMEM_DEVICE_SERVICE=all: every access to another PE's device
 * heap goes through its service. */
int shmi_device_svc_all(void);

/* 1 when device atomics are read-modify-write copies serialised by the
 * owner's service (back ends without device atomics, or =all). */
int shmi_device_svc_rmw(void);

/* Requests this PE's service has served so far (tests, debugging). */
uint64_t shmi_device_svc_served(void);

/* Requests to pe's service. src/dst: host or device memory of any size. */
int shmi_device_svc_put(const char *routine, shmem_ctx_t ctx, int pe,
                        size_t off, const void *src, size_t len);
int shmi_device_svc_get(const char *routine, shmem_ctx_t ctx, int pe,
                        size_t off, void *dst, size_t len);
int shmi_device_svc_amo(const char *routine, shmem_ctx_t ctx, int pe,
                        size_t off, shmi_amo_op_t op, shmi_dtype_t dt,
                        const void *operand, const void *compare,
                        void *fetched);

/* An atomic on a word of this PE's own device heap as the service applies
 * it (under its lock, read-modify-write in rmw mode). */
int shmi_device_svc_amo_local(void *word, shmi_amo_op_t op, shmi_dtype_t dt,
                              const void *operand, const void *compare,
                              void *fetched);

#endif /* SHMI_GPU_DEVICE_PROXY_H */
