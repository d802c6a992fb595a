/*
 * Whether this process can reach a range of its own memory, asked without
 * touching it: for addresses that come from outside the library's control
 * (a kernel's request to its proxy, the host side of a stream copy), which
 * the host path would otherwise copy without a fault handler.
 */
#ifndef SHMI_HOST_PROBE_H
#define SHMI_HOST_PROBE_H

#include <stddef.h>
#include <stdint.h>

/*
 * 0 when this process can read (and, with write, write) one byte of every
 * page of [a, a + n), n > 0 and the range does not wrap; else the first
 * address it cannot reach (a itself when the first page fails). The bytes
 * are read with process_vm_readv on this process, so a fault is an EFAULT,
 * not a signal; a write puts back the byte it read (callers ask it only of
 * buffers that are about to be overwritten anyway). Where the calls are
 * refused (a seccomp profile), 0: nothing is checked.
 */
uintptr_t shmi_host_unreachable(uintptr_t a, size_t n, int write);

#endif /* SHMI_HOST_PROBE_H */
