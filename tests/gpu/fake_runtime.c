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
