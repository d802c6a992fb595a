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
 *
 * Skipped (77) when the back end is not built into this library.
 */
#include "config.h"

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
