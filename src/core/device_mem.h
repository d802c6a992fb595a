/*
 * What the core does with device (GPU) memory itself (device_mem.c). The
 * data movement to and from device memory is the device transport's
 * (transports/device, reached through the route table and, for a local
 * buffer in device memory, shmi_eng_device_route in src/core/engine); the
 * core only tells a device buffer from a host one, describes the device heap to the
 * transports, reads this PE's own device words, and reports the device
 * transport's errors. The load/store path never dereferences device
 * memory (docs/gpu.md).
 */
#ifndef SHMI_DEVICE_MEM_H
#define SHMI_DEVICE_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "services/mem_kind.h"

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

/* Where offset off of pe's device heap is mapped here (the device
 * transport's IPC import, same node), or NULL: a device address, which only
 * the back end's functions may touch (shmem_ptr returns it). */
char *shmi_device_peer_ptr(int pe, size_t off);

/* What a fabric may register of this PE's device heap: the address
 * (*addr, *size), what memory it is and on which GPU, as the back end's
 * fabric_view says (services/gpu_ops.h). SHMI_ENOTSUP when no NIC may be
 * handed it, SHMI_ENODEV without a device heap. */
int shmi_device_fabric_view(void **addr, size_t *size, shmi_mem_kind_t *kind,
                            int *device);

/* shmem_signal_fetch / shmem_signal_wait_until on a signal word in this
 * PE's device heap (read through the back end, with back-off). */
uint64_t shmi_device_signal_fetch(const char *routine,
                                  const uint64_t *sig_addr);
uint64_t shmi_device_signal_wait(const char *routine, const uint64_t *sig_addr,
                                 int cmp, uint64_t value);

/* Ends the job with a message for an error code of the device transport. */
_Noreturn void shmi_device_fail(const char *routine, int pe, int ret);

#endif /* SHMI_DEVICE_MEM_H */
