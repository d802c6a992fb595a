/*
 * The HIP back end: the ROCm HIP runtime loaded with dlopen on first use, so
 * that libweft neither needs libamdhip64 to load nor pays for it at start-up.
 * Built when configure finds the HIP headers (--with-hip).
 *
 * Without a GPU hipGetDeviceCount fails (error 100, "no ROCm-capable device",
 * with a count of 0): probe then reports SHMI_ENODEV and Weft runs without a
 * device heap.
 */
#include "config.h"

#include <hip/hip_runtime_api.h>
#include <dlfcn.h>
#include <pthread.h>
#include <rdma/fi_domain.h>
#include <string.h>

#include "core/error.h"
#include "gpu/gpu.h"

/* The runtime entry points Weft uses, resolved by hip_load(). */
static struct {
    __typeof__(&hipGetDeviceCount) get_device_count;
    __typeof__(&hipSetDevice) set_device;
    __typeof__(&hipMalloc) malloc;
    __typeof__(&hipMemset) memset;
    __typeof__(&hipFree) free;
    __typeof__(&hipMemcpy) memcpy;
    __typeof__(&hipIpcGetMemHandle) ipc_get;
    __typeof__(&hipIpcOpenMemHandle) ipc_open;
    __typeof__(&hipIpcCloseMemHandle) ipc_close;
    __typeof__(&hipPointerGetAttributes) attributes;
    __typeof__(&hipGetErrorString) error_string;
} hp;
static int hip_device = -1;
static pthread_once_t hip_once = PTHREAD_ONCE_INIT;
static int hip_loaded; /* 1 when every symbol resolved */

static void hip_load(void)
{
    static const char *const libs[] = {"libamdhip64.so", "libamdhip64.so.5",
                                       "libamdhip64.so.6"};
    void *h = NULL;

    for (size_t i = 0; !h && i < sizeof(libs) / sizeof(libs[0]); i++)
        h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        SHMI_LOG(SHMI_LOG_DEBUG, "gpu", "hip: no HIP runtime: %s", dlerror());
        return;
    }
    *(void **)&hp.get_device_count = dlsym(h, "hipGetDeviceCount");
    *(void **)&hp.set_device = dlsym(h, "hipSetDevice");
    *(void **)&hp.malloc = dlsym(h, "hipMalloc");
    *(void **)&hp.memset = dlsym(h, "hipMemset");
    *(void **)&hp.free = dlsym(h, "hipFree");
    *(void **)&hp.memcpy = dlsym(h, "hipMemcpy");
    *(void **)&hp.ipc_get = dlsym(h, "hipIpcGetMemHandle");
    *(void **)&hp.ipc_open = dlsym(h, "hipIpcOpenMemHandle");
    *(void **)&hp.ipc_close = dlsym(h, "hipIpcCloseMemHandle");
    *(void **)&hp.attributes = dlsym(h, "hipPointerGetAttributes");
    *(void **)&hp.error_string = dlsym(h, "hipGetErrorString");
    hip_loaded = hp.get_device_count && hp.set_device && hp.malloc &&
                  hp.memset && hp.free && hp.memcpy && hp.ipc_get &&
                  hp.ipc_open && hp.ipc_close && hp.attributes &&
                  hp.error_string;
}

/* Maps a HIP status to a SHMI_E* code, logging the failure once here. */
static int hip_check(hipError_t err, const char *call)
{
    if (err == hipSuccess)
        return 0;
    SHMI_LOG(SHMI_LOG_DEBUG, "gpu", "hip: %s failed: error %d (%s)", call,
             (int)err, hp.error_string ? hp.error_string(err) : "?");
    return err == hipErrorOutOfMemory ? SHMI_ENOMEM : SHMI_EIO;
}

static int hip_probe(int *count)
{
    int n = 0;

    *count = 0;
    pthread_once(&hip_once, hip_load);
    if (!hip_loaded)
        return SHMI_ENODEV;
    if (hip_check(hp.get_device_count(&n), "hipGetDeviceCount") != 0 ||
        n <= 0)
        return SHMI_ENODEV;
    *count = n;
    return 0;
}

static int hip_select(int dev)
{
    int ret = hip_check(hp.set_device(dev), "hipSetDevice");

    if (ret == 0)
        hip_device = dev;
    return ret;
}

static int hip_alloc(size_t size, void **ptr)
{
    void *p = NULL;
    int ret = hip_check(hp.malloc(&p, size), "hipMalloc");

    if (ret == 0 && (ret = hip_check(hp.memset(p, 0, size), "hipMemset"))) {
        hp.free(p);
        return ret;
    }
    if (ret == 0)
        *ptr = p;
    return ret;
}

static int hip_free(void *ptr)
{
    return hip_check(hp.free(ptr), "hipFree");
}

static int hip_ipc_export(void *ptr, size_t size, shmi_gpu_ipc_t *handle)
{
    hipIpcMemHandle_t h;
    int ret = hip_check(hp.ipc_get(&h, ptr), "hipIpcGetMemHandle");

    (void)size;
    _Static_assert(sizeof(h) <= sizeof(handle->bytes), "IPC handle size");
    if (ret == 0) {
        memset(handle, 0, sizeof(*handle));
        memcpy(handle->bytes, &h, sizeof(h));
    }
    return ret;
}

static int hip_ipc_import(const shmi_gpu_ipc_t *handle, size_t size,
                           void **ptr)
{
    hipIpcMemHandle_t h;

    (void)size;
    memcpy(&h, handle->bytes, sizeof(h));
    return hip_check(hp.ipc_open(ptr, h, hipIpcMemLazyEnablePeerAccess),
                      "hipIpcOpenMemHandle");
}

static int hip_ipc_close(void *ptr, size_t size)
{
    (void)size;
    return hip_check(hp.ipc_close(ptr), "hipIpcCloseMemHandle");
}

static int hip_copy(void *dst, const void *src, size_t len,
                     shmi_gpu_copy_t dir)
{
    static const hipMemcpyKind kinds[] = {
        [SHMI_GPU_H2D] = hipMemcpyHostToDevice,
        [SHMI_GPU_D2H] = hipMemcpyDeviceToHost,
        [SHMI_GPU_D2D] = hipMemcpyDeviceToDevice};

    return hip_check(hp.memcpy(dst, src, len, kinds[dir]), "hipMemcpy");
}

/* Host-initiated atomics on device memory need a device kernel (or NIC
 * atomics with FI_HMEM); this build has neither, so it says so. */
static int hip_atomic(void *word, shmi_amo_op_t op, shmi_dtype_t dt,
                       const void *operand, const void *compare, void *fetched)
{
    (void)word, (void)op, (void)dt, (void)operand, (void)compare, (void)fetched;
    return SHMI_ENOTSUP;
}

static int hip_is_device(const void *ptr)
{
    hipPointerAttribute_t a;

    if (!hip_loaded || hp.attributes(&a, ptr) != hipSuccess)
        return 0;
    return a.memoryType == hipMemoryTypeDevice;
}

static shmi_gpu_hmem_t hip_hmem(void)
{
    return (shmi_gpu_hmem_t){FI_HMEM_ROCR, hip_device};
}

const shmi_gpu_ops_t shmi_gpu_hip_ops = {
    .size = sizeof(shmi_gpu_ops_t),
    .name = "hip",
    .probe = hip_probe,
    .select = hip_select,
    .alloc = hip_alloc,
    .free = hip_free,
    .ipc_export = hip_ipc_export,
    .ipc_import = hip_ipc_import,
    .ipc_close = hip_ipc_close,
    .copy = hip_copy,
    .atomic = hip_atomic,
    .is_device = hip_is_device,
    .hmem = hip_hmem,
};
