/*
 * The mock device: memory that behaves like a GPU's for every purpose Weft
 * has, without a GPU. Each allocation is a memfd mapped PROT_NONE; only the
 * back end's own functions open a window onto it (mprotect to read/write,
 * then back to PROT_NONE), so host code that dereferences device memory by
 * mistake faults at once. Peers on the node import an allocation through
 * /proc/<pid>/fd/<fd>, the way a CUDA IPC handle names a remote allocation.
 *
 * One process-wide lock guards the windows: two threads must not open and
 * close windows on the same pages at once.
 *
 * Kernels (gpu_mock_launch.c). Host threads standing in for GPU threads
 * load, store and use CPU atomics on device memory directly, as device
 * code does: on own allocations, on imported IPC mappings of other
 * processes' allocations, and on allocations made while the kernel runs.
 * So while a mock kernel runs in this process (mock_kernels > 0) every
 * region is mapped read-write, new ones included, and mock_window never
 * closes a window (the copies, atomics, reductions and stream workers of
 * other threads would otherwise pull the pages from under the kernel);
 * when the last kernel ends, every region goes back to PROT_NONE. The
 * fault check therefore holds outside kernels only.
 *
 * DMA view (gpu_mock.h). A NIC that reaches GPU memory (GPUDirect RDMA,
 * FI_HMEM) writes device memory without the CPU's page tables being
 * involved. The mock models it with a second, read-write mapping of an
 * allocation's memfd that only the fabric's registration uses; the CPU's
 * view stays PROT_NONE.
 */
#include "config.h"

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "gpu/gpu_mock.h"
#include "services/cpu_ops.h"
#include "services/env.h"
#include "services/reduce_ops.h"
#include "services/error.h"

enum { MOCK_MAX_REGIONS = 64, MOCK_MAGIC = 0x6d6f636b };

/* A region of mock device memory mapped in this process. */
typedef struct mock_region {
    char *base;
    size_t size;
    int fd;    /* memfd (own allocation) or -1 (imported) */
    char *dma; /* read-write view for the fabric, or NULL */
} mock_region_t;

/* What a peer needs to map an allocation: it opens /proc/pid/fd/fd. */
typedef struct mock_ipc {
    uint32_t magic;
    int32_t pid;
    int32_t fd;
    uint64_t size;
} mock_ipc_t;

static mock_region_t regions[MOCK_MAX_REGIONS];
static pthread_mutex_t mock_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned mock_kernels; /* mock kernels running (mock_lock) */

static mock_region_t *mock_find(const void *p, size_t len)
{
    const char *c = p;

    for (int i = 0; i < MOCK_MAX_REGIONS; i++) {
        mock_region_t *r = &regions[i];

        if (r->base && c >= r->base && len <= r->size &&
            (size_t)(c - r->base) <= r->size - len)
            return r;
    }
    return NULL;
}

static int mock_add(char *base, size_t size, int fd)
{
    for (int i = 0; i < MOCK_MAX_REGIONS; i++) {
        if (!regions[i].base) {
            regions[i] = (mock_region_t){base, size, fd, NULL};
            return 0;
        }
    }
    return SHMI_ENOMEM;
}

static void mock_protect(const void *p, size_t len, int prot)
{
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)p & ~(uintptr_t)(page - 1);
    uintptr_t end = ((uintptr_t)p + len + page - 1) & ~(uintptr_t)(page - 1);

    if (mprotect((void *)start, end - start, prot) != 0)
        SHMI_FATAL("mock device: mprotect failed: %s", strerror(errno));
}

/* Opens (prot != PROT_NONE) or closes a window on [p, p+len); with
 * mock_lock held. A window stays open while a kernel runs. */
static void mock_window(const void *p, size_t len, int prot)
{
    if (prot == PROT_NONE && mock_kernels > 0)
        return;
    mock_protect(p, len, prot);
}

/* Registers a new mapping; while a kernel runs it is open at once, like
 * every other region. */
static int mock_add_mapped(char *base, size_t size, int fd)
{
    int ret;

    pthread_mutex_lock(&mock_lock);
    ret = mock_add(base, size, fd);
    if (ret == 0 && mock_kernels > 0)
        mock_protect(base, size, PROT_READ | PROT_WRITE);
    pthread_mutex_unlock(&mock_lock);
    return ret;
}

static void mock_protect_all(int prot)
{
    for (int i = 0; i < MOCK_MAX_REGIONS; i++)
        if (regions[i].base)
            mock_protect(regions[i].base, regions[i].size, prot);
}

void shmi_gpu_mock_kernel_begin(void)
{
    pthread_mutex_lock(&mock_lock);
    if (mock_kernels++ == 0)
        mock_protect_all(PROT_READ | PROT_WRITE);
    pthread_mutex_unlock(&mock_lock);
}

void shmi_gpu_mock_kernel_end(void)
{
    pthread_mutex_lock(&mock_lock);
    if (--mock_kernels == 0)
        mock_protect_all(PROT_NONE);
    pthread_mutex_unlock(&mock_lock);
}

static int mock_probe(int *count)
{
    *count = 1;
    return 0;
}

static int mock_select(int dev)
{
    return dev == 0 ? 0 : SHMI_EINVAL;
}

static int mock_alloc(size_t size, void **ptr)
{
    int fd = memfd_create("weft-mock-device", MFD_CLOEXEC);
    char *base;
    int ret;

    if (fd < 0)
        return SHMI_ENOMEM;
    if (ftruncate(fd, (off_t)size) != 0)
        goto out_close;
    base = mmap(NULL, size, PROT_NONE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED)
        goto out_close;
    ret = mock_add_mapped(base, size, fd);
    if (ret != 0) {
        munmap(base, size);
        goto out_close;
    }
    *ptr = base; /* a fresh memfd reads as zero */
    return 0;
out_close:
    close(fd);
    return SHMI_ENOMEM;
}

static int mock_release(void *ptr, int must_own)
{
    mock_region_t *r;
    int ret = SHMI_EINVAL;

    pthread_mutex_lock(&mock_lock);
    r = mock_find(ptr, 1);
    if (r && r->base == ptr && (r->fd >= 0) == must_own) {
        munmap(r->base, r->size);
        if (r->dma)
            munmap(r->dma, r->size);
        if (r->fd >= 0)
            close(r->fd);
        *r = (mock_region_t){NULL, 0, -1, NULL};
        ret = 0;
    }
    pthread_mutex_unlock(&mock_lock);
    return ret;
}

static int mock_free(void *ptr)
{
    return mock_release(ptr, 1);
}

static int mock_ipc_export(void *ptr, size_t size, shmi_gpu_ipc_t *handle)
{
    mock_region_t *r;
    mock_ipc_t h = {MOCK_MAGIC, (int32_t)getpid(), -1, size};

    pthread_mutex_lock(&mock_lock);
    r = mock_find(ptr, size);
    if (r && r->base == ptr && r->fd >= 0)
        h.fd = r->fd;
    pthread_mutex_unlock(&mock_lock);
    if (h.fd < 0)
        return SHMI_EINVAL;
    memset(handle, 0, sizeof(*handle));
    memcpy(handle->bytes, &h, sizeof(h));
    return 0;
}

static int mock_ipc_import(const shmi_gpu_ipc_t *handle, size_t size,
                           void **ptr)
{
    mock_ipc_t h;
    char path[64];
    char *base;
    int fd, ret;

    memcpy(&h, handle->bytes, sizeof(h));
    if (h.magic != MOCK_MAGIC || h.size < size)
        return SHMI_EINVAL;
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)h.pid, (int)h.fd);
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return SHMI_EIO;
    base = mmap(NULL, size, PROT_NONE, MAP_SHARED, fd, 0);
    close(fd); /* the mapping keeps the memory alive */
    if (base == MAP_FAILED)
        return SHMI_ENOMEM;
    ret = mock_add_mapped(base, size, -1);
    if (ret != 0) {
        munmap(base, size);
        return ret;
    }
    *ptr = base;
    return 0;
}

static int mock_ipc_close(void *ptr, size_t size)
{
    (void)size;
    return mock_release(ptr, 0);
}

static int mock_copy(void *dst, const void *src, size_t len,
                     shmi_gpu_copy_t dir)
{
    int dst_dev = dir != SHMI_GPU_D2H, src_dev = dir != SHMI_GPU_H2D;

    if (len == 0)
        return 0;
    pthread_mutex_lock(&mock_lock);
    if ((dst_dev && !mock_find(dst, len)) || (src_dev && !mock_find(src, len))) {
        pthread_mutex_unlock(&mock_lock);
        return SHMI_EINVAL;
    }
    if (dst_dev)
        mock_window(dst, len, PROT_READ | PROT_WRITE);
    if (src_dev)
        mock_window(src, len, PROT_READ | PROT_WRITE);
    memmove(dst, src, len);
    if (dst_dev)
        mock_window(dst, len, PROT_NONE);
    if (src_dev)
        mock_window(src, len, PROT_NONE);
    pthread_mutex_unlock(&mock_lock);
    return 0;
}

/* CPU atomics on the shared pages: atomic across every process that maps
 * them, like device-scope atomics on a real GPU. */
static int mock_atomic(void *word, shmi_amo_op_t op, shmi_dtype_t dt,
                       const void *operand, const void *compare, void *fetched)
{
    size_t size = shmi_dtype_size(dt);

    pthread_mutex_lock(&mock_lock);
    if (!mock_find(word, size) || ((uintptr_t)word & (size - 1))) {
        pthread_mutex_unlock(&mock_lock);
        return SHMI_EINVAL;
    }
    mock_window(word, size, PROT_READ | PROT_WRITE);
    shmi_cpu_amo_apply(word, op, dt, operand, compare, fetched);
    mock_window(word, size, PROT_NONE);
    pthread_mutex_unlock(&mock_lock);
    return 0;
}

static unsigned long mock_reduce_calls;

unsigned long shmi_gpu_mock_reduce_count(void)
{
    return __atomic_load_n(&mock_reduce_calls, __ATOMIC_RELAXED);
}

int shmi_gpu_mock_reduce(void *acc, const void *in, size_t n, shmi_op_t op,
                         shmi_dtype_t dt)
{
    __atomic_add_fetch(&mock_reduce_calls, 1, __ATOMIC_RELAXED);
    size_t len = n * shmi_dtype_size(dt);

    if (!shmi_reduce_valid(op, dt))
        return SHMI_ENOTSUP;
    if (n == 0)
        return 0;
    pthread_mutex_lock(&mock_lock);
    if (!mock_find(acc, len) || !mock_find(in, len)) {
        pthread_mutex_unlock(&mock_lock);
        return SHMI_EINVAL;
    }
    mock_window(acc, len, PROT_READ | PROT_WRITE);
    mock_window(in, len, PROT_READ | PROT_WRITE);
    shmi_reduce_apply(op, dt, acc, in, n);
    mock_window(acc, len, PROT_NONE);
    mock_window(in, len, PROT_NONE);
    pthread_mutex_unlock(&mock_lock);
    return 0;
}

int shmi_gpu_mock_dma_view(void *ptr, size_t size, void **view)
{
    mock_region_t *r;
    int ret = SHMI_EINVAL;

    pthread_mutex_lock(&mock_lock);
    r = mock_find(ptr, size);
    if (r && r->base == ptr && r->fd >= 0) {
        if (!r->dma) {
            void *p = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED,
                           r->fd, 0);

            r->dma = p == MAP_FAILED ? NULL : p;
        }
        ret = r->dma ? 0 : SHMI_ENOMEM;
        if (ret == 0)
            *view = r->dma;
    }
    pthread_mutex_unlock(&mock_lock);
    return ret;
}

static int mock_is_device(const void *ptr)
{
    int found;

    pthread_mutex_lock(&mock_lock);
    found = mock_find(ptr, 1) != NULL;
    pthread_mutex_unlock(&mock_lock);
    return found;
}

/* Mapped host memory is plain host memory here: device code compiled as
 * host code reaches it at the same address. Zeroed, as a GPU's host_alloc
 * is by the back end; 64-byte aligned, as the runtimes' pages are at
 * least. */
static int mock_host_alloc(size_t size, void **host, void **device)
{
    size_t rounded = (size + 63) & ~(size_t)63;
    void *p;

    if (size == 0 || rounded < size)
        return SHMI_EINVAL;
    p = aligned_alloc(64, rounded);
    if (!p)
        return SHMI_ENOMEM;
    memset(p, 0, rounded);
    *host = p;
    *device = p;
    return 0;
}

static int mock_host_free(void *host)
{
    free(host);
    return 0;
}

/* libfabric cannot register PROT_NONE pages: to a provider the mock device
 * is memory without FI_HMEM support, so transfers stage through host
 * bounce buffers and the device service exactly as for a GPU on tcp. With
 * SHMEM_DEVICE_MOCK_DMA=host the DMA view is registered as host memory. */
static shmi_gpu_hmem_t mock_hmem(void)
{
    return (shmi_gpu_hmem_t){SHMI_MEM_HOST, 0};
}

/* The mock stands for a GPU a NIC reaches only when asked to
 * (SHMEM_DEVICE_MOCK_DMA): then through its DMA view, registered as host
 * memory or as CUDA memory. */
static int mock_fabric_view(void *base, size_t size, void **addr,
                            shmi_mem_kind_t *kind, int *device)
{
    const char *dma = shmi_env.DEVICE_MOCK_DMA;

    if (strcmp(dma, "host") != 0 && strcmp(dma, "cuda") != 0)
        return SHMI_ENOTSUP;
    *kind = strcmp(dma, "cuda") == 0 ? SHMI_MEM_CUDA : SHMI_MEM_HOST;
    *device = 0;
    return shmi_gpu_mock_dma_view(base, size, addr);
}

const shmi_gpu_ops_t shmi_gpu_mock_ops = {
    .size = sizeof(shmi_gpu_ops_t),
    .name = "mock",
    .flags = SHMI_GPU_OWN_STREAMS, /* and never chosen by auto */
    .probe = mock_probe,
    .select = mock_select,
    .alloc = mock_alloc,
    .free = mock_free,
    .ipc_export = mock_ipc_export,
    .ipc_import = mock_ipc_import,
    .ipc_close = mock_ipc_close,
    .copy = mock_copy,
    .atomic = mock_atomic,
    .is_device = mock_is_device,
    .hmem = mock_hmem,
    .fabric_view = mock_fabric_view,
    .stream_create = shmi_gpu_mock_stream_create,
    .stream_destroy = shmi_gpu_mock_stream_destroy,
    .stream_sync = shmi_gpu_mock_stream_sync,
    .stream_host = shmi_gpu_mock_stream_host,
    .stream_copy = shmi_gpu_mock_stream_copy,
    .stream_reduce = shmi_gpu_mock_stream_reduce,
    .host_alloc = mock_host_alloc,
    .host_free = mock_host_free,
    .launch = shmi_gpu_mock_launch,
    .host_thread = shmi_gpu_mock_thread,
    .host_block_sync = shmi_gpu_mock_block_sync,
    .host_warp_sync = shmi_gpu_mock_warp_sync,
};
