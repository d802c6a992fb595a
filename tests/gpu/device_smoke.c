/*
 * Smoke test of a real device back end through shmem_init:
 *   SHMEM_DEVICE_BACKEND=cuda|hip oshrun -n 2 device_smoke
 * Without a GPU the library runs without a device heap and this test skips
 * ("no GPU device: skipped", exit 77). With one, it allocates device memory,
 * moves a buffer around the ring of PEs and checks it.
 */
#include "config.h"

#include "core/device_mem.h"
#include "core/heap/device_heap.h"
#include "core/segment.h"
#include "shmem.h"
#include "shmemx.h"
#include "tests/gpu/device_transport.h"

#include "gpu_test.h"

#define N 65536

int main(void)
{
    static unsigned char h[N], o[N];
    const shmi_gpu_ops_t *g;
    int me, right, left;
    size_t off = 0;
    char *d;

    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    me = shmem_my_pe();
    right = (me + 1) % shmem_n_pes();
    left = (me + shmem_n_pes() - 1) % shmem_n_pes();
    g = shmi_device_backend();
    d = shmemx_malloc_device(2 * N);
    if (!g) {
        CHECK_MSG(d == NULL, "no device heap, yet a device block");
        if (me == 0)
            printf("no GPU device: skipped\n");
        fflush(stdout);
        shmem_finalize();
        return check_failures() ? 1 : 77;
    }
    CHECK_MSG(d && shmi_seg_lookup(d, 1, &off) == SHMI_SEG_DEVICE,
              "device block on %s %d", g->name, shmi_device_ordinal());
    gt_fill(h, N, me, 0);
    CHECK_MSG(g->copy(d, h, N, SHMI_GPU_H2D) == 0, "H2D");
    shmem_barrier_all();
    CHECK_MSG(gt_dev_put(SHMEM_CTX_DEFAULT, right,
                              SHMI_SEG_DEVICE, off + N, d, N, 0) == 0,
              "device put");
    shmem_barrier_all();
    CHECK_MSG(g->copy(o, d + N, N, SHMI_GPU_D2H) == 0, "D2H");
    CHECK_MSG(gt_diff(o, N, left, 0) == N, "data from the left PE");
    shmem_free(d);
    return check_pes_end("device_smoke");
}
