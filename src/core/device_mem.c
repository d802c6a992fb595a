/*
 * What the core does with device memory itself (device_mem.h): telling a
 * device buffer from a host one, what a fabric may be handed of the device
 * heap, this PE's own device words read by signal_fetch and the waits, and
 * the messages of the device transport's errors. Moving data to and from
 * device memory is the device transport's (transports/device).
 */
#include "config.h"

#include <stdio.h>

#include "core/dataplane.h"
#include "core/device_mem.h"
#include "core/heap/device_heap.h"
#include "core/watchdog.h"
#include "services/backoff.h"

int shmi_device_active;

int shmi_device_touches_slow(const void *addr, size_t len)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();
    const char *a = addr;

    if (!g || !a || len == 0)
        return 0;
    if (shmi_device_heap_contains(a) || shmi_device_heap_contains(a + len - 1))
        return 1;
    return g->is_device(a) || g->is_device(a + len - 1);
}

char *shmi_device_peer_ptr(int pe, size_t off)
{
    const shmt_ops_t *d = shmi_state.device;
    char *b;

    if (d == NULL || d->mapped_base == NULL || pe < 0 ||
        pe >= shmi_n_pes_fast() ||
        off >= shmi_state.seg[SHMI_SEG_DEVICE].size)
        return NULL;
    b = d->mapped_base(pe, SHMI_SEG_DEVICE);
    return b ? b + off : NULL;
}

int shmi_device_fabric_view(void **addr, size_t *size, shmi_mem_kind_t *kind,
                            int *device)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();
    char *base = shmi_state.seg[SHMI_SEG_DEVICE].base;

    if (!g || !base)
        return SHMI_ENODEV;
    *size = shmi_state.seg[SHMI_SEG_DEVICE].size;
    return g->fabric_view(base, *size, addr, kind, device);
}

static int cmp_u64(uint64_t v, int cmp, uint64_t value)
{
    switch (cmp) {
    case SHMEM_CMP_EQ: return v == value;
    case SHMEM_CMP_NE: return v != value;
    case SHMEM_CMP_GT: return v > value;
    case SHMEM_CMP_GE: return v >= value;
    case SHMEM_CMP_LT: return v < value;
    case SHMEM_CMP_LE: return v <= value;
    default: return -1;
    }
}

uint64_t shmi_device_signal_fetch(const char *routine, const uint64_t *sig_addr)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();
    uint64_t v = 0;
    int ret = SHMI_EINVAL;

    if (g && shmi_device_heap_contains(sig_addr))
        ret = g->atomic((void *)sig_addr, SHMI_AMO_FETCH, SHMI_DT_UINT64, NULL,
                        NULL, &v);
    if (ret == SHMI_ENOTSUP) /* no device atomics: a copy reads 8 bytes whole */
        ret = g->copy(&v, sig_addr, sizeof(v), SHMI_GPU_D2H);
    if (ret != 0)
        shmi_device_fail(routine, shmi_my_pe_fast(), ret);
    return v;
}

/* What a signal wait on the device heap waits for, for the watchdog
 * (src/core/watchdog.h): the wait's routine, word, condition and value. */
typedef struct shmi_device_wait_say {
    const char *routine;
    const uint64_t *sig_addr;
    int cmp;
    uint64_t value;
    uint64_t now;
} shmi_device_wait_say_t;

static void shmi_device_wait_say(const void *arg, char *buf, size_t len)
{
    const shmi_device_wait_say_t *w = arg;

    snprintf(buf, len,
             "%s on sig_addr %p in the device heap (until *sig_addr %s %llu; "
             "it is %llu now), which any PE may satisfy",
             w->routine, (const void *)w->sig_addr,
             shmi_watchdog_cmp_text(w->cmp), (unsigned long long)w->value,
             (unsigned long long)w->now);
}

uint64_t shmi_device_signal_wait(const char *routine, const uint64_t *sig_addr,
                                 int cmp, uint64_t value)
{
    shmi_device_wait_say_t say = {routine, sig_addr, cmp, value, 0};
    shmi_backoff_t b;
    uint64_t v;
    int ok;

    shmi_backoff_init(&b);
    for (;;) {
        v = shmi_device_signal_fetch(routine, sig_addr);
        ok = cmp_u64(v, cmp, value);
        if (ok < 0)
            SHMI_FATAL("%s: comparison %d is not one of the SHMEM_CMP_* "
                       "constants",
                       routine, cmp);
        if (ok)
            return v;
        say.now = v;
        shmi_watchdog_check(&b, shmi_device_wait_say, &say);
        shmi_backoff_wait(&b);
    }
}

_Noreturn void shmi_device_fail(const char *routine, int pe, int ret)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();

    switch (ret) {
    case SHMI_ENODEV:
        SHMI_FATAL("%s: PE %d: no device heap here (SHMEM_DEVICE_BACKEND, "
                   "SHMEM_SYMMETRIC_DEVICE_SIZE)",
                   routine, pe);
    case SHMI_ENOTSUP:
        SHMI_FATAL("%s: the device memory of PE %d is not reachable from "
                   "here: neither IPC (same node) nor the fabric (FI_HMEM) "
                   "reaches it, and no device service runs (it starts with "
                   "libfabric, or without it for back ends lacking device "
                   "atomics or with SHMEM_DEVICE_SERVICE=all)",
                   routine, pe);
    case SHMI_ENOSYS:
        SHMI_FATAL("%s: the %s device back end cannot apply this atomic "
                   "operation to device memory (PE %d), and no device "
                   "service serialises it (see the start-up warnings)",
                   routine, g ? g->name : "?", pe);
    default:
        SHMI_FATAL("%s: device data transfer with PE %d failed: %s", routine,
                   pe, shmi_strerror(ret));
    }
}
