/*
 * The device symmetric heap (device_heap.h): back end and device choice,
 * creation, publication (the same heap on every PE), and the allocator
 * calls on it. The device transport (transports/device) exports it to the
 * other PEs of the node and imports theirs.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "core/device_mem.h"
#include "core/heap/device_heap.h"
#include "core/segment.h"
#include "core/state.h"
#include "services/env.h"
#include "services/error.h"
#include "topo/placement.h"

enum { DEVICE_DESC_MAGIC = 0x57644576 };

/* Largest alignment promised to shmem users on the device heap: what every
 * back end's allocations (and IPC imports) honour. */
#define DEVICE_MAX_ALIGN ((size_t)256)

/* Bytes at the end of the device heap that the allocator never hands out:
 * the words of the device barrier (include/shmem/device/abi.h,
 * shmemd_state_t.sync), at the same offset on every PE without a
 * collective allocation. */
#define DEVICE_KERNEL_RESERVE ((size_t)512)

/* Bytes of zeroes used to clear freed blocks (one H2D copy per chunk). */
#define DEVICE_ZERO_CHUNK ((size_t)256 << 10)

/* What each PE publishes under SHMI_DEVICE_KEY (also without a heap, so
 * that a mismatch between PEs is caught at start-up). */
typedef struct device_desc {
    uint32_t magic;
    uint32_t has_heap; /* 1 when the PE has a device heap */
    uint64_t size;     /* its bytes */
    char backend[8];   /* back end name */
} device_desc_t;

static struct {
    const shmi_gpu_ops_t *gpu; /* NULL: no device heap */
    int device;                /* ordinal in use, -1 */
    char *base;                /* own heap (device address) */
    size_t size;
    shmi_alloc_t *alloc;
    pthread_mutex_t lock; /* serialises the allocator */
    void *zeroes;         /* DEVICE_ZERO_CHUNK host zero bytes, lazily */
} dh = {.device = -1, .lock = PTHREAD_MUTEX_INITIALIZER};

/* The back end SHMEM_DEVICE_BACKEND asks for, if it finds a device. */
static const shmi_gpu_ops_t *choose_backend(int *count)
{
    const char *want = shmi_env.DEVICE_BACKEND;
    const shmi_gpu_ops_t *g;

    *count = 0;
    if (strcmp(want, "none") == 0)
        return NULL;
    if (strcmp(want, "auto") == 0)
        return shmi_gpu_backend_auto(count);
    g = shmi_gpu_backend(want);
    if (!g || g->probe(count) != 0 || *count <= 0) {
        /* Asked for by name: say why there is no device heap, once. */
        SHMI_LOG(
            shmi_state.boot.rank == 0 ? SHMI_LOG_WARN : SHMI_LOG_DEBUG, "gpu",
            "SHMEM_DEVICE_BACKEND=%s: %s; running without a device heap", want,
            g ? "no GPU device" : "this library was built without it");
        *count = 0;
        return NULL;
    }
    return g;
}

/* SHMEM_DEVICE_ID, else the GPU nearest to this PE, else local rank modulo
 * the device count. */
static int choose_device(int count)
{
    long id = shmi_env.DEVICE_ID;
    const shmi_placement_t *pl;

    if (id >= 0) {
        if (id >= count)
            SHMI_FATAL("SHMEM_DEVICE_ID=%ld: this node has %d device%s "
                       "(ordinals 0 to %d)",
                       id, count, count == 1 ? "" : "s", count - 1);
        return (int)id;
    }
    /* One device (the mock always): nothing to place, so no hwloc I/O
     * discovery, which costs start-up time and loads plugins whose
     * libraries keep memory that hwloc_topology_destroy strands (libpciaccess
     * through hwloc's pci plugin: a leak report under LeakSanitizer). */
    if (count == 1)
        return 0;
    pl = shmi_topo_placement();
    if (pl && pl->ngpus > 0 && pl->gpu >= 0 && pl->gpu < count)
        return pl->gpu;
    return shmi_gpu_choose_device(count, shmi_state.boot.local_rank, -1);
}

static void create_heap(const shmi_gpu_ops_t *g, int count, device_desc_t *d)
{
    size_t size = shmi_env.SYMMETRIC_DEVICE_SIZE;
    void *base = NULL;
    int dev = choose_device(count), ret;

    size = (size + SHMI_ALLOC_GRAIN - 1) & ~(SHMI_ALLOC_GRAIN - 1);
    size += DEVICE_KERNEL_RESERVE;
    ret = g->select(dev);
    if (ret == 0)
        ret = g->alloc(size, &base);
    if (ret == 0 && (ret = shmi_alloc_create(size - DEVICE_KERNEL_RESERVE,
                                             DEVICE_MAX_ALIGN, &dh.alloc)) != 0)
        g->free(base);
    if (ret != 0)
        SHMI_FATAL("cannot create the device symmetric heap "
                   "(SHMEM_SYMMETRIC_DEVICE_SIZE=%zu bytes) on %s device %d: "
                   "%s",
                   size, g->name, dev, shmi_strerror(ret));
    dh.gpu = g;
    dh.device = dev;
    dh.base = base;
    dh.size = size;
    shmi_state.seg[SHMI_SEG_DEVICE].base = base;
    shmi_state.seg[SHMI_SEG_DEVICE].size = size;
    shmi_device_active = 1;
    d->has_heap = 1;
    d->size = size;
    snprintf(d->backend, sizeof(d->backend), "%s", g->name);
    SHMI_LOG(SHMI_LOG_DEBUG, "gpu", "device heap: %zu bytes at %p on %s %d",
             size, base, g->name, dev);
}

void *shmi_device_heap_kernel_words(void)
{
    return dh.gpu ? dh.base + dh.size - DEVICE_KERNEL_RESERVE : NULL;
}

size_t shmi_device_heap_user_size(void)
{
    return dh.gpu ? dh.size - DEVICE_KERNEL_RESERVE : 0;
}

int shmi_device_heap_init(void)
{
    device_desc_t d;
    const shmi_gpu_ops_t *g = NULL;
    int count = 0;

    memset(&d, 0, sizeof(d));
    d.magic = DEVICE_DESC_MAGIC;
    if (shmi_env.SYMMETRIC_DEVICE_SIZE > 0)
        g = choose_backend(&count);
    if (g)
        create_heap(g, count, &d);
    return shmi_boot_put(SHMI_DEVICE_KEY, &d, sizeof(d));
}

static int peer_desc(int pe, device_desc_t *d)
{
    int ret = shmi_boot_get(pe, SHMI_DEVICE_KEY, d, sizeof(*d));

    if (ret == 0 && d->magic != DEVICE_DESC_MAGIC)
        ret = SHMI_EIO;
    return ret;
}

/* Every PE needs the same device heap, or a device shmem_malloc could
 * succeed on some PEs only. PE 0 stands for all. */
static void check_same_device_heap(void)
{
    device_desc_t d;

    if (shmi_state.boot.rank == 0 || peer_desc(0, &d) != 0)
        return;
    if (d.has_heap != (dh.gpu != NULL) || (dh.gpu && d.size != dh.size))
        SHMI_FATAL("the device symmetric heap differs between PEs: PE 0 has "
                   "%llu bytes (%s), this PE %zu bytes (%s); give every PE "
                   "the same SHMEM_SYMMETRIC_DEVICE_SIZE and a device",
                   d.has_heap ? (unsigned long long)d.size : 0ULL,
                   d.has_heap ? d.backend : "none", dh.gpu ? dh.size : 0,
                   dh.gpu ? dh.gpu->name : "none");
}

void shmi_device_heap_connected(void)
{
    shmi_seg_t *g = &shmi_state.seg[SHMI_SEG_DEVICE];

    check_same_device_heap();
    /* The program's calls address the heap without its reserve: a put into
     * the device barrier's words would make the next device barrier wait
     * forever (docs/gpu.md). shmi_segments_user_start, which narrows the
     * host segments, leaves this one as set here; shmi_segments_user_end
     * widens it again for the runtime's tear-down. */
    if (dh.gpu) {
        g->user = dh.base;
        g->user_size = shmi_device_heap_user_size();
        g->user_off = 0;
    }
}

void shmi_device_heap_finalize(void)
{
    shmi_alloc_stats_t st;

    if (!dh.gpu)
        return;
    shmi_device_active = 0;
    shmi_device_heap_stats(&st);
    SHMI_LOG(SHMI_LOG_DEBUG, "gpu",
             "device heap at finalize: %zu bytes in %zu blocks allocated",
             st.in_use, st.n_blocks);
    shmi_alloc_destroy(dh.alloc);
    dh.alloc = NULL;
    dh.gpu->free(dh.base);
    free(dh.zeroes);
    dh.zeroes = NULL;
    dh.gpu = NULL;
    dh.device = -1;
    dh.base = NULL;
    dh.size = 0;
    shmi_state.seg[SHMI_SEG_DEVICE].base = NULL;
    shmi_state.seg[SHMI_SEG_DEVICE].size = 0;
}

const shmi_gpu_ops_t *shmi_device_backend(void)
{
    return dh.gpu;
}

int shmi_device_ordinal(void)
{
    return dh.device;
}

int shmi_device_heap_contains(const void *ptr)
{
    uintptr_t a = (uintptr_t)ptr, base = (uintptr_t)dh.base;

    return dh.gpu && a >= base && a - base < dh.size;
}

/* ---- allocation ---------------------------------------------------------- */

void *shmi_device_heap_alloc(size_t size, size_t align)
{
    size_t off;
    int ret;

    if (!dh.gpu || size == 0)
        return NULL;
    pthread_mutex_lock(&dh.lock);
    ret = shmi_alloc_alloc(dh.alloc, size, align, &off);
    pthread_mutex_unlock(&dh.lock);
    return ret == 0 ? dh.base + off : NULL;
}

size_t shmi_device_heap_max_align(void)
{
    return DEVICE_MAX_ALIGN;
}

/* Offset of a block start, or a fatal error naming the routine. */
static size_t block_off(const char *routine, const void *ptr)
{
    if (!shmi_device_heap_contains(ptr))
        SHMI_FATAL("%s: %p is not in the device symmetric heap", routine, ptr);
    return (size_t)((const char *)ptr - dh.base);
}

/* Clears [off, off + len) of the own heap: free memory reads as zero. */
static void clear_range(size_t off, size_t len)
{
    if (!dh.zeroes && !(dh.zeroes = calloc(1, DEVICE_ZERO_CHUNK)))
        SHMI_FATAL("out of memory clearing freed device memory");
    for (size_t done = 0; done < len; done += DEVICE_ZERO_CHUNK) {
        size_t n =
            len - done < DEVICE_ZERO_CHUNK ? len - done : DEVICE_ZERO_CHUNK;
        int ret =
            dh.gpu->copy(dh.base + off + done, dh.zeroes, n, SHMI_GPU_H2D);

        if (ret != 0)
            SHMI_FATAL("cannot clear freed device memory: %s",
                       shmi_strerror(ret));
    }
}

void shmi_device_heap_free(const char *routine, void *ptr)
{
    size_t off, len = 0;
    int ret;

    if (!ptr)
        return;
    off = block_off(routine, ptr);
    pthread_mutex_lock(&dh.lock);
    ret = shmi_alloc_free(dh.alloc, off, &len);
    if (ret == 0)
        clear_range(off, len);
    pthread_mutex_unlock(&dh.lock);
    if (ret != 0)
        SHMI_FATAL("%s: %p is not an allocated block of the device "
                   "symmetric heap (already freed, or not returned by an "
                   "allocation)",
                   routine, ptr);
}

int shmi_device_heap_resize(const char *routine, void *ptr, size_t size)
{
    size_t off = block_off(routine, ptr), rel = 0, rel_len = 0, len;
    int ret;

    pthread_mutex_lock(&dh.lock);
    ret = shmi_alloc_block_size(dh.alloc, off, &len);
    if (ret == 0)
        ret = shmi_alloc_resize(dh.alloc, off, size, &rel, &rel_len);
    if (ret == 0 && rel_len > 0)
        clear_range(rel, rel_len);
    pthread_mutex_unlock(&dh.lock);
    if (ret == SHMI_EINVAL)
        SHMI_FATAL("%s: %p is not an allocated block of the device "
                   "symmetric heap",
                   routine, ptr);
    return ret;
}

size_t shmi_device_heap_block_size(const char *routine, const void *ptr)
{
    size_t off = block_off(routine, ptr), len = 0;
    int ret;

    pthread_mutex_lock(&dh.lock);
    ret = shmi_alloc_block_size(dh.alloc, off, &len);
    pthread_mutex_unlock(&dh.lock);
    if (ret != 0)
        SHMI_FATAL("%s: %p is not an allocated block of the device "
                   "symmetric heap",
                   routine, ptr);
    return len;
}

void shmi_device_heap_stats(shmi_alloc_stats_t *st)
{
    memset(st, 0, sizeof(*st));
    if (!dh.gpu)
        return;
    pthread_mutex_lock(&dh.lock);
    shmi_alloc_get_stats(dh.alloc, st);
    pthread_mutex_unlock(&dh.lock);
}
