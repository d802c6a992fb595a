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
 *
 * Each allocation is a memfd mapped shared, so that an IPC handle (the
 * exporter's pid, the memfd, the offset) can be opened by another process
 * of the node through /proc/<pid>/fd, as CUDA and HIP IPC map a peer's
 * allocation; the opened mapping counts as device memory in that process.
 * Host loads and stores still work on it: the fake checks the arguments of
 * the runtime calls, not that Weft never dereferences device memory (the
 * mock back end does that).
 *
 * Mapped host memory (HostAlloc, hip's HostMalloc) is host memory whose
 * device address is its host address, filled with a non-zero byte so that
 * Weft must clear it. The stand-in cannot run device code: a cooperative
 * launch records its arguments (FakeLastLaunch, for the tests) and returns
 * the runtimes' "invalid device function". Built with FAKE_RT_OLD, it
 * lacks these entry points, as an older runtime would.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef FAKE_RT_HIP
#define FAKE(f)         hip##f
#define FAKE_HOST_ALLOC hipHostMalloc
#define FAKE_HOST_FREE  hipHostFree
typedef unsigned fake_shared_t; /* hipLaunchCooperativeKernel's */
enum {
    E_NODEV = 100,      /* hipErrorNoDevice */
    MEM_DEVICE = 1,     /* hipMemoryTypeDevice */
    IPC_FLAGS = 0,      /* hipIpcMemLazyEnablePeerAccess */
    ATTR_HOST_FAILS = 1 /* host memory: hipErrorInvalidValue */
};
#else
#define FAKE(f)         cuda##f
#define FAKE_HOST_ALLOC cudaHostAlloc
#define FAKE_HOST_FREE  cudaFreeHost
typedef size_t fake_shared_t; /* cudaLaunchCooperativeKernel's */
enum {
    E_NODEV = 35,       /* cudaErrorInsufficientDriver */
    MEM_DEVICE = 2,     /* cudaMemoryTypeDevice */
    IPC_FLAGS = 1,      /* cudaIpcMemLazyEnablePeerAccess */
    ATTR_HOST_FAILS = 0 /* host memory: success, cudaMemoryTypeUnregistered */
};
#endif

/* Shared by both runtimes: success 0, invalid value 1, out of memory 2,
 * invalid configuration 9, invalid device function 98, invalid device
 * 101; memcpy kinds H2D 1, D2H 2, D2D 3; host allocation flags portable 1,
 * mapped 2. */
enum {
    OK = 0,
    E_INVAL = 1,
    E_OOM = 2,
    E_CONFIG = 9,
    E_DEVICE_FUNCTION = 98,
    E_DEVICE = 101
};
enum { HOST_PORTABLE = 1, HOST_MAPPED = 2 };
enum { H2D = 1, D2H = 2, D2D = 3 };
enum { NDEV = 2, MAXREG = 64 };
#define FAKE_LIMIT ((size_t)1 << 30)

typedef struct fake_ipc {
    char reserved[64];
} fake_ipc_t;

/* What the handle's reserved bytes carry after the tag "fakeipc". */
typedef struct fake_ipc_body {
    char tag[8];
    void *ptr;     /* the exported address, in the exporter */
    int32_t pid;   /* the exporter */
    int32_t fd;    /* its memfd */
    uint64_t off;  /* ptr - start of its allocation */
    uint64_t size; /* bytes of the allocation */
} fake_ipc_body_t;

_Static_assert(sizeof(fake_ipc_body_t) <= sizeof(fake_ipc_t),
               "the handle holds the body");

typedef struct fake_attr {
    int type; /* cudaPointerAttributes.type, hipPointerAttribute_t.memoryType */
    int device;
    void *device_pointer;
    void *host_pointer;
} fake_attr_t;

static struct {
    char *base;
    size_t size;
    int fd;       /* own allocation's memfd, or -1 (opened handle) */
    char *opened; /* the address IpcOpenMemHandle returned */
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

/* A shared mapping of size bytes of fd, or NULL. */
static char *map_shared(int fd, size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

    return p == MAP_FAILED ? NULL : p;
}

static int free_slot(void)
{
    for (int i = 0; i < MAXREG; i++)
        if (!reg[i].base)
            return i;
    return -1;
}

int FAKE(Malloc)(void **ptr, size_t size)
{
    int i = free_slot(), fd;

    if (i < 0 || size == 0 || size > FAKE_LIMIT)
        return E_OOM;
    fd = memfd_create("fake-device", MFD_CLOEXEC);
    if (fd < 0)
        return E_OOM;
    if (ftruncate(fd, (off_t)size) != 0 ||
        !(reg[i].base = map_shared(fd, size))) {
        close(fd);
        return E_OOM;
    }
    memset(reg[i].base, 0x5a, size); /* not zero: Weft must clear it */
    reg[i].size = size;
    reg[i].fd = fd;
    reg[i].opened = NULL;
    *ptr = reg[i].base;
    return OK;
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
        if (reg[i].base == ptr && reg[i].fd >= 0) {
            munmap(reg[i].base, reg[i].size);
            close(reg[i].fd);
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

/* Streams: a token each, and every operation done at once in the calling
 * thread (in stream order trivially). The CUDA stand-in has LaunchHostFunc;
 * the HIP one, like HIP 5.2, only StreamAddCallback. */
static int fake_streams_live;

int FAKE(StreamCreateWithFlags)(void **stream, unsigned flags)
{
    if (!stream || flags != 1) /* Weft asks for non-blocking streams */
        return E_INVAL;
    *stream = malloc(1);
    if (!*stream)
        return E_OOM;
    fake_streams_live++;
    return OK;
}

int FAKE(StreamDestroy)(void *stream)
{
    if (!stream || fake_streams_live == 0)
        return E_INVAL;
    free(stream);
    fake_streams_live--;
    return OK;
}

int FAKE(StreamSynchronize)(void *stream)
{
    (void)stream;
    return OK;
}

int FAKE(MemcpyAsync)(void *dst, const void *src, size_t n, int kind,
                      void *stream)
{
    (void)stream;
    return FAKE(Memcpy)(dst, src, n, kind);
}

int FAKE(StreamAddCallback)(void *stream, void (*cb)(void *, int, void *),
                            void *arg, unsigned flags)
{
    if (flags != 0)
        return E_INVAL;
    cb(stream, OK, arg);
    return OK;
}

#ifndef FAKE_RT_HIP
int FAKE(LaunchHostFunc)(void *stream, void (*fn)(void *), void *arg)
{
    (void)stream;
    fn(arg);
    return OK;
}
#endif

int FAKE(IpcGetMemHandle)(fake_ipc_t *handle, void *ptr)
{
    fake_ipc_body_t b;
    const char *c = ptr;

    for (int i = 0; i < MAXREG; i++) {
        if (!reg[i].base || reg[i].fd < 0 || c < reg[i].base ||
            (size_t)(c - reg[i].base) >= reg[i].size)
            continue;
        memset(&b, 0, sizeof(b));
        memcpy(b.tag, "fakeipc", 8);
        b.ptr = ptr;
        b.pid = (int32_t)getpid();
        b.fd = reg[i].fd;
        b.off = (uint64_t)(c - reg[i].base);
        b.size = reg[i].size;
        memset(handle, 0, sizeof(*handle));
        memcpy(handle->reserved, &b, sizeof(b));
        return OK;
    }
    return E_INVAL;
}

/* The exporter's process gets its own address back; another process maps
 * the exporter's memfd. */
int FAKE(IpcOpenMemHandle)(void **ptr, fake_ipc_t handle, unsigned flags)
{
    fake_ipc_body_t b;
    char path[64];
    int i, fd;

    memcpy(&b, handle.reserved, sizeof(b));
    if (flags != IPC_FLAGS || memcmp(b.tag, "fakeipc", 8) != 0 ||
        b.off >= b.size)
        return E_INVAL;
    if (b.pid == (int32_t)getpid()) {
        *ptr = b.ptr;
        return OK;
    }
    if ((i = free_slot()) < 0)
        return E_OOM;
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)b.pid, (int)b.fd);
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return E_INVAL;
    reg[i].base = map_shared(fd, b.size);
    close(fd);
    if (!reg[i].base)
        return E_OOM;
    reg[i].size = b.size;
    reg[i].fd = -1;
    reg[i].opened = reg[i].base + b.off;
    *ptr = reg[i].opened;
    return OK;
}

int FAKE(IpcCloseMemHandle)(void *ptr)
{
    for (int i = 0; i < MAXREG; i++) {
        if (reg[i].base && reg[i].fd < 0 && reg[i].opened == ptr) {
            munmap(reg[i].base, reg[i].size);
            reg[i].base = NULL;
            return OK;
        }
    }
    return on_device(ptr, 1) ? OK : E_INVAL; /* the exporter's own */
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

#ifndef FAKE_RT_OLD
/* Mapped host allocations: their address is their device address. */
static struct {
    char *base;
    size_t size;
} host_reg[MAXREG];

int FAKE_HOST_ALLOC(void **ptr, size_t size, unsigned flags)
{
    int i = 0;

    while (i < MAXREG && host_reg[i].base)
        i++;
    if (flags != (HOST_MAPPED | HOST_PORTABLE)) /* what Weft asks for */
        return E_INVAL;
    if (i == MAXREG || size == 0 || size > FAKE_LIMIT ||
        !(host_reg[i].base = aligned_alloc(4096, (size + 4095) & ~4095ul)))
        return E_OOM;
    memset(host_reg[i].base, 0x5a, size); /* not zero: Weft must clear it */
    host_reg[i].size = size;
    *ptr = host_reg[i].base;
    return OK;
}

int FAKE_HOST_FREE(void *ptr)
{
    for (int i = 0; i < MAXREG; i++) {
        if (ptr && host_reg[i].base == ptr) {
            free(ptr);
            host_reg[i].base = NULL;
            return OK;
        }
    }
    return ptr ? E_INVAL : OK;
}

int FAKE(HostGetDevicePointer)(void **device, void *host, unsigned flags)
{
    const char *c = host;

    for (int i = 0; i < MAXREG; i++) {
        if (flags == 0 && host_reg[i].base && c >= host_reg[i].base &&
            (size_t)(c - host_reg[i].base) < host_reg[i].size) {
            *device = host;
            return OK;
        }
    }
    return E_INVAL;
}

/* dim3, by value. */
typedef struct fake_dim3 {
    unsigned x, y, z;
} fake_dim3_t;

static struct {
    const void *func;
    fake_dim3_t grid, block;
    void **args;
    size_t shared;
    void *stream;
} last_launch;

/* What the last launch was given, for tests/gpu/gpu_rt.c (which finds it
 * with dlsym): dims = grid x, y, z, block x, y, z. */
void FAKE(FakeLastLaunch)(const void **func, unsigned dims[6], void ***args,
                          size_t *shared, void **stream)
{
    *func = last_launch.func;
    dims[0] = last_launch.grid.x, dims[1] = last_launch.grid.y;
    dims[2] = last_launch.grid.z, dims[3] = last_launch.block.x;
    dims[4] = last_launch.block.y, dims[5] = last_launch.block.z;
    *args = last_launch.args;
    *shared = last_launch.shared;
    *stream = last_launch.stream;
}

/* Checks what a runtime would check, then cannot run device code. */
int FAKE(LaunchCooperativeKernel)(const void *func, fake_dim3_t grid,
                                  fake_dim3_t block, void **args,
                                  fake_shared_t shared, void *stream)
{
    last_launch.func = func;
    last_launch.grid = grid;
    last_launch.block = block;
    last_launch.args = args;
    last_launch.shared = shared;
    last_launch.stream = stream;
    if (!func)
        return E_INVAL;
    if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z ||
        (size_t)block.x * block.y * block.z > 1024)
        return E_CONFIG;
    return E_DEVICE_FUNCTION;
}
#endif /* FAKE_RT_OLD */
