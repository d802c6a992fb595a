/*
 * The device back ends "cuda" and "hip": one implementation of gpu.h over
 * a GPU vendor's runtime API, driven by the runtime's table (gpu_runtime.h;
 * gpu_cuda.c, gpu_hip.c). The runtime library is loaded with dlopen on the
 * first probe and its entry points resolved by prefix + name.
 *
 * gpu.h's entry points carry no back-end argument, so the two back ends
 * share every function but probe: a process uses one GPU runtime (the
 * device heap settles on one back end), the first whose probe succeeds;
 * the shared functions act on it. A later probe of the other runtime
 * reports no device rather than switching under memory already allocated.
 */
#include "config.h"

#include "gpu/gpu_runtime.h"

#if defined(WEFT_HAVE_CUDA) || defined(WEFT_HAVE_HIP)

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "services/error.h"

/* An IPC handle as the runtimes pass it: by value, opaque. */
typedef struct rt_ipc {
    unsigned char bytes[SHMI_GPU_RT_IPC_BYTES];
} rt_ipc_t;

/* The entry points, with the runtimes' status enums as int. */
typedef struct rt_fns {
    int (*GetDeviceCount)(int *count);
    int (*SetDevice)(int dev);
    int (*Malloc)(void **ptr, size_t size);
    int (*Memset)(void *ptr, int value, size_t size);
    int (*Free)(void *ptr);
    int (*Memcpy)(void *dst, const void *src, size_t size, int kind);
    int (*IpcGetMemHandle)(rt_ipc_t *handle, void *ptr);
    int (*IpcOpenMemHandle)(void **ptr, rt_ipc_t handle, unsigned flags);
    int (*IpcCloseMemHandle)(void *ptr);
    int (*PointerGetAttributes)(void *attributes, const void *ptr);
    const char *(*GetErrorString)(int err);
} rt_fns_t;

/* Name (after the prefix) and place of each entry point in rt_fns_t. */
/* clang-format off */
#define RT_FN(f) {#f, offsetof(rt_fns_t, f)}
/* clang-format on */
static const struct {
    const char *name;
    size_t off;
} rt_fn_names[] = {
    RT_FN(GetDeviceCount),
    RT_FN(SetDevice),
    RT_FN(Malloc),
    RT_FN(Memset),
    RT_FN(Free),
    RT_FN(Memcpy),
    RT_FN(IpcGetMemHandle),
    RT_FN(IpcOpenMemHandle),
    RT_FN(IpcCloseMemHandle),
    RT_FN(PointerGetAttributes),
    RT_FN(GetErrorString),
};
#undef RT_FN

/* The runtime in use: set by the first successful probe. */
static struct {
    pthread_mutex_t lock;
    const shmi_gpu_runtime_t *rt;
    rt_fns_t fn;
    int device;
} cur = {PTHREAD_MUTEX_INITIALIZER, NULL, {0}, -1};

/* Opens rt's library and resolves every entry point into *fn; 0 or
 * SHMI_ENODEV (logged). */
static int rt_load(const shmi_gpu_runtime_t *rt, rt_fns_t *fn)
{
    void *h = NULL;
    char sym[64];

    for (size_t i = 0; !h && i < 4 && rt->libs[i]; i++)
        h = dlopen(rt->libs[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        SHMI_LOG(SHMI_LOG_DEBUG, "gpu", "%s: no %s runtime: %s", rt->name,
                 rt->label, dlerror());
        return SHMI_ENODEV;
    }
    for (size_t i = 0; i < sizeof(rt_fn_names) / sizeof(rt_fn_names[0]); i++) {
        void *f;

        snprintf(sym, sizeof(sym), "%s%s", rt->prefix, rt_fn_names[i].name);
        f = dlsym(h, sym);
        if (!f) {
            SHMI_LOG(SHMI_LOG_DEBUG, "gpu", "%s: the %s runtime has no %s",
                     rt->name, rt->label, sym);
            dlclose(h);
            return SHMI_ENODEV;
        }
        memcpy((char *)fn + rt_fn_names[i].off, &f, sizeof(f));
    }
    return 0;
}

/* Maps a runtime status to a SHMI_E* code, logging a failure here. */
static int rt_check(const shmi_gpu_runtime_t *rt, const rt_fns_t *fn, int err,
                    const char *call)
{
    if (err == 0) /* cudaSuccess, hipSuccess */
        return 0;
    SHMI_LOG(SHMI_LOG_DEBUG, "gpu", "%s: %s%s failed: error %d (%s)", rt->name,
             rt->prefix, call, err,
             fn->GetErrorString ? fn->GetErrorString(err) : "?");
    return err == rt->err_oom ? SHMI_ENOMEM : SHMI_EIO;
}

static int rt_call(int err, const char *call)
{
    return rt_check(cur.rt, &cur.fn, err, call);
}

/* Loads rt and counts its devices; on success rt becomes the runtime in
 * use. Failing GetDeviceCount (no driver or no GPU) means no device. */
static int rt_probe(const shmi_gpu_runtime_t *rt, int *count)
{
    rt_fns_t fn = {0};
    int n = 0, ret;

    *count = 0;
    pthread_mutex_lock(&cur.lock);
    if (cur.rt != NULL && cur.rt != rt) {
        SHMI_LOG(SHMI_LOG_DEBUG, "gpu", "%s: the %s runtime is already in use",
                 rt->name, cur.rt->label);
        ret = SHMI_ENODEV;
    } else if (cur.rt == rt) {
        ret = rt_call(cur.fn.GetDeviceCount(&n), "GetDeviceCount");
    } else if ((ret = rt_load(rt, &fn)) == 0 &&
               (ret = rt_check(rt, &fn, fn.GetDeviceCount(&n),
                               "GetDeviceCount")) == 0 &&
               n > 0) {
        cur.fn = fn;
        cur.rt = rt;
    }
    pthread_mutex_unlock(&cur.lock);
    if (ret != 0 || n <= 0)
        return SHMI_ENODEV;
    *count = n;
    return 0;
}

static int rt_select(int dev)
{
    int ret;

    if (!cur.rt)
        return SHMI_ENODEV;
    ret = rt_call(cur.fn.SetDevice(dev), "SetDevice");
    if (ret == 0)
        cur.device = dev;
    return ret;
}

static int rt_alloc(size_t size, void **ptr)
{
    void *p = NULL;
    int ret;

    if (!cur.rt)
        return SHMI_ENODEV;
    ret = rt_call(cur.fn.Malloc(&p, size), "Malloc");
    if (ret == 0 && (ret = rt_call(cur.fn.Memset(p, 0, size), "Memset"))) {
        cur.fn.Free(p);
        return ret;
    }
    if (ret == 0)
        *ptr = p;
    return ret;
}

static int rt_free(void *ptr)
{
    return cur.rt ? rt_call(cur.fn.Free(ptr), "Free") : SHMI_ENODEV;
}

static int rt_ipc_export(void *ptr, size_t size, shmi_gpu_ipc_t *handle)
{
    rt_ipc_t h;
    int ret;

    _Static_assert(sizeof(h) <= sizeof(handle->bytes), "IPC handle size");
    (void)size;
    if (!cur.rt)
        return SHMI_ENODEV;
    ret = rt_call(cur.fn.IpcGetMemHandle(&h, ptr), "IpcGetMemHandle");
    if (ret == 0) {
        memset(handle, 0, sizeof(*handle));
        memcpy(handle->bytes, &h, sizeof(h));
    }
    return ret;
}

static int rt_ipc_import(const shmi_gpu_ipc_t *handle, size_t size, void **ptr)
{
    rt_ipc_t h;

    (void)size;
    if (!cur.rt)
        return SHMI_ENODEV;
    memcpy(&h, handle->bytes, sizeof(h));
    return rt_call(cur.fn.IpcOpenMemHandle(ptr, h, cur.rt->ipc_open_flags),
                   "IpcOpenMemHandle");
}

static int rt_ipc_close(void *ptr, size_t size)
{
    (void)size;
    if (!cur.rt)
        return SHMI_ENODEV;
    return rt_call(cur.fn.IpcCloseMemHandle(ptr), "IpcCloseMemHandle");
}

static int rt_copy(void *dst, const void *src, size_t len, shmi_gpu_copy_t dir)
{
    if (!cur.rt)
        return SHMI_ENODEV;
    return rt_call(cur.fn.Memcpy(dst, src, len, cur.rt->copy_kind[dir]),
                   "Memcpy");
}

/* Host-initiated atomics on device memory need a device kernel (or NIC
 * atomics with FI_HMEM); this build has neither, so it says so. */
static int rt_atomic(void *word, shmi_amo_op_t op, shmi_dtype_t dt,
                     const void *operand, const void *compare, void *fetched)
{
    (void)word, (void)op, (void)dt, (void)operand, (void)compare, (void)fetched;
    return SHMI_ENOTSUP;
}

static int rt_is_device(const void *ptr)
{
    _Alignas(16) unsigned char attr[SHMI_GPU_RT_ATTR_MAX];
    int type;

    if (!cur.rt || cur.fn.PointerGetAttributes(attr, ptr) != 0)
        return 0;
    memcpy(&type, attr + cur.rt->attr_type_off, sizeof(type));
    return type == cur.rt->mem_device;
}

static shmi_gpu_hmem_t rt_hmem(void)
{
    return (shmi_gpu_hmem_t){cur.rt ? cur.rt->mem_kind : SHMI_MEM_HOST,
                             cur.device};
}

/* The back ends: the same functions, one probe each. */
#define RT_OPS(NAME, PROBE)                                                    \
    {                                                                          \
        .size = sizeof(shmi_gpu_ops_t), .name = NAME, .probe = PROBE,          \
        .select = rt_select, .alloc = rt_alloc, .free = rt_free,               \
        .ipc_export = rt_ipc_export, .ipc_import = rt_ipc_import,              \
        .ipc_close = rt_ipc_close, .copy = rt_copy, .atomic = rt_atomic,       \
        .is_device = rt_is_device, .hmem = rt_hmem,                            \
    }

#ifdef WEFT_HAVE_CUDA
static int rt_probe_cuda(int *count)
{
    return rt_probe(&shmi_gpu_rt_cuda, count);
}
const shmi_gpu_ops_t shmi_gpu_cuda_ops = RT_OPS("cuda", rt_probe_cuda);
#endif

#ifdef WEFT_HAVE_HIP
static int rt_probe_hip(int *count)
{
    return rt_probe(&shmi_gpu_rt_hip, count);
}
const shmi_gpu_ops_t shmi_gpu_hip_ops = RT_OPS("hip", rt_probe_hip);
#endif

#endif /* WEFT_HAVE_CUDA || WEFT_HAVE_HIP */
