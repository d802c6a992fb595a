/*
 * The loader of the device reduction kernels (gpu_kernels.h).
 *
 * The kernels (src/gpu/kernels/reduce.cu) are built at build time and
 * embedded in the library (src/gpu/kernels/images.h); at run time the
 * image is handed to the vendor's module API, which takes an image from
 * memory: the CUDA driver API (libcuda, cuModuleLoadData; a cudaStream_t
 * is a CUstream, so the runtime's streams are used as they are) or HIP's
 * module API (libamdhip64, hipModuleLoadData, in the same library as HIP's
 * runtime). Both are loaded with dlopen, as gpu_runtime.c loads the
 * runtimes, and described by the table below: their module calls have the
 * same shape, with opaque pointer types, so no vendor header is needed.
 *
 * A process loads the image once per back end, into the device (CUDA
 * context) current on the first reduction, and caches each kernel's handle
 * as it is first used. A process uses one device (gpu_runtime.c), so a
 * reduction on another context or device is refused rather than loading
 * the image again.
 */
#include "config.h"

#include "gpu/gpu_kernels.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpu/kernels/images.h"
#include "services/error.h"

/* Threads per block, and the most blocks one launch asks for: enough to
 * fill the largest current GPUs several times over (an H100 holds 132 SMs
 * x 8 blocks of 256 threads at once, an MI300X 304 CUs), few enough that
 * for large n each thread walks many elements of the grid-stride loop
 * rather than the launch paying for blocks that each do one. */
#define KERNELS_BLOCK      256
#define KERNELS_MAX_BLOCKS 4096

/* The element classes of reduce.cu's kernels: the _<class> of their names. */
typedef enum kernels_class {
    KC_U8,
    KC_U16,
    KC_U32,
    KC_U64,
    KC_S8,
    KC_S16,
    KC_S32,
    KC_S64,
    KC_F32,
    KC_F64,
    KC_CF32,
    KC_CF64,
    KC_COUNT
} kernels_class_t;

/* Every kernel of reduce.cu, by operator and class; NULL where none. Signed
 * integers use the u kernels but for MIN and MAX (kernels_class_of). */
static const char *const kernels_names[SHMI_OP_COUNT][KC_COUNT] = {
    [SHMI_OP_AND] = {"weft_reduce_and_u8", "weft_reduce_and_u16",
                     "weft_reduce_and_u32", "weft_reduce_and_u64"},
    [SHMI_OP_OR] = {"weft_reduce_or_u8", "weft_reduce_or_u16",
                    "weft_reduce_or_u32", "weft_reduce_or_u64"},
    [SHMI_OP_XOR] = {"weft_reduce_xor_u8", "weft_reduce_xor_u16",
                     "weft_reduce_xor_u32", "weft_reduce_xor_u64"},
    [SHMI_OP_MIN] = {"weft_reduce_min_u8", "weft_reduce_min_u16",
                     "weft_reduce_min_u32", "weft_reduce_min_u64",
                     "weft_reduce_min_s8", "weft_reduce_min_s16",
                     "weft_reduce_min_s32", "weft_reduce_min_s64",
                     "weft_reduce_min_f32", "weft_reduce_min_f64"},
    [SHMI_OP_MAX] = {"weft_reduce_max_u8", "weft_reduce_max_u16",
                     "weft_reduce_max_u32", "weft_reduce_max_u64",
                     "weft_reduce_max_s8", "weft_reduce_max_s16",
                     "weft_reduce_max_s32", "weft_reduce_max_s64",
                     "weft_reduce_max_f32", "weft_reduce_max_f64"},
    [SHMI_OP_SUM] = {[KC_U8] = "weft_reduce_sum_u8",
                     [KC_U16] = "weft_reduce_sum_u16",
                     [KC_U32] = "weft_reduce_sum_u32",
                     [KC_U64] = "weft_reduce_sum_u64",
                     [KC_F32] = "weft_reduce_sum_f32",
                     [KC_F64] = "weft_reduce_sum_f64",
                     [KC_CF32] = "weft_reduce_sum_cf32",
                     [KC_CF64] = "weft_reduce_sum_cf64"},
    [SHMI_OP_PROD] = {[KC_U8] = "weft_reduce_prod_u8",
                      [KC_U16] = "weft_reduce_prod_u16",
                      [KC_U32] = "weft_reduce_prod_u32",
                      [KC_U64] = "weft_reduce_prod_u64",
                      [KC_F32] = "weft_reduce_prod_f32",
                      [KC_F64] = "weft_reduce_prod_f64",
                      [KC_CF32] = "weft_reduce_prod_cf32",
                      [KC_CF64] = "weft_reduce_prod_cf64"},
};

/* The class of kernel that computes op on dt, or -1. Long double has no
 * device type (x87 extended precision). */
static int kernels_class_of(shmi_op_t op, shmi_dtype_t dt)
{
    size_t size;
    int w;

    if (!shmi_reduce_valid(op, dt) || dt == SHMI_DT_LONGDOUBLE)
        return -1;
    size = shmi_dtype_size(dt);
    w = shmi_width_index(size);
    switch (shmi_dtype_kind(dt)) {
    case SHMI_DK_SIGNED:
        if (w < 0)
            return -1;
        return op == SHMI_OP_MIN || op == SHMI_OP_MAX ? KC_S8 + w : KC_U8 + w;
    case SHMI_DK_UNSIGNED: return w < 0 ? -1 : KC_U8 + w;
    case SHMI_DK_FLOAT: return size == 4 ? KC_F32 : size == 8 ? KC_F64 : -1;
    case SHMI_DK_COMPLEX:
        return size == 8 ? KC_CF32 : size == 16 ? KC_CF64 : -1;
    }
    return -1;
}

const char *shmi_gpu_kernels_name(shmi_op_t op, shmi_dtype_t dt)
{
    int c = kernels_class_of(op, dt);

    return c < 0 ? NULL : kernels_names[op][c];
}

/* The module API of one vendor, as this file calls it: status codes as
 * int (CUresult, hipError_t; 0 is success), handles as void *. */
typedef struct kernels_fns {
    int (*init)(unsigned flags);
    int (*module_load)(void **module, const void *image);
    int (*get_function)(void **fn, void *module, const char *name);
    int (*launch)(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                  unsigned by, unsigned bz, unsigned shmem, void *stream,
                  void **params, void **extra);
    /* Where modules live: the current CUDA context (cuCtxGetCurrent,
     * void **) or HIP device (hipGetDevice, int *). */
    int (*current)(void *where);
    /* cuGetErrorString(err, &str) or hipGetErrorString(err). */
    void *error_string;
} kernels_fns_t;

/* The entry points of kernels_fns_t, in order: indices of syms below. */
enum {
    KF_INIT,
    KF_MODULE_LOAD,
    KF_GET_FUNCTION,
    KF_LAUNCH,
    KF_CURRENT,
    KF_ERROR_STRING,
    KF_COUNT
};

/* One vendor's library and entry points, and what this process has loaded
 * of it (under lock). */
typedef struct kernels_backend {
    const char *name;           /* "cuda", "hip" */
    const char *libs[4];        /* tried in turn; NULL ends the list */
    const char *syms[KF_COUNT]; /* their names, by KF_* */
    const unsigned char *image; /* src/gpu/kernels/images.h */
    const size_t *image_size;   /* 0: no kernels in this build */
    int hip;                    /* where and error strings HIP's way */
    pthread_mutex_t lock;
    int load_ret;     /* 1: not tried; else the load's result */
    kernels_fns_t fn; /* set when load_ret == 0 */
    void *module;     /* the loaded image */
    uintptr_t where;  /* context or device it was loaded on */
    void *fns[SHMI_OP_COUNT][KC_COUNT]; /* kernel handles, as first used */
} kernels_backend_t;

static kernels_backend_t kernels_cuda = {
    .name = "cuda",
    /* The driver's soname: "libcuda.so" is the toolkit's link-time stub. */
    .libs = {"libcuda.so.1", NULL},
    .syms = {[KF_INIT] = "cuInit",
             [KF_MODULE_LOAD] = "cuModuleLoadData",
             [KF_GET_FUNCTION] = "cuModuleGetFunction",
             [KF_LAUNCH] = "cuLaunchKernel",
             [KF_CURRENT] = "cuCtxGetCurrent",
             [KF_ERROR_STRING] = "cuGetErrorString"},
    .image = shmi_gpu_image_cuda,
    .image_size = &shmi_gpu_image_cuda_size,
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .load_ret = 1,
};

static kernels_backend_t kernels_hip = {
    .name = "hip",
    /* gpu_hip.c's order, so that this finds the library the runtime uses. */
    .libs = {"libamdhip64.so", "libamdhip64.so.5", "libamdhip64.so.6", NULL},
    .syms = {[KF_INIT] = "hipInit",
             [KF_MODULE_LOAD] = "hipModuleLoadData",
             [KF_GET_FUNCTION] = "hipModuleGetFunction",
             [KF_LAUNCH] = "hipModuleLaunchKernel",
             [KF_CURRENT] = "hipGetDevice",
             [KF_ERROR_STRING] = "hipGetErrorString"},
    .image = shmi_gpu_image_hip,
    .image_size = &shmi_gpu_image_hip_size,
    .hip = 1,
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .load_ret = 1,
};

/* The vendor's text for err, for messages. */
static const char *kernels_strerror(const kernels_backend_t *b, int err)
{
    const char *s = NULL;

    if (!b->fn.error_string)
        return "?";
    if (b->hip) {
        const char *(*hip_string)(int);

        memcpy(&hip_string, &b->fn.error_string, sizeof(hip_string));
        s = hip_string(err);
    } else {
        int (*cu_string)(int, const char **);

        memcpy(&cu_string, &b->fn.error_string, sizeof(cu_string));
        if (cu_string(err, &s) != 0)
            s = NULL;
    }
    return s ? s : "?";
}

/* Maps a vendor status to 0 or SHMI_EIO, logging a failure of call. */
static int kernels_check(const kernels_backend_t *b, int err, const char *call)
{
    if (err == 0)
        return 0;
    SHMI_LOG(SHMI_LOG_ERROR, "gpu",
             "%s: reduction kernels: %s failed: error %d (%s)", b->name, call,
             err, kernels_strerror(b, err));
    return SHMI_EIO;
}

/* The context or device current on this thread, as a number; SHMI_EIO
 * (logged) when there is none. */
static int kernels_where(const kernels_backend_t *b, uintptr_t *where)
{
    void *ctx = NULL;
    int dev = -1, ret;

    ret = kernels_check(b, b->fn.current(b->hip ? (void *)&dev : (void *)&ctx),
                        b->syms[KF_CURRENT]);
    if (ret == 0 && !b->hip && !ctx) {
        SHMI_LOG(SHMI_LOG_ERROR, "gpu",
                 "%s: reduction kernels: no CUDA context is current on this "
                 "thread (the runtime sets one up with the device)",
                 b->name);
        ret = SHMI_EIO;
    }
    if (ret == 0)
        *where = b->hip ? (uintptr_t)dev : (uintptr_t)ctx;
    return ret;
}

/* Where each entry point goes in kernels_fns_t, by KF_*. */
static const size_t kernels_fn_offs[KF_COUNT] = {
    [KF_INIT] = offsetof(kernels_fns_t, init),
    [KF_MODULE_LOAD] = offsetof(kernels_fns_t, module_load),
    [KF_GET_FUNCTION] = offsetof(kernels_fns_t, get_function),
    [KF_LAUNCH] = offsetof(kernels_fns_t, launch),
    [KF_CURRENT] = offsetof(kernels_fns_t, current),
    [KF_ERROR_STRING] = offsetof(kernels_fns_t, error_string),
};

/* Opens b's library and resolves its entry points into b->fn. A library
 * that is missing or lacks the module API (a stand-in runtime, as in
 * tests/gpu/fake_runtime.c) means no kernels here rather than a failure:
 * SHMI_ENOTSUP, so that the caller takes its host path. A failing init
 * (no device) is SHMI_EIO. */
static int kernels_open(kernels_backend_t *b)
{
    void *h = NULL, *f;

    for (size_t i = 0; !h && i < 4 && b->libs[i]; i++)
        h = dlopen(b->libs[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        SHMI_LOG(SHMI_LOG_DEBUG, "gpu",
                 "%s: no reduction kernels: cannot load %s: %s", b->name,
                 b->libs[0], dlerror());
        return SHMI_ENOTSUP;
    }
    for (size_t i = 0; i < KF_COUNT; i++) {
        if (!(f = dlsym(h, b->syms[i]))) {
            SHMI_LOG(SHMI_LOG_DEBUG, "gpu",
                     "%s: no reduction kernels: %s has no %s", b->name,
                     b->libs[0], b->syms[i]);
            dlclose(h);
            return SHMI_ENOTSUP;
        }
        memcpy((char *)&b->fn + kernels_fn_offs[i], &f, sizeof(f));
    }
    return kernels_check(b, b->fn.init(0), b->syms[KF_INIT]);
}

/* Loads b's library, then its image onto the context or device current on
 * this thread, once (b->lock held). A failure of either stays: later
 * reductions return it without trying again or logging it again. Only a
 * thread without a CUDA context may try again. */
static int kernels_load(kernels_backend_t *b)
{
    int ret;

    if (b->load_ret == 1)
        b->load_ret = kernels_open(b);
    if (b->load_ret != 0 || b->module)
        return b->load_ret;
    if ((ret = kernels_where(b, &b->where)) != 0)
        return ret;
    ret = kernels_check(b, b->fn.module_load(&b->module, b->image),
                        b->syms[KF_MODULE_LOAD]);
    if (ret == 0)
        SHMI_LOG(SHMI_LOG_DEBUG, "gpu",
                 "%s: reduction kernels loaded (%zu bytes)", b->name,
                 *b->image_size);
    b->load_ret = ret;
    b->module = ret == 0 ? b->module : NULL;
    return ret;
}

/* The handle of kernel (op, class c) of b, loading the image on first
 * use; 0 or SHMI_EIO (logged). */
static int kernels_function(kernels_backend_t *b, shmi_op_t op, int c,
                            void **fn)
{
    uintptr_t where;
    int ret;

    pthread_mutex_lock(&b->lock);
    ret = kernels_load(b);
    if (ret == 0)
        ret = kernels_where(b, &where);
    if (ret == 0 && where != b->where) {
        SHMI_LOG(SHMI_LOG_ERROR, "gpu",
                 "%s: reduction kernels: loaded on another %s than the one "
                 "current on this thread (one device per process)",
                 b->name, b->hip ? "device" : "context");
        ret = SHMI_EIO;
    }
    if (ret == 0 && !b->fns[op][c])
        ret = kernels_check(
            b,
            b->fn.get_function(&b->fns[op][c], b->module, kernels_names[op][c]),
            b->syms[KF_GET_FUNCTION]);
    if (ret == 0)
        *fn = b->fns[op][c];
    pthread_mutex_unlock(&b->lock);
    return ret;
}

int shmi_gpu_kernels_reduce(const char *backend, void *acc, const void *in,
                            size_t n, shmi_op_t op, shmi_dtype_t dt,
                            void *stream)
{
    kernels_backend_t *b = NULL;
    int c = kernels_class_of(op, dt), ret;
    size_t blocks = (n + KERNELS_BLOCK - 1) / KERNELS_BLOCK;
    void *fn = NULL, *params[] = {&acc, &in, &n};

    if (backend && strcmp(backend, kernels_cuda.name) == 0)
        b = &kernels_cuda;
    else if (backend && strcmp(backend, kernels_hip.name) == 0)
        b = &kernels_hip;
    else
        return SHMI_EINVAL;
    if (c < 0 || *b->image_size == 0) {
        SHMI_LOG(SHMI_LOG_DEBUG, "gpu",
                 "%s: no reduction kernel for op %d on dtype %d%s", b->name,
                 (int)op, (int)dt,
                 *b->image_size == 0 ? " (none in this build)" : "");
        return SHMI_ENOTSUP;
    }
    /* n == 0 is how a caller asks whether the kernel can run here
     * (src/core/coll/reduce_device.c): the image is loaded to answer. */
    if ((ret = kernels_function(b, op, c, &fn)) != 0)
        return ret;
    if (n == 0)
        return 0; /* an empty grid is an error to the runtimes */
    if (blocks > KERNELS_MAX_BLOCKS)
        blocks = KERNELS_MAX_BLOCKS;
    return kernels_check(b,
                         b->fn.launch(fn, (unsigned)blocks, 1, 1, KERNELS_BLOCK,
                                      1, 1, 0, stream, params, NULL),
                         b->syms[KF_LAUNCH]);
}
