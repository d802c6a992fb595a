/*
 * Point-to-point synchronization on ivars in the device heap, through the
 * public API: every wait_until / test form (one, _all, _any, _some, their
 * _vector forms) and signal_wait_until, each on ivars of this PE's device
 * heap that the left neighbour sets with a put or an atomic after a delay
 * (so that the waits really poll). Run with SHMEM_DEVICE_BACKEND=mock,
 * whose device pages fault on any host load: a wait that dereferenced them
 * would crash. Ends by checking exactly that (a forked child's load must
 * fault). With another back end (cuda, hip: no device atomics from the
 * host) the setters put instead, and the waits read by copies; the
 * gpu_rt_* cases run it so on one PE over tests/gpu/fake_runtime.c.
 * Skipped without a device heap.
 *
 *   device_wait             the tests
 *   device_wait badvalues   values array in the device heap: fatal error
 */
#include "config.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <shmem.h>
#include <shmemx.h>

#include "gpu_test.h"

enum { N = 8, DELAY_US = 20000 };

static int me, npes, right, left;
/* Device atomics from the host: the mock has them; the cuda and hip back
 * ends do not (there the setters put, and waits read by copies). */
static int amo;

/* Host copy of n bytes of own device memory (a get from self). */
static void readback(void *h, const void *dev, size_t n)
{
    shmem_getmem(h, dev, n, me);
}

/* Zeroes own device ints, then a barrier: every PE starts from zero. */
static void reset(int *dev, size_t n)
{
    int zero[N] = {0};

    shmem_putmem(dev, zero, n * sizeof(int), me);
    shmem_barrier_all();
}

/* The right neighbour's ivars get vals[idx[k]] at idx[k], k < cnt, one put
 * each after a delay: blocking puts, complete on return. */
static void set_right(int *dev, const size_t *idx, size_t cnt, const int *vals)
{
    usleep(DELAY_US);
    for (size_t k = 0; k < cnt; k++)
        shmem_int_p(&dev[idx[k]], vals[idx[k]], right);
}

static void test_one(int *dev, short *sdev, long long *ldev)
{
    reset(dev, N);
    CHECK_MSG(shmem_int_test(dev, SHMEM_CMP_NE, 0) == 0, "test before a put");
    shmem_barrier_all();
    usleep(DELAY_US);
    if (amo)
        shmem_int_atomic_set(dev, -7, right);
    else
        shmem_int_p(dev, -7, right);
    shmem_int_wait_until(dev, SHMEM_CMP_LT, -5); /* signed comparison */
    shmem_short_p(sdev, (short)(100 + me), right);
    shmem_short_wait_until(sdev, SHMEM_CMP_EQ, (short)(100 + left));
    if (amo)
        shmem_longlong_atomic_add(ldev, 1LL << 40, right);
    else
        shmem_longlong_p(ldev, 1LL << 40, right);
    shmem_longlong_wait_until(ldev, SHMEM_CMP_GE, 1LL << 40);
    shmem_barrier_all();
    usleep(DELAY_US);
    if (amo)
        shmem_int_atomic_add(dev, 10, right); /* -7 + 10 */
    else
        shmem_int_p(dev, 3, right);
    while (!shmem_int_test(dev, SHMEM_CMP_EQ, 3))
        ;
    int got;
    readback(&got, dev, sizeof(got));
    CHECK_MSG(got == 3, "single ivar %d", got);
    shmem_barrier_all();
}

static void test_all(int *dev)
{
    size_t idx[N];
    int mine[N], vals[N], status[N] = {0}, got[N];

    /* this PE writes mine into the right's ivars, expects vals from left */
    for (size_t i = 0; i < N; i++) {
        idx[i] = i;
        mine[i] = (int)i + 1 + 10 * me;
        vals[i] = (int)i + 1 + 10 * left;
    }
    reset(dev, N);
    CHECK_MSG(shmem_int_test_all(dev, N, NULL, SHMEM_CMP_GT, 0) == 0,
              "test_all before the puts");
    shmem_barrier_all();
    set_right(dev, idx, N, mine);
    shmem_int_wait_until_all(dev, N, NULL, SHMEM_CMP_GT, 0);
    readback(got, dev, sizeof(got));
    for (size_t i = 0; i < N; i++)
        CHECK_MSG(got[i] == vals[i], "wait_all element %zu: %d", i, got[i]);
    /* vector form: element i waits for exactly vals[i] */
    shmem_int_wait_until_all_vector(dev, N, NULL, SHMEM_CMP_EQ, vals);
    CHECK_MSG(shmem_int_test_all_vector(dev, N, NULL, SHMEM_CMP_EQ, vals) == 1,
              "test_all_vector");
    shmem_barrier_all();
    /* masked: only the unmasked half must be set */
    reset(dev, N);
    for (size_t i = 0; i < N; i += 2)
        status[i] = 1;
    while (!shmem_int_test_all(dev, N, status, SHMEM_CMP_EQ, 0))
        ; /* all unmasked are still 0 */
    shmem_barrier_all();
    {
        size_t odd[N / 2];

        for (size_t k = 0; k < N / 2; k++)
            odd[k] = 2 * k + 1;
        set_right(dev, odd, N / 2, mine);
    }
    while (!shmem_int_test_all(dev, N, status, SHMEM_CMP_NE, 0))
        ;
    readback(got, dev, sizeof(got));
    for (size_t i = 0; i < N; i++)
        CHECK_MSG(got[i] == (i % 2 ? vals[i] : 0), "masked all %zu: %d", i,
                  got[i]);
    shmem_barrier_all();
}

static void test_any(int *dev)
{
    size_t one = 5, r;
    int vals[N], status[N] = {0}, want[N];

    for (size_t i = 0; i < N; i++)
        vals[i] = 50 + (int)i, want[i] = 50 + (int)i;
    reset(dev, N);
    CHECK_MSG(shmem_int_test_any(dev, N, NULL, SHMEM_CMP_NE, 0) == SIZE_MAX,
              "test_any before the put");
    shmem_barrier_all();
    set_right(dev, &one, 1, vals);
    r = shmem_int_wait_until_any(dev, N, NULL, SHMEM_CMP_NE, 0);
    CHECK_MSG(r == one, "wait_any returned %zu", r);
    r = shmem_int_wait_until_any_vector(dev, N, NULL, SHMEM_CMP_EQ, want);
    CHECK_MSG(r == one, "wait_any_vector returned %zu", r);
    status[one] = 1; /* masked: nothing else is set */
    CHECK_MSG(shmem_int_test_any(dev, N, status, SHMEM_CMP_NE, 0) == SIZE_MAX,
              "test_any masked");
    shmem_barrier_all();
    one = 2;
    set_right(dev, &one, 1, vals);
    while ((r = shmem_int_test_any_vector(dev, N, status, SHMEM_CMP_EQ,
                                          want)) == SIZE_MAX)
        ;
    CHECK_MSG(r == 2, "test_any_vector returned %zu", r);
    shmem_barrier_all();
}

static void test_some(int *dev)
{
    size_t pick[3] = {1, 4, 6}, out[N], n, k;
    int vals[N], status[N] = {0};

    for (size_t i = 0; i < N; i++)
        vals[i] = -(int)i - 1;
    reset(dev, N);
    CHECK_MSG(shmem_int_test_some(dev, N, out, NULL, SHMEM_CMP_LT, 0) == 0,
              "test_some before the puts");
    shmem_barrier_all();
    set_right(dev, pick, 3, vals);
    shmem_barrier_all(); /* all three landed: wait_some must see them all */
    n = shmem_int_wait_until_some(dev, N, out, NULL, SHMEM_CMP_LT, 0);
    CHECK_MSG(n == 3, "wait_some found %zu", n);
    for (k = 0; k < n && k < 3; k++)
        CHECK_MSG(out[k] == pick[k], "wait_some index %zu: %zu", k, out[k]);
    n = shmem_int_wait_until_some_vector(dev, N, out, NULL, SHMEM_CMP_EQ, vals);
    CHECK_MSG(n == 3 && out[0] == 1 && out[1] == 4 && out[2] == 6,
              "wait_some_vector found %zu", n);
    status[4] = 1;
    n = shmem_int_test_some(dev, N, out, status, SHMEM_CMP_LT, 0);
    CHECK_MSG(n == 2 && out[0] == 1 && out[1] == 6, "test_some masked: %zu", n);
    n = shmem_int_test_some_vector(dev, N, out, status, SHMEM_CMP_EQ, vals);
    CHECK_MSG(n == 2, "test_some_vector: %zu", n);
    shmem_barrier_all();
}

static void test_signal(uint64_t *dsig)
{
    shmem_barrier_all();
    usleep(DELAY_US);
    if (amo)
        shmem_uint64_atomic_add(dsig, 5, right);
    else
        shmem_uint64_p(dsig, 5, right);
    CHECK_MSG(shmem_signal_wait_until(dsig, SHMEM_CMP_GE, 5) == 5,
              "device signal");
    shmem_barrier_all();
}

/* Waits through the back end must leave the device pages closed: a host
 * load of device memory still faults (mock back end). */
static void test_still_faults(const int *dev)
{
    int status = 0;
    pid_t pid;

    if (!amo) /* not the mock */
        return;
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        volatile int v = *(const volatile int *)dev;
        (void)v;
        _exit(0);
    }
    CHECK_MSG(pid > 0 && waitpid(pid, &status, 0) == pid &&
                  WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
              "host load of device memory did not fault (status %d)", status);
}

int main(int argc, char **argv)
{
    int *dev;

    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    amo = getenv("SHMEM_DEVICE_BACKEND") &&
          strcmp(getenv("SHMEM_DEVICE_BACKEND"), "mock") == 0;
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    dev = shmemx_malloc_device(256);
    if (!dev) {
        return gt_skip_no_device_heap();
    }
    if (argc > 1 && strcmp(argv[1], "badvalues") == 0) {
        size_t r = shmem_int_wait_until_any_vector(dev, 2, NULL, SHMEM_CMP_EQ,
                                                   dev + 8);
        printf("wait with device values returned %zu\n", r);
        shmem_finalize();
        return 0;
    }
    test_one(dev, (short *)(dev + 16), (long long *)(dev + 20));
    test_all(dev);
    test_any(dev);
    test_some(dev);
    test_signal((uint64_t *)(dev + 24));
    test_still_faults(dev);
    shmem_free(dev);
    return check_pes_end("device_wait");
}
