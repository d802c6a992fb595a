/*
 * A stand-in for a GPU runtime library, to test gpu_runtime.c without a
 * GPU: built twice, as libcudart.so (cuda* entry points) and, with
 * FAKE_RT_HIP, as libamdhip64.so (hip* entry points), and found first by
 * dlopen through LD_LIBRARY_PATH. "Device memory" is host memory this
 * library hands out and remembers; every call checks its arguments the way
 * the runtime would (memory kinds, IPC flags), using the runtime's
 * documented constants, so a wrong value in a back-end table makes a call
 * fail. FAKE_RT_NODEV=1 in the environment: no device (CUDA's error 35,
 * HIP's error 100).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef FAKE_RT_HIP
#define FAKE(f) hip##f
enum {
    E_NODEV = 100,      /* hipErrorNoDevice */
    MEM_DEVICE = 1,     /* hipMemoryTypeDevice */
    IPC_FLAGS = 0,      /* hipIpcMemLazyEnablePeerAccess */
    ATTR_HOST_FAILS = 1 /* host memory: hipErrorInvalidValue */
};
#else
#define FAKE(f) cuda##f
enum {
    E_NODEV = 35,       /* cudaErrorInsufficientDriver */
    MEM_DEVICE = 2,     /* cudaMemoryTypeDevice */
    IPC_FLAGS = 1,      /* cudaIpcMemLazyEnablePeerAccess */
    ATTR_HOST_FAILS = 0 /* host memory: success, cudaMemoryTypeUnregistered */
};
#endif

/* Shared by both runtimes: success 0, invalid value 1, out of memory 2,
 * invalid device 101; memcpy kinds H2D 1, D2H 2, D2D 3. */
enum { OK = 0, E_INVAL = 1, E_OOM = 2, E_DEVICE = 101 };
enum { H2D = 1, D2H = 2, D2D = 3 };
enum { NDEV = 2, MAXREG = 64 };
#define FAKE_LIMIT ((size_t)1 << 30)

typedef struct fake_ipc {
    char reserved[64];
} fake_ipc_t;

typedef struct fake_attr {
    int type; /* cudaPointerAttributes.type, hipPointerAttribute_t.memoryType */
    int device;
    void *device_pointer;
    void *host_pointer;
} fake_attr_t;

static struct {
    char *base;
    size_t size;
} reg[MAXREG];
static int cur_dev;

/* 1 when [p, p+n) lies in one fake device allocation. */
static int on_device(const void *p, size_t n)
{
    const char *c = p;

    for (int i = 0; i < MAXREG; i++)
        if (reg[i].base && c >= reg[i].base &&
            (size_t)(c - reg[i].base) + n <= reg[i].size)
            return 1;
    return 0;
}

int FAKE(GetDeviceCount)(int *count)
{
    const char *e = getenv("FAKE_RT_NODEV");

    *count = e && e[0] == '1' ? 0 : NDEV;
    return *count ? OK : E_NODEV;
}

int FAKE(SetDevice)(int dev)
{
    if (dev < 0 || dev >= NDEV)
        return E_DEVICE;
    cur_dev = dev;
    return OK;
}

int FAKE(Malloc)(void **ptr, size_t size)
{
    for (int i = 0; i < MAXREG; i++) {
        if (reg[i].base)
            continue;
        if (size > FAKE_LIMIT || !(reg[i].base = malloc(size)))
            return E_OOM;
        memset(reg[i].base, 0x5a, size); /* not zero: Weft must clear it */
        reg[i].size = size;
        *ptr = reg[i].base;
        return OK;
    }
    return E_OOM;
}

int FAKE(Memset)(void *ptr, int value, size_t size)
{
    if (!on_device(ptr, size))
        return E_INVAL;
    memset(ptr, value, size);
    return OK;
}

int FAKE(Free)(void *ptr)
{
    for (int i = 0; i < MAXREG; i++) {
        if (reg[i].base == ptr) {
            free(reg[i].base);
            reg[i].base = NULL;
            return OK;
        }
    }
    return E_INVAL;
}

int FAKE(Memcpy)(void *dst, const void *src, size_t n, int kind)
{
    int ok = (kind == H2D && on_device(dst, n) && !on_device(src, n)) ||
             (kind == D2H && !on_device(dst, n) && on_device(src, n)) ||
             (kind == D2D && on_device(dst, n) && on_device(src, n));

    if (!ok)
        return E_INVAL;
    memmove(dst, src, n);
    return OK;
}

int FAKE(IpcGetMemHandle)(fake_ipc_t *handle, void *ptr)
{
    if (!on_device(ptr, 1))
        return E_INVAL;
    memset(handle, 0, sizeof(*handle));
    memcpy(handle->reserved, "fakeipc", 8);
    memcpy(handle->reserved + 8, &ptr, sizeof(ptr));
    return OK;
}

/* One process: the "import" is the exporter's own address. */
int FAKE(IpcOpenMemHandle)(void **ptr, fake_ipc_t handle, unsigned flags)
{
    if (flags != IPC_FLAGS || memcmp(handle.reserved, "fakeipc", 8) != 0)
        return E_INVAL;
    memcpy(ptr, handle.reserved + 8, sizeof(*ptr));
    return OK;
}

int FAKE(IpcCloseMemHandle)(void *ptr)
{
    return on_device(ptr, 1) ? OK : E_INVAL;
}

int FAKE(PointerGetAttributes)(fake_attr_t *attr, const void *ptr)
{
    int dev = on_device(ptr, 1);

    if (!dev && ATTR_HOST_FAILS)
        return E_INVAL;
    memset(attr, 0, sizeof(*attr));
    attr->type = dev ? MEM_DEVICE : 0;
    attr->device = cur_dev;
    attr->device_pointer = dev ? (void *)ptr : NULL;
    return OK;
}

const char *FAKE(GetErrorString)(int err)
{
    return err == OK ? "no error" : "fake runtime error";
}
