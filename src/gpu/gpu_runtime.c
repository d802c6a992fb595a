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
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_kernels.h"
#include "services/error.h"

/* An IPC handle as the runtimes pass it: by value, opaque. */
typedef struct rt_ipc {
    unsigned char bytes[SHMI_GPU_RT_IPC_BYTES];
} rt_ipc_t;

/* dim3 as the runtimes pass it: by value (checked by the tables). */
typedef struct rt_dim3 {
    unsigned x, y, z;
} rt_dim3_t;

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
    int (*StreamCreateWithFlags)(void **stream, unsigned flags);
    int (*StreamDestroy)(void *stream);
    int (*StreamSynchronize)(void *stream);
    int (*MemcpyAsync)(void *dst, const void *src, size_t size, int kind,
                       void *stream);
    int (*StreamAddCallback)(void *stream, void (*cb)(void *, int, void *),
                             void *arg, unsigned flags);
    /* Optional (HIP 5.2 has none): StreamAddCallback stands in. */
    int (*LaunchHostFunc)(void *stream, void (*fn)(void *), void *arg);
    /* Optional (host_alloc and launch return SHMI_ENOTSUP without them),
     * so that an older runtime or stand-in still loads. HostAlloc and
     * HostFree are named by the table (cuda HostAlloc/FreeHost, hip
     * HostMalloc/HostFree). */
    int (*HostAlloc)(void **host, size_t size, unsigned flags);
    int (*HostFree)(void *host);
    int (*HostGetDevicePointer)(void **device, void *host, unsigned flags);
    union { /* the shared-memory size's type: the table's launch_shared_uint */
        int (*sz)(const void *func, rt_dim3_t grid, rt_dim3_t block,
                  void **args, size_t shared, void *stream);
        int (*u32)(const void *func, rt_dim3_t grid, rt_dim3_t block,
                   void **args, unsigned shared, void *stream);
    } LaunchCooperativeKernel;
} rt_fns_t;

/* Name (after the prefix) and place of each entry point in rt_fns_t; for
 * a name that differs between runtimes, the place of the name in the
 * runtime's table instead. */
/* clang-format off */
#define RT_FN(f) {#f, offsetof(rt_fns_t, f), 0, 0}
#define RT_FN_OPTIONAL(f) {#f, offsetof(rt_fns_t, f), 1, 0}
#define RT_FN_NAMED(f, field) \
    {NULL, offsetof(rt_fns_t, f), 1, offsetof(shmi_gpu_runtime_t, field)}
/* clang-format on */
static const struct {
    const char *name;
    size_t off;
    int optional;
    size_t rt_name_off; /* where name is NULL */
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
    RT_FN(StreamCreateWithFlags),
    RT_FN(StreamDestroy),
    RT_FN(StreamSynchronize),
    RT_FN(MemcpyAsync),
    RT_FN(StreamAddCallback),
    RT_FN_OPTIONAL(LaunchHostFunc),
    RT_FN_NAMED(HostAlloc, fn_host_alloc),
    RT_FN_NAMED(HostFree, fn_host_free),
    RT_FN_OPTIONAL(HostGetDevicePointer),
    RT_FN_OPTIONAL(LaunchCooperativeKernel),
};
#undef RT_FN
#undef RT_FN_OPTIONAL
#undef RT_FN_NAMED

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
        const char *name = rt_fn_names[i].name;
        void *f;

        if (!name)
            memcpy(&name, (const char *)rt + rt_fn_names[i].rt_name_off,
                   sizeof(name));
        snprintf(sym, sizeof(sym), "%s%s", rt->prefix, name);
        f = dlsym(h, sym);
        if (!f && rt_fn_names[i].optional)
            continue;
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

/*
 * Each thread that calls the runtime has the PE's device current (a new
 * thread starts on device 0) and its own non-blocking stream for the
 * synchronous copies. Why not the runtime's plain Memcpy: it runs on the
 * legacy default stream, which waits for every blocking stream of the
 * device, and a user's stream may be held by a host function of Weft's
 * that waits for this very copy (src/core/stream/lane.c): a deadlock. A
 * non-blocking stream waits for nothing but its own work.
 */
static __thread struct {
    int device;        /* device made current in this thread, -1: none */
    void *copy_stream; /* for rt_copy */
} rt_thread = {-1, NULL};

static int rt_thread_ready(void)
{
    int ret;

    if (!cur.rt)
        return SHMI_ENODEV;
    if (cur.device >= 0 && rt_thread.device != cur.device) {
        if ((ret = rt_call(cur.fn.SetDevice(cur.device), "SetDevice")))
            return ret;
        rt_thread.device = cur.device;
    }
    return 0;
}

static int rt_copy(void *dst, const void *src, size_t len, shmi_gpu_copy_t dir)
{
    int ret;

    if ((ret = rt_thread_ready()))
        return ret;
    if (!rt_thread.copy_stream &&
        (ret = rt_call(cur.fn.StreamCreateWithFlags(&rt_thread.copy_stream,
                                                    cur.rt->stream_nonblocking),
                       "StreamCreateWithFlags")))
        return ret;
    ret = rt_call(cur.fn.MemcpyAsync(dst, src, len, cur.rt->copy_kind[dir],
                                     rt_thread.copy_stream),
                  "MemcpyAsync");
    if (ret == 0)
        ret = rt_call(cur.fn.StreamSynchronize(rt_thread.copy_stream),
                      "StreamSynchronize");
    return ret;
}

/* User streams are non-blocking too (shmemx_stream_create, docs/gpu.md). */
static int rt_stream_create(void **stream)
{
    int ret = rt_thread_ready();

    return ret ? ret
               : rt_call(cur.fn.StreamCreateWithFlags(
                             stream, cur.rt->stream_nonblocking),
                         "StreamCreateWithFlags");
}

static int rt_stream_destroy(void *stream)
{
    int ret = rt_thread_ready();

    return ret ? ret : rt_call(cur.fn.StreamDestroy(stream), "StreamDestroy");
}

static int rt_stream_sync(void *stream)
{
    int ret = rt_thread_ready();

    return ret ? ret
               : rt_call(cur.fn.StreamSynchronize(stream), "StreamSynchronize");
}

/* A host function through StreamAddCallback, for runtimes without
 * LaunchHostFunc (HIP 5.2). */
typedef struct rt_host_call {
    void (*fn)(void *);
    void *arg;
} rt_host_call_t;

static void rt_host_callback(void *stream, int status, void *arg)
{
    rt_host_call_t call = *(rt_host_call_t *)arg;

    (void)stream, (void)status;
    free(arg);
    call.fn(call.arg);
}

static int rt_stream_host(void *stream, void (*fn)(void *), void *arg)
{
    rt_host_call_t *call;
    int ret = rt_thread_ready();

    if (ret)
        return ret;
    if (cur.fn.LaunchHostFunc)
        return rt_call(cur.fn.LaunchHostFunc(stream, fn, arg),
                       "LaunchHostFunc");
    if (!(call = malloc(sizeof(*call))))
        return SHMI_ENOMEM;
    *call = (rt_host_call_t){fn, arg};
    ret = rt_call(cur.fn.StreamAddCallback(stream, rt_host_callback, call, 0),
                  "StreamAddCallback");
    if (ret)
        free(call);
    return ret;
}

static int rt_stream_copy(void *dst, const void *src, size_t len,
                          shmi_gpu_copy_t dir, void *stream)
{
    int ret = rt_thread_ready();

    return ret ? ret
               : rt_call(cur.fn.MemcpyAsync(dst, src, len,
                                            cur.rt->copy_kind[dir], stream),
                         "MemcpyAsync");
}

/* The reduction kernels built with the device compiler (gpu_kernels.c). */
static int rt_stream_reduce(void *acc, const void *in, size_t n, shmi_op_t op,
                            shmi_dtype_t dt, void *stream)
{
    int ret = rt_thread_ready();

    return ret ? ret
               : shmi_gpu_kernels_reduce(cur.rt->name, acc, in, n, op, dt,
                                         stream);
}

/* Page-locked host memory mapped into the device, cleared here (the
 * runtimes do not clear it). */
static int rt_host_alloc(size_t size, void **host, void **device)
{
    void *h = NULL, *d = NULL;
    int ret = rt_thread_ready();

    if (ret)
        return ret;
    if (!cur.fn.HostAlloc || !cur.fn.HostFree || !cur.fn.HostGetDevicePointer)
        return SHMI_ENOTSUP;
    if (size == 0)
        return SHMI_EINVAL;
    ret = rt_call(cur.fn.HostAlloc(&h, size, cur.rt->host_alloc_flags),
                  cur.rt->fn_host_alloc);
    if (ret)
        return ret;
    ret =
        rt_call(cur.fn.HostGetDevicePointer(&d, h, 0), "HostGetDevicePointer");
    if (ret) {
        cur.fn.HostFree(h);
        return ret;
    }
    memset(h, 0, size);
    *host = h;
    *device = d;
    return 0;
}

static int rt_host_free(void *host)
{
    int ret = rt_thread_ready();

    if (ret || !host)
        return ret;
    if (!cur.fn.HostFree)
        return SHMI_ENOTSUP;
    return rt_call(cur.fn.HostFree(host), cur.rt->fn_host_free);
}

/* A launch's status: SHMI_EINVAL where the launch itself is wrong (the
 * caller's to fix), SHMI_EIO for any other failure; logged. */
static int rt_launch_status(int err)
{
    if (err == 0)
        return 0;
    SHMI_LOG(SHMI_LOG_DEBUG, "gpu",
             "%s: %sLaunchCooperativeKernel failed: error %d (%s)",
             cur.rt->name, cur.rt->prefix, err, cur.fn.GetErrorString(err));
    for (int i = 0; i < SHMI_GPU_RT_LAUNCH_INVAL; i++)
        if (err == cur.rt->err_launch_inval[i])
            return SHMI_EINVAL;
    return SHMI_EIO;
}

static int rt_launch(const void *func, const unsigned grid[3],
                     const unsigned block[3], void **args, size_t shared_bytes,
                     void *stream)
{
    rt_dim3_t g = {grid[0], grid[1], grid[2]};
    rt_dim3_t b = {block[0], block[1], block[2]};
    int ret = rt_thread_ready();

    if (ret)
        return ret;
    if (!cur.fn.LaunchCooperativeKernel.sz)
        return SHMI_ENOTSUP;
    if (!cur.rt->launch_shared_uint)
        return rt_launch_status(cur.fn.LaunchCooperativeKernel.sz(
            func, g, b, args, shared_bytes, stream));
    if (shared_bytes > UINT_MAX)
        return SHMI_EINVAL;
    return rt_launch_status(cur.fn.LaunchCooperativeKernel.u32(
        func, g, b, args, (unsigned)shared_bytes, stream));
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

/* A NIC registers the device memory itself, where libfabric knows the
 * runtime's memory (FI_HMEM). */
static int rt_fabric_view(void *base, size_t size, void **addr,
                          shmi_mem_kind_t *kind, int *device)
{
    shmi_gpu_hmem_t hm = rt_hmem();

    (void)size;
    if (hm.kind == SHMI_MEM_HOST) /* device memory it cannot name */
        return SHMI_ENOTSUP;
    *kind = hm.kind;
    *device = hm.device;
    *addr = base;
    return 0;
}

/* The back ends: the same functions, one probe each. */
#define RT_OPS(NAME, PROBE)                                                    \
    {                                                                          \
        .size = sizeof(shmi_gpu_ops_t), .name = NAME, .probe = PROBE,          \
        .flags = SHMI_GPU_AUTO, .fabric_view = rt_fabric_view,                 \
        .select = rt_select, .alloc = rt_alloc, .free = rt_free,               \
        .ipc_export = rt_ipc_export, .ipc_import = rt_ipc_import,              \
        .ipc_close = rt_ipc_close, .copy = rt_copy, .atomic = rt_atomic,       \
        .is_device = rt_is_device, .hmem = rt_hmem,                            \
        .stream_create = rt_stream_create,                                     \
        .stream_destroy = rt_stream_destroy, .stream_sync = rt_stream_sync,    \
        .stream_host = rt_stream_host, .stream_copy = rt_stream_copy,          \
        .stream_reduce = rt_stream_reduce, .host_alloc = rt_host_alloc,        \
        .host_free = rt_host_free, .launch = rt_launch,                        \
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
