/*
 * Put-with-signal and the signal routines (core_api.h: shmi_put_signal;
 * shmem_signal_fetch and shmem_signal_wait_until; signal_add/set are
 * shmi_amo on a uint64_t).
 *
 * The checks and translation of the arguments; the engine moves data and
 * signal (src/core/engine/eng_signal.c says how they are ordered).
 */
#include "config.h"

#include "core/dataplane.h"
#include "core/device_mem.h"
#include "core/engine/engine.h"

/* What a caller of put_signal must get right; fatal with the routine name. */
static void shmi_signal_check(const char *routine, const uint64_t *sig_addr,
                              int sig_op, int pe)
{
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        SHMI_FATAL("%s: sig_op %d is neither SHMEM_SIGNAL_SET nor "
                   "SHMEM_SIGNAL_ADD (PE %d)",
                   routine, sig_op, pe);
    if ((uintptr_t)sig_addr % sizeof(uint64_t))
        SHMI_FATAL("%s: signal address %p (PE %d) is not 8-byte aligned",
                   routine, (const void *)sig_addr, pe);
}

static inline __attribute__((always_inline)) void
shmi_put_signal_do(const char *routine, shmem_ctx_t ctx, void *dest,
                   const void *src, size_t nbytes, uint64_t *sig_addr,
                   uint64_t signal, int sig_op, int pe, int nbi)
{
    size_t off = 0, soff;
    int seg, sseg;

    pe = shmi_dp_target(routine, ctx, pe);
    if (SHMI_UNLIKELY(
            (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD) ||
            ((uintptr_t)sig_addr & 7)))
        shmi_signal_check(routine, sig_addr, sig_op, pe);
    sseg = shmi_dp_seg(routine, sig_addr, sizeof(uint64_t), pe, &soff);
    seg = sseg;
    if (SHMI_LIKELY(nbytes > 0)) {
        shmi_dp_check_local(routine, src, nbytes, pe);
        seg = shmi_dp_seg(routine, dest, nbytes, pe, &off);
    }
    shmi_eng_put_signal(routine, ctx, pe, seg, off, src, nbytes, sseg, soff,
                        signal,
                        sig_op == SHMEM_SIGNAL_ADD ? SHMI_AMO_ADD
                                                   : SHMI_AMO_SET,
                        nbi, SHMI_ENG_SIGNAL_PROGRAM);
}

void shmi_put_signal(const char *routine, shmem_ctx_t ctx, void *dest,
                     const void *src, size_t nbytes, uint64_t *sig_addr,
                     uint64_t signal, int sig_op, int pe, int nbi)
{
    shmi_put_signal_do(routine, ctx, dest, src, nbytes, sig_addr, signal,
                       sig_op, pe, nbi);
}

uint64_t shmi_signal_fetch(const uint64_t *sig_addr)
{
    size_t off;

    if (SHMI_UNLIKELY(shmi_dp_seg("shmem_signal_fetch", sig_addr,
                                  sizeof(uint64_t), shmi_my_pe_fast(),
                                  &off) == SHMI_SEG_DEVICE))
        return shmi_device_signal_fetch("shmem_signal_fetch", sig_addr);
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}

uint64_t shmi_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    size_t off;

    if (SHMI_UNLIKELY(shmi_dp_seg("shmem_signal_wait_until", sig_addr,
                                  sizeof(uint64_t), shmi_my_pe_fast(),
                                  &off) == SHMI_SEG_DEVICE))
        return shmi_device_signal_wait("shmem_signal_wait_until", sig_addr,
                                       cmp, cmp_value);
    return shmi_wait_u64("shmem_signal_wait_until", sig_addr, cmp, cmp_value);
}
