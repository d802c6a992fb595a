/*
 * The mock device's kernels (gpu_mock.h): device code compiled as host
 * code, run by one host thread per GPU thread. A launch starts every
 * thread of the grid at once (a cooperative launch: blocks may wait for
 * each other, as device-initiated barriers do), each with its place in the
 * grid in a thread-local shmemd_host_thread_t, and returns when all have
 * returned. Block and warp syncs are barriers among the threads of the
 * caller's block or warp.
 *
 * The threads are all created before any runs the kernel, behind a gate:
 * if one cannot be created, the others leave without running it, so a
 * kernel never runs with part of its grid (a block waiting at a barrier
 * for a thread that does not exist would never return).
 *
 * What it does not model: shared memory (device code compiled as host
 * code keeps its __shared__ variables itself), the warp's lockstep (only
 * the sync), and a GPU's limits on blocks and threads beyond
 * SHMI_GPU_MOCK_MAX_THREADS.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "gpu/gpu.h"
#include "gpu/gpu_mock.h"
#include "services/error.h"

enum {
    MOCK_WARP = 32,
    /* Stack of each kernel thread: device code compiled as host code is
     * shallow, and 4096 threads of the default 8 MiB would reserve 32 GiB
     * of address space. */
    MOCK_KERNEL_STACK = 1 << 20
};

typedef enum gate { GATE_WAIT, GATE_GO, GATE_ABORT } gate_t;

struct mock_launch;

/* One host thread standing in for a GPU thread. */
typedef struct mock_kthread {
    shmemd_host_thread_t id;
    pthread_barrier_t *block_bar; /* its block's */
    pthread_barrier_t *warp_bar;  /* its warp's */
    struct mock_launch *launch;
    pthread_t tid;
} mock_kthread_t;

/* One launch, on the launching thread's stack. */
typedef struct mock_launch {
    void (*fn)(void **args);
    void **args;
    pthread_mutex_t lock;
    pthread_cond_t cond; /* gate left GATE_WAIT */
    gate_t gate;
    unsigned nthreads, nblocks, bthreads, bwarps; /* bthreads: per block */
    unsigned nwarps;
    mock_kthread_t *threads;       /* [nthreads], block by block */
    pthread_barrier_t *block_bars; /* [nblocks] */
    pthread_barrier_t *warp_bars;  /* [nwarps], bwarps per block */
} mock_launch_t;

static __thread mock_kthread_t *mock_self; /* NULL outside a kernel */

const shmemd_host_thread_t *shmi_gpu_mock_thread(void)
{
    return mock_self ? &mock_self->id : NULL;
}

void shmi_gpu_mock_block_sync(void)
{
    if (mock_self)
        pthread_barrier_wait(mock_self->block_bar);
}

void shmi_gpu_mock_warp_sync(void)
{
    if (mock_self)
        pthread_barrier_wait(mock_self->warp_bar);
}

/* Threads per block and blocks, refusing a zero dimension and more than
 * SHMI_GPU_MOCK_MAX_THREADS threads. No product overflows: each step
 * multiplies at most SHMI_GPU_MOCK_MAX_THREADS by one 32-bit value. */
static int launch_dims(mock_launch_t *l, const unsigned grid[3],
                       const unsigned block[3])
{
    uint64_t bthreads = 1, total = 1;

    for (int i = 0; i < 3; i++) {
        if (block[i] == 0 || grid[i] == 0)
            return SHMI_EINVAL;
        bthreads *= block[i];
        total *= block[i];
        if (total > SHMI_GPU_MOCK_MAX_THREADS)
            return SHMI_EINVAL;
    }
    for (int i = 0; i < 3; i++) {
        total *= grid[i];
        if (total > SHMI_GPU_MOCK_MAX_THREADS)
            return SHMI_EINVAL;
    }
    l->bthreads = (unsigned)bthreads;
    l->nthreads = (unsigned)total;
    l->nblocks = l->nthreads / l->bthreads;
    l->bwarps = (l->bthreads + MOCK_WARP - 1) / MOCK_WARP;
    l->nwarps = l->nblocks * l->bwarps;
    return 0;
}

/* Thread t's place: x fastest, in the thread's block and in the grid. */
static void launch_place(mock_launch_t *l, unsigned t, const unsigned grid[3],
                         const unsigned block[3])
{
    mock_kthread_t *k = &l->threads[t];
    unsigned b = t / l->bthreads, r = t % l->bthreads, w = r / MOCK_WARP;

    for (int i = 0; i < 3; i++) {
        k->id.bdim[i] = block[i];
        k->id.gdim[i] = grid[i];
    }
    k->id.thread[0] = r % block[0];
    k->id.thread[1] = r / block[0] % block[1];
    k->id.thread[2] = r / (block[0] * block[1]);
    k->id.block[0] = b % grid[0];
    k->id.block[1] = b / grid[0] % grid[1];
    k->id.block[2] = b / (grid[0] * grid[1]);
    k->block_bar = &l->block_bars[b];
    k->warp_bar = &l->warp_bars[b * l->bwarps + w];
    k->launch = l;
}

static void launch_free(mock_launch_t *l, unsigned block_bars,
                        unsigned warp_bars)
{
    while (warp_bars > 0)
        pthread_barrier_destroy(&l->warp_bars[--warp_bars]);
    while (block_bars > 0)
        pthread_barrier_destroy(&l->block_bars[--block_bars]);
    free(l->warp_bars);
    free(l->block_bars);
    free(l->threads);
}

/* The threads' places and the barriers of every block and warp. */
static int launch_setup(mock_launch_t *l, const unsigned grid[3],
                        const unsigned block[3])
{
    unsigned b = 0, w = 0;

    l->threads = calloc(l->nthreads, sizeof(*l->threads));
    l->block_bars = calloc(l->nblocks, sizeof(*l->block_bars));
    l->warp_bars = calloc(l->nwarps, sizeof(*l->warp_bars));
    if (!l->threads || !l->block_bars || !l->warp_bars)
        goto out_free;
    for (; b < l->nblocks; b++)
        if (pthread_barrier_init(&l->block_bars[b], NULL, l->bthreads))
            goto out_free;
    for (; w < l->nwarps; w++) {
        unsigned first = w % l->bwarps * MOCK_WARP;
        unsigned size = l->bthreads - first;

        if (pthread_barrier_init(&l->warp_bars[w], NULL,
                                 size < MOCK_WARP ? size : MOCK_WARP))
            goto out_free;
    }
    for (unsigned t = 0; t < l->nthreads; t++)
        launch_place(l, t, grid, block);
    return 0;
out_free:
    launch_free(l, b, w);
    return SHMI_ENOMEM;
}

static void *kthread_main(void *arg)
{
    mock_kthread_t *k = arg;
    mock_launch_t *l = k->launch;
    gate_t gate;

    pthread_mutex_lock(&l->lock);
    while (l->gate == GATE_WAIT)
        pthread_cond_wait(&l->cond, &l->lock);
    gate = l->gate;
    pthread_mutex_unlock(&l->lock);
    if (gate == GATE_GO) {
        mock_self = k;
        l->fn(l->args);
        mock_self = NULL;
    }
    return NULL;
}

static void launch_open_gate(mock_launch_t *l, gate_t gate)
{
    pthread_mutex_lock(&l->lock);
    l->gate = gate;
    pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&l->lock);
}

/* Starts every thread behind the gate, then opens it (or, when one cannot
 * be started, sends the others away), and joins them all. */
static int launch_run(mock_launch_t *l)
{
    pthread_attr_t attr;
    unsigned started = 0;
    int ret = 0;

    if (pthread_attr_init(&attr) != 0)
        return SHMI_ENOMEM;
    pthread_attr_setstacksize(&attr, MOCK_KERNEL_STACK);
    for (; started < l->nthreads; started++) {
        mock_kthread_t *k = &l->threads[started];

        if (pthread_create(&k->tid, &attr, kthread_main, k) != 0) {
            ret = SHMI_ENOMEM;
            break;
        }
    }
    pthread_attr_destroy(&attr);
    if (ret == 0)
        shmi_gpu_mock_kernel_begin();
    launch_open_gate(l, ret == 0 ? GATE_GO : GATE_ABORT);
    for (unsigned t = 0; t < started; t++)
        pthread_join(l->threads[t].tid, NULL);
    if (ret == 0)
        shmi_gpu_mock_kernel_end();
    return ret;
}

int shmi_gpu_mock_launch(const void *func, const unsigned grid[3],
                         const unsigned block[3], void **args,
                         size_t shared_bytes, void *stream)
{
    mock_launch_t l = {.fn = (void (*)(void **))func,
                       .args = args,
                       .lock = PTHREAD_MUTEX_INITIALIZER,
                       .cond = PTHREAD_COND_INITIALIZER,
                       .gate = GATE_WAIT};
    int ret;

    (void)shared_bytes;
    if (!func || launch_dims(&l, grid, block) != 0)
        return SHMI_EINVAL;
    /* The kernel runs after the work enqueued before it, as on a GPU. */
    if ((ret = shmi_gpu_mock_stream_sync(stream)) != 0)
        return ret;
    if ((ret = launch_setup(&l, grid, block)) != 0)
        return ret;
    ret = launch_run(&l);
    launch_free(&l, l.nblocks, l.nwarps);
    return ret;
}
