/*
 * The device back ends on their own, without PEs.
 *
 *   gpu_backend mock   every operation of the mock device, including that a
 *                      host dereference of device memory faults, that a
 *                      second process imports an allocation through IPC
 *                      and that the DMA view (what the fabric registers)
 *                      reads and writes the same memory
 *   gpu_backend cuda|hip
 *                      the real runtime: without a device, a clean "no GPU
 *                      device" skip (exit 77), never a crash
 */
#include "config.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "gpu/gpu_mock.h"
#include "services/error.h"
#include "tests/common/check.h"

enum { N = 1 << 16 };

static void check_copies(const shmi_gpu_ops_t *g, char *dev)
{
    static char in[N], out[N];

    for (int i = 0; i < N; i++)
        in[i] = (char)(i * 7 + 3);
    CHECK_MSG(g->copy(dev, in, N, SHMI_GPU_H2D) == 0, "H2D copy");
    CHECK_MSG(g->copy(dev + N, dev, N, SHMI_GPU_D2D) == 0, "D2D copy");
    CHECK_MSG(g->copy(out, dev + N, N, SHMI_GPU_D2H) == 0, "D2H copy");
    CHECK_MSG(memcmp(in, out, N) == 0, "data survives H2D, D2D, D2H");
    CHECK_MSG(g->copy(out, in, N, SHMI_GPU_H2D) != 0,
              "a copy to host memory named as device memory is refused");
}

static void check_atomics(const shmi_gpu_ops_t *g, char *dev)
{
    uint64_t one = 1, v = 0, cmp = 41, nw = 99, old = 0;
    uint64_t *word = (uint64_t *)(dev + 2 * N);

    CHECK_MSG(g->copy(word, &v, 8, SHMI_GPU_H2D) == 0, "zero the word");
    if (g->atomic(word, SHMI_AMO_FETCH, SHMI_DT_UINT64, NULL, NULL, &old) ==
        SHMI_ENOTSUP) {
        printf("%s: host-initiated device atomics not supported\n", g->name);
        return;
    }
    for (int i = 0; i < 41; i++)
        CHECK_MSG(g->atomic(word, SHMI_AMO_ADD, SHMI_DT_UINT64, &one, NULL,
                            NULL) == 0,
                  "atomic add");
    CHECK_MSG(
        g->atomic(word, SHMI_AMO_CSWAP, SHMI_DT_UINT64, &nw, &cmp, &old) == 0 &&
            old == 41,
        "compare-swap sees 41 (got %lu)", (unsigned long)old);
    CHECK_MSG(g->copy(&v, word, 8, SHMI_GPU_D2H) == 0 && v == 99,
              "word is 99 after the swap (got %lu)", (unsigned long)v);
}

/* A child dereferences device memory from the host: it must fault. */
static void check_host_access_faults(char *dev)
{
    pid_t pid = fork();
    int status = 0;

    if (pid == 0) {
        volatile char c = dev[0];
        (void)c;
        _exit(0);
    }
    waitpid(pid, &status, 0);
    CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
              "host dereference of mock device memory faults (status %d)",
              status);
}

/* The DMA view: the same pages, read-write for whoever holds it, while the
 * device address still faults; one view per allocation. */
static void check_dma_view(const shmi_gpu_ops_t *g, char *dev)
{
    char *view = NULL, *again = NULL, out[8] = "";

    CHECK_MSG(shmi_gpu_mock_dma_view(dev, 3 * N, (void **)&view) == 0 && view &&
                  view != dev,
              "DMA view of the allocation");
    if (!view)
        return;
    memcpy(view + N, "via dma", 8);
    CHECK_MSG(g->copy(out, dev + N, 8, SHMI_GPU_D2H) == 0 &&
                  memcmp(out, "via dma", 8) == 0,
              "a write through the DMA view is device memory's content");
    CHECK_MSG(g->copy(dev + 2 * N, "via dev", 8, SHMI_GPU_H2D) == 0 &&
                  memcmp(view + 2 * N, "via dev", 8) == 0,
              "a device write is seen through the DMA view");
    CHECK_MSG(shmi_gpu_mock_dma_view(dev, 3 * N, (void **)&again) == 0 &&
                  again == view,
              "one view per allocation");
    CHECK_MSG(shmi_gpu_mock_dma_view(dev + 1, 8, (void **)&again) != 0,
              "no view of a part of an allocation");
    check_host_access_faults(dev);
}

/* A child imports the allocation and writes through it; we read it back. */
static void check_ipc(const shmi_gpu_ops_t *g, char *dev)
{
    shmi_gpu_ipc_t h;
    pid_t pid;
    int status = 0;
    char msg[16] = "", expect[16] = "from the child";

    CHECK_MSG(g->ipc_export(dev, 3 * N, &h) == 0, "ipc export");
    pid = fork();
    if (pid == 0) {
        void *peer = NULL;
        int bad = g->ipc_import(&h, 3 * N, &peer) != 0 ||
                  g->copy(peer, expect, sizeof(expect), SHMI_GPU_H2D) != 0 ||
                  g->ipc_close(peer, 3 * N) != 0;
        _exit(bad);
    }
    waitpid(pid, &status, 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "child imported the allocation");
    CHECK_MSG(g->copy(msg, dev, sizeof(msg), SHMI_GPU_D2H) == 0 &&
                  memcmp(msg, expect, sizeof(msg)) == 0,
              "the child's write is visible to the owner");
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "mock";
    const shmi_gpu_ops_t *g = shmi_gpu_backend(name);
    char *dev = NULL;
    int count = -1, ret;

    if (!g) {
        printf("%s back end not built into this library: skipped\n", name);
        return 77;
    }
    ret = g->probe(&count);
    if (ret == SHMI_ENODEV) {
        printf("no GPU device (%s back end): skipped\n", name);
        return 77;
    }
    CHECK_MSG(ret == 0 && count > 0, "probe (ret %d, count %d)", ret, count);
    CHECK_MSG(g->select(shmi_gpu_choose_device(count, 0, -1)) == 0, "select");
    CHECK_MSG(g->alloc(3 * N, (void **)&dev) == 0 && dev, "alloc");
    if (!dev)
        return 1;
    CHECK_MSG(g->is_device(dev) && !g->is_device(&count), "is_device");
    check_copies(g, dev);
    check_atomics(g, dev);
    if (strcmp(name, "mock") == 0) {
        check_host_access_faults(dev);
        check_ipc(g, dev);
        check_dma_view(g, dev);
    }
    CHECK_MSG(g->free(dev) == 0, "free");
    printf("%s: %s\n", name, check_failures() ? "FAILED" : "ok");
    return check_failures() ? 1 : 0;
}
