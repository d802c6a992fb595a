/*
 * Device memory from several threads at SHMEM_THREAD_MULTIPLE: each thread
 * puts its own block into the right neighbour's device heap, gets it back
 * and adds to a device counter of every PE, on the default context and on
 * a context of its own. Run with SHMEM_DEVICE_BACKEND=mock and
 * SHMEM_LOCAL=0, so that the device service serves threads of several PEs
 * at once; skipped without a device heap or without THREAD_MULTIPLE.
 */
#include <pthread.h>
#include <shmem.h>
#include <shmemx.h>

#include "gpu_test.h"

enum { NT = 3, K = 40 };
#define BLOCK ((size_t)200 * 1024 + 13)

static int me, npes, right, left;
static char *dblocks; /* NT blocks in the device heap */
static uint64_t *dctr;

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned char *h = gt_xmalloc(BLOCK), *o = gt_xmalloc(BLOCK);
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    int own = t % 2 == 1 && shmem_ctx_create(0, &ctx) == 0;

    gt_fill(h, BLOCK, me, 20 + t);
    shmem_ctx_putmem(ctx, dblocks + (size_t)t * BLOCK, h, BLOCK, right);
    shmem_ctx_quiet(ctx);
    shmem_ctx_getmem(ctx, o, dblocks + (size_t)t * BLOCK, BLOCK, right);
    CHECK_MSG(gt_diff(o, BLOCK, me, 20 + t) == BLOCK,
              "thread %d: get of its own put", t);
    for (int k = 0; k < K; k++)
        for (int pe = 0; pe < npes; pe++)
            shmem_ctx_uint64_atomic_add(ctx, dctr, 1, pe);
    shmem_ctx_quiet(ctx);
    if (own)
        shmem_ctx_destroy(ctx);
    free(h);
    free(o);
    return NULL;
}

int main(void)
{
    pthread_t th[NT];
    unsigned char *o = gt_xmalloc(BLOCK);
    int provided = 0;
    uint64_t v;

    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    check_set_pe(shmem_my_pe(), NULL);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    dblocks = shmemx_malloc_device(NT * BLOCK);
    dctr = shmemx_malloc_device(8);
    if (!dblocks || !dctr || provided != SHMEM_THREAD_MULTIPLE) {
        if (me == 0)
            printf("%s: skipped\n", !dblocks ? "no device heap (set "
                                               "SHMEM_DEVICE_BACKEND=mock)"
                                             : "no SHMEM_THREAD_MULTIPLE");
        fflush(stdout);
        shmem_finalize();
        return 77;
    }
    shmem_barrier_all();
    for (int t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    shmem_barrier_all();
    for (int t = 0; t < NT; t++) {
        shmem_getmem(o, dblocks + (size_t)t * BLOCK, BLOCK, me);
        CHECK_MSG(gt_diff(o, BLOCK, left, 20 + t) == BLOCK,
                  "block of thread %d of PE %d", t, left);
    }
    v = shmem_uint64_atomic_fetch(dctr, me);
    CHECK_MSG(v == (uint64_t)NT * K * (uint64_t)npes,
              "counter %llu, expected %llu", (unsigned long long)v,
              (unsigned long long)NT * K * (uint64_t)npes);
    free(o);
    shmem_barrier_all();
    shmem_free(dctr);
    shmem_free(dblocks);
    return check_pes_end("device_threads");
}
