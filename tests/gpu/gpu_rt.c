/*
 * The runtime-API back end (src/gpu/gpu_runtime.c) with its cuda and hip
 * tables, against the stand-in runtime of tests/gpu/fake_runtime.c:
 *
 *   LD_LIBRARY_PATH=$B/tests/gpu/fakert/.libs gpu_rt cuda|hip
 *       every entry point; the stand-in refuses a wrong memcpy kind, IPC
 *       flag or memory type, so this also checks the table's constants
 *   FAKE_RT_NODEV=1 ... gpu_rt cuda|hip
 *       the runtime reports no device (CUDA error 35, HIP error 100):
 *       probe must say SHMI_ENODEV, the "no GPU device" of the smoke tests
 *   FAKE_RT_OLD=1 LD_LIBRARY_PATH=$B/tests/gpu/fakert_old/.libs gpu_rt cuda
 *       a runtime without the entry points of host_alloc and launch (the
 *       stand-in built with FAKE_RT_OLD) still loads; those members say
 *       SHMI_ENOTSUP
 *
 * Skipped (77) when the back end is not built into this library.
 */
#include "config.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "services/error.h"

static int failures;

/* Counts a failure and names it when ok is 0. */
static void check(int ok, const char *fmt, ...)
{
    va_list ap;

    if (ok)
        return;
    failures++;
    fputs("FAIL gpu_rt: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

enum { N = 4096 };

static void check_memory(const shmi_gpu_ops_t *g, char *d)
{
    static char in[N], out[N], zero[N];
    void *huge = NULL;
    uint64_t v = 0;

    check(g->is_device(d) && g->is_device(d + N - 1) && !g->is_device(in),
          "is_device");
    check(g->copy(out, d, N, SHMI_GPU_D2H) == 0 && memcmp(out, zero, N) == 0,
          "new device memory reads as zero");
    for (int i = 0; i < N; i++)
        in[i] = (char)(i * 13 + 1);
    check(g->copy(d, in, N / 2, SHMI_GPU_H2D) == 0, "H2D");
    check(g->copy(d + N / 2, d, N / 2, SHMI_GPU_D2D) == 0, "D2D");
    check(g->copy(out, d + N / 2, N / 2, SHMI_GPU_D2H) == 0 &&
              memcmp(out, in, N / 2) == 0,
          "data survives H2D, D2D, D2H");
    check(g->copy(out, in, 8, SHMI_GPU_H2D) == SHMI_EIO,
          "host memory named as device memory: SHMI_EIO");
    check(g->alloc((size_t)1 << 40, &huge) == SHMI_ENOMEM && huge == NULL,
          "an allocation past the device's memory: SHMI_ENOMEM");
    check(g->atomic(d, SHMI_AMO_FETCH, SHMI_DT_UINT64, NULL, NULL, &v) ==
              SHMI_ENOTSUP,
          "no host-initiated device atomics");
}

static void check_ipc(const shmi_gpu_ops_t *g, char *d)
{
    shmi_gpu_ipc_t h;
    void *peer = NULL;

    check(g->ipc_export(d, N, &h) == 0, "ipc export");
    check(g->ipc_import(&h, N, &peer) == 0 && peer == d,
          "ipc import (with the runtime's open flags)");
    check(peer && g->ipc_close(peer, N) == 0, "ipc close");
}

/* Mapped host memory: cleared by Weft (the stand-in fills it with 0x5a),
 * writable, at the same device address (the stand-in's), not device
 * memory; only what host_alloc gave is freed. */
static void check_host_alloc(const shmi_gpu_ops_t *g, int old)
{
    static char not_mapped[8];
    char *h = NULL, *d = NULL;
    size_t nonzero = 0;
    int ret = g->host_alloc(N, (void **)&h, (void **)&d);

    if (old) {
        check(ret == SHMI_ENOTSUP && !h,
              "host_alloc without the runtime's entry points: SHMI_ENOTSUP "
              "(ret %d)",
              ret);
        return;
    }
    check(ret == 0 && h && d == h, "host_alloc (ret %d)", ret);
    if (!h)
        return;
    for (int i = 0; i < N; i++)
        nonzero += h[i] != 0;
    check(nonzero == 0, "host_alloc memory reads as zero (%zu bytes not)",
          nonzero);
    memset(h, 7, N);
    check(!g->is_device(h), "mapped host memory is not device memory");
    check(g->host_alloc(0, (void **)&h, (void **)&d) == SHMI_EINVAL,
          "host_alloc of 0 bytes: SHMI_EINVAL");
    check(g->host_free(h) == 0, "host_free");
    check(g->host_free(not_mapped) == SHMI_EIO,
          "host_free of memory host_alloc did not give: SHMI_EIO");
    check(g->host_free(NULL) == 0, "host_free(NULL)");
}

/* What the stand-in's last launch was given (its FakeLastLaunch). */
static void check_last_launch(const char *name, const void *func,
                              const unsigned grid[3], const unsigned block[3],
                              void **args, size_t shared, void *stream)
{
    int cuda = strcmp(name, "cuda") == 0;
    void *h = dlopen(cuda ? "libcudart.so" : "libamdhip64.so",
                     RTLD_NOW | RTLD_NOLOAD);
    void (*last)(const void **, unsigned[6], void ***, size_t *, void **);
    const void *f = NULL;
    unsigned dims[6] = {0};
    void **a = NULL, *s = NULL;
    size_t sh = 0;
    void *sym =
        h ? dlsym(h, cuda ? "cudaFakeLastLaunch" : "hipFakeLastLaunch") : NULL;

    check(sym != NULL, "the stand-in's FakeLastLaunch");
    if (!sym)
        goto out_close;
    memcpy(&last, &sym, sizeof(last));
    last(&f, dims, &a, &sh, &s);
    check(f == func && a == args && sh == shared && s == stream &&
              memcmp(dims, grid, 3 * sizeof(unsigned)) == 0 &&
              memcmp(dims + 3, block, 3 * sizeof(unsigned)) == 0,
          "the launch's arguments reach the runtime (grid %u %u %u, block %u "
          "%u %u, shared %zu)",
          dims[0], dims[1], dims[2], dims[3], dims[4], dims[5], sh);
out_close:
    if (h)
        dlclose(h); /* RTLD_NOLOAD counted a reference */
}

/* The stand-in cannot run device code: a launch fails cleanly, with the
 * arguments passed as the runtime takes them (dim3 by value). */
static void check_launch(const shmi_gpu_ops_t *g, const char *name, int old)
{
    static const char kernel; /* what the runtime cannot run */
    static const unsigned grid[3] = {3, 2, 1}, block[3] = {40, 1, 2};
    static const unsigned big[3] = {2048, 1, 1};
    long value = 42;
    void *args[] = {&value}, *stream = NULL;
    int ret;

    check(g->stream_create(&stream) == 0, "stream_create");
    ret = g->launch(&kernel, grid, block, args, 4096, stream);
    if (old) {
        check(ret == SHMI_ENOTSUP,
              "launch without the runtime's entry point: SHMI_ENOTSUP");
    } else {
        check(ret == SHMI_EINVAL,
              "a launch of a function the runtime cannot run (invalid "
              "device function): SHMI_EINVAL (ret %d)",
              ret);
        check_last_launch(name, &kernel, grid, block, args, 4096, stream);
        check(g->launch(&kernel, grid, big, args, 0, NULL) == SHMI_EINVAL,
              "a launch of too large blocks (invalid configuration): "
              "SHMI_EINVAL");
        check_last_launch(name, &kernel, grid, big, args, 0, NULL);
    }
    if (strcmp(name, "hip") == 0 && !old)
        check(g->launch(&kernel, grid, block, args, (size_t)UINT_MAX + 1,
                        NULL) == SHMI_EINVAL,
              "hip: more shared memory than an unsigned int: SHMI_EINVAL");
    check(stream && g->stream_destroy(stream) == 0, "stream_destroy");
}

/* One GPU runtime per process: the other one's probe finds no device. */
static void check_other(const char *name)
{
    const shmi_gpu_ops_t *o =
        shmi_gpu_backend(strcmp(name, "cuda") == 0 ? "hip" : "cuda");
    int count = -1;

    if (o)
        check(o->probe(&count) == SHMI_ENODEV && count == 0,
              "second runtime in one process: no device");
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "cuda";
    const char *nodev = getenv("FAKE_RT_NODEV");
    const char *old = getenv("FAKE_RT_OLD");
    const shmi_gpu_ops_t *g = shmi_gpu_backend(name);
    shmi_gpu_hmem_t hm;
    char *d = NULL;
    int count = -1, ret;

    if (!g) {
        printf("%s back end not built into this library: skipped\n", name);
        return 77;
    }
    ret = g->probe(&count);
    if (nodev && nodev[0] == '1') {
        check(ret == SHMI_ENODEV && count == 0, "probe without a device");
        printf("%s: no GPU device: %s\n", name, failures ? "FAILED" : "ok");
        return failures ? 1 : 0;
    }
    check(ret == 0 && count == 2,
          "probe (ret %d, count %d; LD_LIBRARY_PATH must name the stand-in "
          "runtime, tests/gpu/fakert/.libs)",
          ret, count);
    if (ret != 0)
        return 1;
    check(g->select(5) != 0, "select of a device that does not exist");
    check(g->select(1) == 0, "select");
    check(g->alloc(N, (void **)&d) == 0 && d, "alloc");
    if (!d)
        return 1;
    check_memory(g, d);
    check_ipc(g, d);
    check_host_alloc(g, old && old[0] == '1');
    check_launch(g, name, old && old[0] == '1');
    hm = g->hmem();
    check(hm.kind ==
                  (strcmp(name, "cuda") == 0 ? SHMI_MEM_CUDA : SHMI_MEM_ROCM) &&
              hm.device == 1,
          "hmem (kind %d, device %d)", (int)hm.kind, hm.device);
    check_other(name);
    check(g->free(d) == 0, "free");
    printf("%s: %s\n", name, failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
