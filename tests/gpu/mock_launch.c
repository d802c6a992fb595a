/*
 * The mock device's kernels (src/gpu/gpu_mock_launch.c), without PEs:
 * device code compiled as host code, run by one host thread per GPU
 * thread.
 *
 *   every (block, thread) of a grid runs once, with its indices
 *   block sync separates phases; warp sync holds within a warp only
 *   (warps of 32 and 8 in a block of 40, of 32 and 16 in an 8x3x2 block)
 *   kernel threads load, store and use atomics on device memory directly
 *   (own, imported, allocated during the kernel, while copies, atomics
 *   and a stream run), and it faults again afterwards, also when two
 *   kernels overlap
 *   the launch waits for its stream; bad dimensions are SHMI_EINVAL
 *   host_alloc memory is zeroed, aligned and writable
 *
 * A hang (a sync waiting for threads that never come) ends the program
 * through an alarm, as a failure.
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "gpu/gpu_mock.h"
#include "services/error.h"
#include "tests/common/check.h"

enum { ROUNDS = 40, WARP = 32, HANG_SECONDS = 100 };

static const shmi_gpu_ops_t *g;

typedef void kernel_t(void **args);

static int launch(kernel_t *kernel, const unsigned grid[3],
                  const unsigned block[3], void **args, void *stream)
{
    return g->launch((const void *)kernel, grid, block, args, 0, stream);
}

static unsigned linear(const unsigned v[3], const unsigned dim[3])
{
    return v[0] + dim[0] * (v[1] + dim[1] * v[2]);
}

static unsigned count(const unsigned dim[3])
{
    return dim[0] * dim[1] * dim[2];
}

/* The calling kernel thread's rank in its block, block in the grid and
 * threads per block. */
static const shmemd_host_thread_t *self(unsigned *rank, unsigned *blk,
                                        unsigned *bthreads)
{
    const shmemd_host_thread_t *t = shmi_gpu_mock_thread();

    if (!CHECK(t != NULL))
        abort();
    *rank = linear(t->thread, t->bdim);
    *blk = linear(t->block, t->gdim);
    *bthreads = count(t->bdim);
    return t;
}

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, us % 1000000 * 1000};

    nanosleep(&ts, NULL);
}

/* ---- indices ---------------------------------------------------------- */

typedef struct grid_rec {
    const unsigned *grid, *block;
    unsigned *hits; /* [blocks * threads per block] */
} grid_rec_t;

static void k_indices(void **args)
{
    grid_rec_t *r = args[0];
    unsigned rank, blk, n;
    const shmemd_host_thread_t *t = self(&rank, &blk, &n);

    for (int i = 0; i < 3; i++)
        CHECK_MSG(t->bdim[i] == r->block[i] && t->gdim[i] == r->grid[i] &&
                      t->thread[i] < t->bdim[i] && t->block[i] < t->gdim[i],
                  "dimension %d: thread %u of %u, block %u of %u", i,
                  t->thread[i], t->bdim[i], t->block[i], t->gdim[i]);
    __atomic_fetch_add(&r->hits[blk * n + rank], 1, __ATOMIC_RELAXED);
}

static void check_indices(unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                          unsigned by, unsigned bz)
{
    const unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
    unsigned total = count(grid) * count(block), wrong = 0;
    grid_rec_t r = {grid, block, calloc(total, sizeof(unsigned))};
    void *args[] = {&r};
    int ret;

    if (!r.hits)
        abort();
    ret = launch(k_indices, grid, block, args, NULL);
    CHECK_MSG(ret == 0, "launch %ux%ux%u x %ux%ux%u (ret %d)", gx, gy, gz, bx,
              by, bz, ret);
    for (unsigned i = 0; i < total; i++)
        wrong += r.hits[i] != 1;
    CHECK_MSG(wrong == 0,
              "%ux%ux%u x %ux%ux%u: %u of %u (block, thread) pairs did not "
              "run exactly once",
              gx, gy, gz, bx, by, bz, wrong, total);
    free(r.hits);
}

/* ---- block and warp sync ---------------------------------------------- */

static unsigned slot_value(unsigned blk, unsigned rank, unsigned round)
{
    return blk * 100000 + rank * 100 + round + 1;
}

/* Each round: write the own slot, sync, read the neighbour's, sync. Some
 * threads are late to write, so without the sync the reads race. */
static void k_block_phases(void **args)
{
    unsigned *slots = args[0];
    unsigned rank, blk, n;

    self(&rank, &blk, &n);
    slots += blk * n;
    for (unsigned round = 0; round < ROUNDS; round++) {
        unsigned next = (rank + 1) % n, got;

        if ((rank + round) % 7 == 0)
            sleep_us(200);
        __atomic_store_n(&slots[rank], slot_value(blk, rank, round),
                         __ATOMIC_RELAXED);
        shmi_gpu_mock_block_sync();
        got = __atomic_load_n(&slots[next], __ATOMIC_RELAXED);
        CHECK_MSG(got == slot_value(blk, next, round),
                  "block %u, thread %u, round %u: neighbour's slot %u", blk,
                  rank, round, got);
        shmi_gpu_mock_block_sync();
    }
}

static void check_block_sync(void)
{
    static const unsigned grid[3] = {3, 1, 1}, block[3] = {40, 1, 1};
    static unsigned slots[3 * 40];
    void *args[] = {slots};

    CHECK(launch(k_block_phases, grid, block, args, NULL) == 0);
}

typedef struct warp_rec {
    unsigned *slots; /* [blocks * threads per block] */
    int *last_done;  /* [blocks]: the block's last warp ended its rounds */
} warp_rec_t;

static void warp_rounds(unsigned *slots, unsigned blk, unsigned rank,
                        unsigned n)
{
    unsigned first = rank / WARP * WARP;
    unsigned size = n - first < WARP ? n - first : WARP;
    unsigned next = first + (rank - first + 1) % size;

    for (unsigned round = 0; round < ROUNDS; round++) {
        unsigned got;

        if ((rank + round) % 5 == 0)
            sleep_us(100);
        __atomic_store_n(&slots[rank], slot_value(blk, rank, round),
                         __ATOMIC_RELAXED);
        shmi_gpu_mock_warp_sync();
        got = __atomic_load_n(&slots[next], __ATOMIC_RELAXED);
        CHECK_MSG(got == slot_value(blk, next, round),
                  "block %u, thread %u (warp of %u), round %u: neighbour %u "
                  "holds %u",
                  blk, rank, size, round, next, got);
        shmi_gpu_mock_warp_sync();
    }
}

/* The block's last warp runs its rounds while the others wait for it:
 * a warp sync that waited for the whole block would never return. */
static void k_warp_phases(void **args)
{
    warp_rec_t *w = args[0];
    unsigned rank, blk, n;

    self(&rank, &blk, &n);
    if (rank / WARP == (n - 1) / WARP) {
        warp_rounds(w->slots + blk * n, blk, rank, n);
        __atomic_store_n(&w->last_done[blk], 1, __ATOMIC_RELEASE);
    } else {
        while (!__atomic_load_n(&w->last_done[blk], __ATOMIC_ACQUIRE))
            sleep_us(50);
        warp_rounds(w->slots + blk * n, blk, rank, n);
    }
    shmi_gpu_mock_block_sync();
}

static void check_warp_sync(unsigned gx, unsigned bx, unsigned by, unsigned bz)
{
    const unsigned grid[3] = {gx, 1, 1}, block[3] = {bx, by, bz};
    warp_rec_t w = {calloc(gx * count(block), sizeof(unsigned)),
                    calloc(gx, sizeof(int))};
    void *args[] = {&w};

    if (!w.slots || !w.last_done)
        abort();
    CHECK_MSG(launch(k_warp_phases, grid, block, args, NULL) == 0,
              "warp sync in %u blocks of %ux%ux%u", gx, bx, by, bz);
    free(w.slots);
    free(w.last_done);
}

/* ---- device memory ---------------------------------------------------- */

enum { DEV_WORDS = 4096, IMP_OFF = 1024, COPY_OFF = 2048, CTR = 3000 };

typedef struct devmem {
    uint64_t *dev;         /* own allocation, DEV_WORDS words */
    uint64_t *imp;         /* the same memory imported through IPC */
    uint64_t *fresh;       /* allocated by thread 0 during the kernel */
    unsigned char *mapped; /* host_alloc memory */
    void *stream;
} devmem_t;

static const uint64_t copied[4] = {11, 22, 33, 44};

/* Thread 0 uses the back end while the kernel runs: none of it may close
 * the windows the other threads use. */
static void devmem_backend_calls(devmem_t *m)
{
    uint64_t one = 1, fetched = 0;

    CHECK(g->alloc(4096, (void **)&m->fresh) == 0);
    m->fresh[0] = 77;
    CHECK(g->copy(m->dev + COPY_OFF, copied, sizeof(copied), SHMI_GPU_H2D) ==
          0);
    CHECK(g->atomic(m->dev + CTR, SHMI_AMO_FETCH_ADD, SHMI_DT_UINT64, &one,
                    NULL, &fetched) == 0);
    CHECK(g->stream_copy(m->dev + COPY_OFF + 4, copied, sizeof(copied),
                         SHMI_GPU_H2D, m->stream) == 0 &&
          g->stream_sync(m->stream) == 0);
}

static void k_devmem(void **args)
{
    devmem_t *m = args[0];
    unsigned rank, blk, n, gid;

    self(&rank, &blk, &n);
    gid = blk * n + rank;
    if (gid == 0)
        devmem_backend_calls(m);
    shmi_gpu_mock_block_sync();
    m->dev[gid] = gid * 3 + 1;
    m->imp[IMP_OFF + gid] = gid * 5 + 2;
    __atomic_fetch_add(&m->dev[CTR], 1, __ATOMIC_RELAXED);
    m->mapped[gid] = 1;
    shmi_gpu_mock_block_sync();
    CHECK_MSG(m->dev[IMP_OFF + gid] == gid * 5 + 2,
              "thread %u: a store through the import seen in the allocation",
              gid);
    if (gid == 0)
        CHECK(m->dev[COPY_OFF + 1] == 22 && m->dev[COPY_OFF + 7] == 44);
}

/* A child dereferences p from the host: it must fault. */
static void check_faults(const void *p, const char *what)
{
    pid_t pid = fork();
    int status = 0;

    if (pid == 0) {
        volatile const char *c = p;

        (void)c[0];
        _exit(0);
    }
    waitpid(pid, &status, 0);
    CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
              "host load of %s faults (status %d)", what, status);
}

/* After the kernel, through the back end's copies. */
static void devmem_verify(devmem_t *m, unsigned threads)
{
    static uint64_t out[DEV_WORDS];
    uint64_t fresh0 = 0;
    unsigned bad = 0;

    CHECK(g->copy(out, m->dev, sizeof(out), SHMI_GPU_D2H) == 0);
    for (unsigned i = 0; i < threads; i++)
        bad += out[i] != i * 3 + 1 || out[IMP_OFF + i] != i * 5 + 2 ||
               m->mapped[i] != 1;
    CHECK_MSG(bad == 0, "%u threads' direct stores missing", bad);
    CHECK_MSG(out[CTR] == threads + 1, "atomic counter %lu, expected %u",
              (unsigned long)out[CTR], threads + 1);
    CHECK(memcmp(out + COPY_OFF, copied, sizeof(copied)) == 0 &&
          memcmp(out + COPY_OFF + 4, copied, sizeof(copied)) == 0);
    CHECK(m->fresh && g->copy(&fresh0, m->fresh, 8, SHMI_GPU_D2H) == 0 &&
          fresh0 == 77);
}

static void check_device_memory(void)
{
    static const unsigned grid[3] = {3, 1, 1}, block[3] = {40, 1, 1};
    devmem_t m = {0};
    shmi_gpu_ipc_t h;
    void *mapped_dev = NULL, *args[] = {&m};

    if (!CHECK(g->alloc(DEV_WORDS * 8, (void **)&m.dev) == 0) ||
        !CHECK(g->ipc_export(m.dev, DEV_WORDS * 8, &h) == 0) ||
        !CHECK(g->ipc_import(&h, DEV_WORDS * 8, (void **)&m.imp) == 0) ||
        !CHECK(g->host_alloc(120, (void **)&m.mapped, &mapped_dev) == 0) ||
        !CHECK(g->stream_create(&m.stream) == 0))
        return;
    check_faults(m.dev, "device memory before the kernel");
    CHECK(launch(k_devmem, grid, block, args, NULL) == 0);
    devmem_verify(&m, 120);
    check_faults(m.dev, "device memory after the kernel");
    check_faults(m.imp, "an imported mapping after the kernel");
    if (m.fresh)
        check_faults(m.fresh, "memory allocated during the kernel");
    CHECK(g->stream_destroy(m.stream) == 0);
    CHECK(g->host_free(m.mapped) == 0);
    CHECK(!m.fresh || g->free(m.fresh) == 0);
    CHECK(g->ipc_close(m.imp, DEV_WORDS * 8) == 0);
    CHECK(g->free(m.dev) == 0);
}

/* ---- overlapping kernels ---------------------------------------------- */

typedef struct overlap {
    uint64_t *dev;
    int started, short_done;
} overlap_t;

/* Stores to device memory after another kernel, started and ended while
 * this one ran, has ended: the memory stays open until the last ends. */
static void k_long(void **args)
{
    overlap_t *o = args[0];

    __atomic_store_n(&o->started, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&o->short_done, __ATOMIC_ACQUIRE))
        sleep_us(100);
    o->dev[1] = 2;
}

static void k_short(void **args)
{
    overlap_t *o = args[0];

    o->dev[0] = 1;
}

static void *long_launcher(void *arg)
{
    static const unsigned one[3] = {1, 1, 1};
    void *args[] = {arg};

    CHECK(launch(k_long, one, one, args, NULL) == 0);
    return NULL;
}

static void check_overlap(void)
{
    static const unsigned one[3] = {1, 1, 1};
    overlap_t o = {0};
    uint64_t out[2] = {0};
    void *args[] = {&o};
    pthread_t t;

    if (!CHECK(g->alloc(4096, (void **)&o.dev) == 0) ||
        !CHECK(pthread_create(&t, NULL, long_launcher, &o) == 0))
        return;
    while (!__atomic_load_n(&o.started, __ATOMIC_ACQUIRE))
        sleep_us(100);
    CHECK(launch(k_short, one, one, args, NULL) == 0);
    __atomic_store_n(&o.short_done, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    CHECK(g->copy(out, o.dev, sizeof(out), SHMI_GPU_D2H) == 0 && out[0] == 1 &&
          out[1] == 2);
    check_faults(o.dev, "device memory after overlapping kernels");
    CHECK(g->free(o.dev) == 0);
}

/* ---- stream order, bad launches, host_alloc ---------------------------- */

static void slow_set(void *arg)
{
    sleep_us(100000);
    __atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
}

static void k_sees_flag(void **args)
{
    CHECK_MSG(__atomic_load_n((int *)args[0], __ATOMIC_ACQUIRE) == 1,
              "the kernel runs after the work enqueued before it");
}

static void check_stream_order(void)
{
    static const unsigned grid[3] = {2, 1, 1}, block[3] = {4, 1, 1};
    int flag = 0, flag0 = 0;
    void *stream = NULL, *args[] = {&flag}, *args0[] = {&flag0};

    if (!CHECK(g->stream_create(&stream) == 0))
        return;
    CHECK(g->stream_host(stream, slow_set, &flag) == 0);
    CHECK(launch(k_sees_flag, grid, block, args, stream) == 0);
    CHECK(g->stream_host(NULL, slow_set, &flag0) == 0);
    CHECK(launch(k_sees_flag, grid, block, args0, NULL) == 0);
    CHECK(g->stream_destroy(stream) == 0);
}

static void k_never(void **args)
{
    (void)args;
    CHECK_MSG(0, "a refused launch ran its kernel");
}

static void check_bad_launch(void)
{
    static const unsigned ok[3] = {1, 1, 1};
    static const unsigned bad[][2][3] = {
        {{0, 1, 1}, {1, 1, 1}},
        {{1, 0, 1}, {1, 1, 1}},
        {{1, 1, 0}, {1, 1, 1}},
        {{1, 1, 1}, {0, 1, 1}},
        {{1, 1, 1}, {1, 0, 1}},
        {{1, 1, 1}, {1, 1, 0}},
        {{4097, 1, 1}, {1, 1, 1}},
        {{65, 1, 1}, {64, 1, 1}},
        {{1, 1, 1}, {16, 16, 17}},
        {{2, 2, 2}, {8, 8, 9}},
        {{65536, 65536, 65536}, {65536, 65536, 65536}},
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK_MSG(launch(k_never, bad[i][0], bad[i][1], NULL, NULL) ==
                      SHMI_EINVAL,
                  "grid %ux%ux%u, block %ux%ux%u: SHMI_EINVAL", bad[i][0][0],
                  bad[i][0][1], bad[i][0][2], bad[i][1][0], bad[i][1][1],
                  bad[i][1][2]);
    CHECK_MSG(g->launch(NULL, ok, ok, NULL, 0, NULL) == SHMI_EINVAL,
              "a NULL kernel: SHMI_EINVAL");
}

static void check_host_alloc(void)
{
    unsigned char *h = NULL;
    void *d = NULL;
    size_t nonzero = 0;

    CHECK(g->host_alloc(0, (void **)&h, &d) == SHMI_EINVAL && !h);
    if (!CHECK(g->host_alloc(1000, (void **)&h, &d) == 0 && h))
        return;
    CHECK_MSG(d == h && ((uintptr_t)h & 63) == 0,
              "device address == host address, 64-byte aligned");
    for (int i = 0; i < 1000; i++)
        nonzero += h[i] != 0;
    CHECK_MSG(nonzero == 0, "%zu bytes not zero", nonzero);
    memset(h, 0xab, 1000);
    CHECK(h[999] == 0xab && !g->is_device(h));
    CHECK(g->host_free(h) == 0);
}

static void on_alarm(int sig)
{
    static const char msg[] = "FAIL mock_launch: hung (a sync that never "
                              "returns?)\n";

    (void)sig;
    if (write(2, msg, sizeof(msg) - 1) < 0)
        _exit(2);
    _exit(1);
}

int main(void)
{
    int count = 0;

    signal(SIGALRM, on_alarm);
    alarm(HANG_SECONDS);
    g = shmi_gpu_backend("mock");
    if (!CHECK(g && g->probe(&count) == 0 && g->select(0) == 0))
        return check_end("mock_launch");
    CHECK(shmi_gpu_mock_thread() == NULL);
    shmi_gpu_mock_block_sync(); /* nothing outside a kernel */
    shmi_gpu_mock_warp_sync();
    check_indices(3, 1, 1, 40, 1, 1);
    check_indices(2, 3, 2, 4, 3, 2);
    check_indices(1, 1, 1, 1, 1, 1);
    check_indices(16, 1, 1, 256, 1, 1); /* SHMI_GPU_MOCK_MAX_THREADS */
    check_block_sync();
    check_warp_sync(2, 40, 1, 1);
    check_warp_sync(1, 8, 3, 2);
    check_device_memory();
    check_overlap();
    check_stream_order();
    check_bad_launch();
    check_host_alloc();
    CHECK(shmi_gpu_mock_thread() == NULL);
    return check_end("mock_launch");
}
