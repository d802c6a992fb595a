/*
 * The CUDA back end: the CUDA runtime loaded with dlopen on first use, so
 * that libweft neither needs libcudart to load nor pays for it at start-up.
 * Built when configure finds the CUDA headers (--with-cuda).
 *
 * Without a usable driver cudaGetDeviceCount fails (error 35, "CUDA driver
 * version is insufficient", on a machine with the toolkit but no GPU):
 * probe then reports SHMI_ENODEV and Weft runs without a device heap.
 */
#include "config.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <pthread.h>
#include <rdma/fi_domain.h>
#include <string.h>

#include "core/error.h"
#include "gpu/gpu.h"

/* The runtime entry points Weft uses, resolved by cuda_load(). */
static struct {
    __typeof__(&cudaGetDeviceCount) get_device_count;
    __typeof__(&cudaSetDevice) set_device;
    __typeof__(&cudaMalloc) malloc;
    __typeof__(&cudaMemset) memset;
    __typeof__(&cudaFree) free;
    __typeof__(&cudaMemcpy) memcpy;
    __typeof__(&cudaIpcGetMemHandle) ipc_get;
    __typeof__(&cudaIpcOpenMemHandle) ipc_open;
    __typeof__(&cudaIpcCloseMemHandle) ipc_close;
    __typeof__(&cudaPointerGetAttributes) attributes;
    __typeof__(&cudaGetErrorString) error_string;
} cu;
static int cuda_device = -1;
static pthread_once_t cuda_once = PTHREAD_ONCE_INIT;
static int cuda_loaded; /* 1 when every symbol resolved */

static void cuda_load(void)
{
    static const char *const libs[] = {"libcudart.so", "libcudart.so.13",
                                       "libcudart.so.12"};
    void *h = NULL;

    for (size_t i = 0; !h && i < sizeof(libs) / sizeof(libs[0]); i++)
        h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        SHMI_LOG(SHMI_LOG_DEBUG, "gpu", "cuda: no CUDA runtime: %s", dlerror());
        return;
    }
    *(void **)&cu.get_device_count = dlsym(h, "cudaGetDeviceCount");
    *(void **)&cu.set_device = dlsym(h, "cudaSetDevice");
    *(void **)&cu.malloc = dlsym(h, "cudaMalloc");
    *(void **)&cu.memset = dlsym(h, "cudaMemset");
    *(void **)&cu.free = dlsym(h, "cudaFree");
    *(void **)&cu.memcpy = dlsym(h, "cudaMemcpy");
    *(void **)&cu.ipc_get = dlsym(h, "cudaIpcGetMemHandle");
    *(void **)&cu.ipc_open = dlsym(h, "cudaIpcOpenMemHandle");
    *(void **)&cu.ipc_close = dlsym(h, "cudaIpcCloseMemHandle");
    *(void **)&cu.attributes = dlsym(h, "cudaPointerGetAttributes");
    *(void **)&cu.error_string = dlsym(h, "cudaGetErrorString");
    cuda_loaded = cu.get_device_count && cu.set_device && cu.malloc &&
                  cu.memset && cu.free && cu.memcpy && cu.ipc_get &&
                  cu.ipc_open && cu.ipc_close && cu.attributes &&
                  cu.error_string;
}

/* Maps a CUDA status to a SHMI_E* code, logging the failure once here. */
static int cuda_check(cudaError_t err, const char *call)
{
    if (err == cudaSuccess)
        return 0;
    SHMI_LOG(SHMI_LOG_DEBUG, "gpu", "cuda: %s failed: error %d (%s)", call,
             (int)err, cu.error_string ? cu.error_string(err) : "?");
    return err == cudaErrorMemoryAllocation ? SHMI_ENOMEM : SHMI_EIO;
}

static int cuda_probe(int *count)
{
    int n = 0;

    *count = 0;
    pthread_once(&cuda_once, cuda_load);
    if (!cuda_loaded)
        return SHMI_ENODEV;
    if (cuda_check(cu.get_device_count(&n), "cudaGetDeviceCount") != 0 ||
        n <= 0)
        return SHMI_ENODEV;
    *count = n;
    return 0;
}

static int cuda_select(int dev)
{
    int ret = cuda_check(cu.set_device(dev), "cudaSetDevice");

    if (ret == 0)
        cuda_device = dev;
    return ret;
}

static int cuda_alloc(size_t size, void **ptr)
{
    void *p = NULL;
    int ret = cuda_check(cu.malloc(&p, size), "cudaMalloc");

    if (ret == 0 && (ret = cuda_check(cu.memset(p, 0, size), "cudaMemset"))) {
        cu.free(p);
        return ret;
    }
    if (ret == 0)
        *ptr = p;
    return ret;
}

static int cuda_free(void *ptr)
{
    return cuda_check(cu.free(ptr), "cudaFree");
}

static int cuda_ipc_export(void *ptr, size_t size, shmi_gpu_ipc_t *handle)
{
    cudaIpcMemHandle_t h;
    int ret = cuda_check(cu.ipc_get(&h, ptr), "cudaIpcGetMemHandle");

    (void)size;
    _Static_assert(sizeof(h) <= sizeof(handle->bytes), "IPC handle size");
    if (ret == 0) {
        memset(handle, 0, sizeof(*handle));
        memcpy(handle->bytes, &h, sizeof(h));
    }
    return ret;
}

static int cuda_ipc_import(const shmi_gpu_ipc_t *handle, size_t size,
                           void **ptr)
{
    cudaIpcMemHandle_t h;

    (void)size;
    memcpy(&h, handle->bytes, sizeof(h));
    return cuda_check(cu.ipc_open(ptr, h, cudaIpcMemLazyEnablePeerAccess),
                      "cudaIpcOpenMemHandle");
}

static int cuda_ipc_close(void *ptr, size_t size)
{
    (void)size;
    return cuda_check(cu.ipc_close(ptr), "cudaIpcCloseMemHandle");
}

static int cuda_copy(void *dst, const void *src, size_t len,
                     shmi_gpu_copy_t dir)
{
    static const enum cudaMemcpyKind kinds[] = {
        [SHMI_GPU_H2D] = cudaMemcpyHostToDevice,
        [SHMI_GPU_D2H] = cudaMemcpyDeviceToHost,
        [SHMI_GPU_D2D] = cudaMemcpyDeviceToDevice};

    return cuda_check(cu.memcpy(dst, src, len, kinds[dir]), "cudaMemcpy");
}

/* Host-initiated atomics on device memory need a device kernel (or NIC
 * atomics with FI_HMEM); this build has neither, so it says so. */
static int cuda_atomic(void *word, shmi_amo_op_t op, shmi_dtype_t dt,
                       const void *operand, const void *compare, void *fetched)
{
    (void)word, (void)op, (void)dt, (void)operand, (void)compare, (void)fetched;
    return SHMI_ENOTSUP;
}

static int cuda_is_device(const void *ptr)
{
    struct cudaPointerAttributes a;

    if (!cuda_loaded || cu.attributes(&a, ptr) != cudaSuccess)
        return 0;
    return a.type == cudaMemoryTypeDevice;
}

static shmi_gpu_hmem_t cuda_hmem(void)
{
    return (shmi_gpu_hmem_t){FI_HMEM_CUDA, cuda_device};
}

const shmi_gpu_ops_t shmi_gpu_cuda_ops = {
    .size = sizeof(shmi_gpu_ops_t),
    .name = "cuda",
    .probe = cuda_probe,
    .select = cuda_select,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .ipc_export = cuda_ipc_export,
    .ipc_import = cuda_ipc_import,
    .ipc_close = cuda_ipc_close,
    .copy = cuda_copy,
    .atomic = cuda_atomic,
    .is_device = cuda_is_device,
    .hmem = cuda_hmem,
};
