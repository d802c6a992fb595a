/*
 * The device state that kernels read (docs/gpu.md, "Device-initiated
 * communication"; the layout is include/shmem/device/abi.h): built once
 * per process, on the first shmemx_kernel_state (shmemd_init), from what
 * the job already knows, so that no collective call is needed:
 *   - the peer table: for each PE, where device code reaches its device
 *     heap (the device transport's IPC mapping, where the PE's host heap
 *     is mapped here too, the same rule that sends host calls over IPC),
 *     or NULL: the proxy;
 *   - the ring and the words kernels share with the proxy, in host memory
 *     mapped into the device; the ticket counter in device memory;
 *   - the barrier's words, reserved at the device heap's end
 *     (shmi_device_heap_kernel_words), the same offset on every PE, right
 *     after the user part that heap_size covers.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_decl.h"
#include "core/device_mem.h"
#include "core/heap/device_heap.h"
#include "core/init.h"
#include "core/kernel/kernel.h"
#include "core/route.h"
#include "core/state.h"
#include "services/env.h"
#include "services/error.h"

/* Bytes of the mapped host block past the slots: completed, the error. */
#define KERNEL_WORDS_BYTES ((size_t)128)

static struct {
    pthread_mutex_t lock;
    int built;
    const shmi_gpu_ops_t *gpu;
    shmemd_state_t st;       /* device views, handed to shmemd_init */
    shmi_kernel_ring_t ring; /* host views, handed to the proxy */
    void *host_block;        /* the back end's mapped host memory */
    void *peer_table;        /* device memory */
    void *tail;              /* device memory */
} ks = {.lock = PTHREAD_MUTEX_INITIALIZER};

static uint64_t ring_slots(const char *routine)
{
    long v = shmi_env.KERNEL_RING;

    if (v < 2 || v > 65536 || (v & (v - 1)) != 0)
        SHMI_FATAL("%s: PE %d: SHMEM_KERNEL_RING=%ld: the ring needs a "
                   "power of two from 2 to 65536 slots",
                   routine, shmi_my_pe_fast(), v);
    return (uint64_t)v;
}

/* Whether device code reaches pe's device heap by loads and stores. */
static int peer_direct(int pe)
{
    if (pe == shmi_my_pe_fast())
        return 1;
    if (strcmp(shmi_env.KERNEL_PATH, "proxy") == 0)
        return 0;
    return shmi_route_ready(pe, SHMI_SEG_HEAP)->base != NULL &&
           shmi_device_peer_ptr(pe, 0) != NULL;
}

/* The peer table, in device memory. */
static int build_peers(const char *routine)
{
    int n = shmi_n_pes_fast(), ret;
    size_t bytes = (size_t)n * sizeof(char *);
    char **tab = calloc((size_t)n, sizeof(*tab));

    if (!tab)
        return SHMI_ENOMEM;
    for (int pe = 0; pe < n; pe++) {
        if (pe == shmi_my_pe_fast())
            tab[pe] = shmi_state.seg[SHMI_SEG_DEVICE].base;
        else if (peer_direct(pe))
            tab[pe] = shmi_device_peer_ptr(pe, 0);
        if (!tab[pe])
            ks.st.n_proxied++;
    }
    ret = ks.gpu->alloc(bytes, &ks.peer_table);
    if (ret == 0 &&
        (ret = ks.gpu->copy(ks.peer_table, tab, bytes, SHMI_GPU_H2D)) != 0) {
        ks.gpu->free(ks.peer_table);
        ks.peer_table = NULL;
    }
    free(tab);
    SHMI_LOG(SHMI_LOG_DEBUG, "kernel", "%s: %d of %d PEs through the proxy",
             routine, ks.st.n_proxied, n);
    return ret;
}

/* The ring, completed and the error box: one block of mapped host memory;
 * the ticket counter: device memory. */
static int build_ring(uint64_t slots)
{
    size_t ring_bytes = slots * sizeof(shmemd_req_t);
    char *host, *dev;
    int ret = ks.gpu->host_alloc(ring_bytes + KERNEL_WORDS_BYTES,
                                 (void **)&host, (void **)&dev);

    if (ret != 0)
        return ret;
    ks.host_block = host;
    for (uint64_t i = 0; i < slots; i++)
        ((shmemd_req_t *)host)[i].turn = i;
    ks.ring.slots = (shmemd_req_t *)host;
    ks.ring.nslots = slots;
    ks.ring.completed = (volatile uint64_t *)(host + ring_bytes);
    ks.ring.error = (shmemd_error_t *)(host + ring_bytes + 64);
    ks.st.ring = (shmemd_req_t *)dev;
    ks.st.ring_slots = slots;
    ks.st.completed = (volatile uint64_t *)(dev + ring_bytes);
    ks.st.error = (shmemd_error_t *)(dev + ring_bytes + 64);
    return ks.gpu->alloc(64, &ks.tail);
}

static int build(const char *routine)
{
    uint64_t slots = ring_slots(routine);
    int ret;

    ks.gpu = shmi_device_backend();
    if (!ks.gpu)
        SHMI_FATAL("%s: PE %d has no device heap: device code needs one "
                   "(SHMEM_DEVICE_BACKEND, SHMEM_SYMMETRIC_DEVICE_SIZE)",
                   routine, shmi_my_pe_fast());
    memset(&ks.st, 0, sizeof(ks.st));
    ks.st.magic = SHMEMD_STATE_MAGIC;
    ks.st.abi_version = SHMEMD_ABI_VERSION;
    ks.st.my_pe = shmi_my_pe_fast();
    ks.st.n_pes = shmi_n_pes_fast();
    ks.st.heap_base = shmi_state.seg[SHMI_SEG_DEVICE].base;
    /* The user part only: the barrier's words right after it are no
     * routine's to address (device_heap.h). */
    ks.st.heap_size = shmi_device_heap_user_size();
    ks.st.sync = shmi_device_heap_kernel_words();
    if ((ret = build_peers(routine)) != 0 || (ret = build_ring(slots)) != 0)
        goto fail;
    ks.st.peer_base = (char *const *)ks.peer_table;
    ks.st.ring_tail = (uint64_t *)ks.tail;
    ks.ring.heap_base = ks.st.heap_base;
    ks.ring.heap_size = ks.st.heap_size;
    if ((ret = shmi_kernel_proxy_start(&ks.ring)) != 0)
        goto fail;
    return 0;
fail:
    SHMI_LOG(SHMI_LOG_ERROR, "kernel",
             "%s: PE %d: cannot set up device code "
             "on the %s back end: %s",
             routine, shmi_my_pe_fast(), ks.gpu->name, shmi_strerror(ret));
    shmi_kernel_state_free();
    return ret;
}

int shmix_kernel_state(void *state, size_t size)
{
    const char *routine = "shmemx_kernel_state";
    int ret = 0;

    shmi_require_init(routine);
    if (!state)
        SHMI_FATAL("%s: PE %d: state is NULL", routine, shmi_my_pe_fast());
    if (size != sizeof(shmemd_state_t))
        SHMI_FATAL("%s: PE %d: size %zu is not sizeof(shmemd_state_t) = %zu: "
                   "the program was compiled against another version of "
                   "shmemx_device.h",
                   routine, shmi_my_pe_fast(), size, sizeof(shmemd_state_t));
    pthread_mutex_lock(&ks.lock);
    if (!ks.built && (ret = build(routine)) == 0)
        ks.built = 1;
    if (ret == 0)
        memcpy(state, &ks.st, sizeof(ks.st));
    pthread_mutex_unlock(&ks.lock);
    return ret == 0 ? 0 : -1;
}

void shmi_kernel_state_free(void)
{
    if (!ks.gpu)
        return;
    if (ks.tail)
        ks.gpu->free(ks.tail);
    if (ks.peer_table)
        ks.gpu->free(ks.peer_table);
    if (ks.host_block)
        ks.gpu->host_free(ks.host_block);
    ks.tail = ks.peer_table = ks.host_block = NULL;
    ks.built = 0;
    ks.gpu = NULL;
}
