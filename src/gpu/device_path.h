/*
 * Host-initiated RMA, atomics and signals that touch device memory: a
 * target in the device heap (SHMI_SEG_DEVICE), or a local source or
 * destination buffer in device memory. The core's data-plane routines
 * (rma.c, amo.c, signal.c) hand such calls here; the load/store path never
 * dereferences device memory (docs/gpu.md).
 *
 * Paths to a device heap (SHMI_SEG_DEVICE), per call, first that applies:
 *   - the own heap, or that of a PE of this node (IPC mapping) whose host
 *     heap is mapped here too (not with SHMEM_LOCAL=0, SHMEM_LOCAL_OFF_PES)
 *     unless SHMEM_DEVICE_SERVICE=all: the back end's copy (H2D, D2H, D2D)
 *     or atomic;
 *   - a heap the fabric reaches (FI_HMEM registration of SHMI_SEG_DEVICE
 *     by transports/ofi/ofi_hmem.c): the fabric directly; a local device
 *     buffer the fabric cannot be handed is staged (below);
 *   - otherwise the owner's device service (device_proxy.h): requests in a
 *     ring in its host heap, applied by its thread, acknowledged;
 *   - without a fabric nor a mapping: SHMI_ENOTSUP (shmi_device_fail).
 * Atomics: NIC atomics (fabric reaches the heap, shmi_dp_cpu_atomics == 0)
 * for every PE; else, when the back end has no device atomics (cuda, hip)
 * or with SHMEM_DEVICE_SERVICE=all, read-modify-write under the owner's
 * service lock (its own atomics locally, the others as requests); else the
 * route above with the back end's atomic.
 *
 * Paths to host memory with a device buffer on this side: one back-end
 * copy when the host segment is mapped here; through the fabric, staged
 * through two pinned host bounce buffers, pipelined (the copy of one chunk
 * overlaps the transfer of the previous one).
 *
 * Completion: every call here is complete on return (the non-blocking
 * forms too: service requests are acknowledged, so quiet and fence need no
 * hook), except that a fabric put is remotely complete only at quiet, as
 * for host memory. Functions return 0 or a negative SHMI_E* code.
 */
#ifndef SHMI_GPU_DEVICE_PATH_H
#define SHMI_GPU_DEVICE_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "core/core_api.h"
#include "gpu/gpu.h"
#include "services/dtype.h"

/* Bytes per chunk of a staged transfer (each of the two bounce buffers). */
#define SHMI_DEVICE_STAGE_CHUNK ((size_t)512 << 10)

/* 1 while this PE has a device heap (set by src/core/heap/device_heap.c):
 * keeps shmi_device_touches to one predictable branch otherwise. */
extern int shmi_device_active;

int shmi_device_touches_slow(const void *addr, size_t len);

/* 1 when [addr, addr+len) is (partly) device memory: this PE's device
 * heap, an imported peer heap, or other memory of the back end. */
static inline int shmi_device_touches(const void *addr, size_t len)
{
    return __builtin_expect(shmi_device_active, 0) &&
           shmi_device_touches_slow(addr, len);
}

/* Put len bytes from src (host or device memory) to (seg, off) of pe. */
int shmi_device_put(const char *routine, shmem_ctx_t ctx, int pe, int seg,
                    size_t off, const void *src, size_t len, int nbi);

/* Get len bytes from (seg, off) of pe into dst (host or device memory). */
int shmi_device_get(const char *routine, shmem_ctx_t ctx, int pe, int seg,
                    size_t off, void *dst, size_t len, int nbi);

/* One atomic on a word of pe's device heap (seg == SHMI_SEG_DEVICE), with
 * the arguments of shmi_amo (operand, compare, fetched in host memory). */
int shmi_device_amo(const char *routine, shmem_ctx_t ctx, int pe, int seg,
                    size_t off, shmi_amo_op_t op, shmi_dtype_t dt,
                    const void *operand, const void *compare, void *fetched,
                    int nbi);

/* Put then signal (SHMEM_SIGNAL_SET/ADD on the uint64_t at (sig_seg,
 * sig_off)), the signal visible only after the data; either may be in a
 * device heap. */
int shmi_device_put_signal(const char *routine, shmem_ctx_t ctx, int pe,
                           int seg, size_t off, const void *src, size_t len,
                           int sig_seg, size_t sig_off, uint64_t signal,
                           int sig_op, int nbi);

/* shmem_signal_fetch / shmem_signal_wait_until on a signal word in this
 * PE's device heap (read through the back end, with back-off). */
uint64_t shmi_device_signal_fetch(const char *routine,
                                  const uint64_t *sig_addr);
uint64_t shmi_device_signal_wait(const char *routine, const uint64_t *sig_addr,
                                 int cmp, uint64_t value);

/* What a fabric may register of this PE's device heap: the address
 * (*addr, *size; the mock's DMA view with SHMEM_DEVICE_MOCK_DMA=host or
 * cuda), what memory it is and on which GPU. SHMI_ENOTSUP when no NIC may
 * be handed it, SHMI_ENODEV without a device heap. */
int shmi_device_fabric_view(void **addr, size_t *size, shmi_mem_kind_t *kind,
                            int *device);

/* Frees the bounce buffers; called when the device heap goes away. */
void shmi_device_path_release(void);

/* Ends the job with a message for an error code returned above. */
_Noreturn void shmi_device_fail(const char *routine, int pe, int ret);

#endif /* SHMI_GPU_DEVICE_PATH_H */
