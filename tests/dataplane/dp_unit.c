/*
 * Unit tests of the data plane without a job: the load/store atomics of
 * services/cpu_ops.h (every op and width, and contention
 * between threads) and the wait/test engine of src/core/wait.c (every kind,
 * comparison, mask and vector form), on a fake one-PE heap.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/dataplane.h"
#include "services/backoff.h"
#include "services/cpu_ops.h"
#include "tests/common/check.h"

/* Called through a function the compiler cannot see into, as the core calls
 * it (with pointers of unknown provenance). */
__attribute__((noipa)) static void amo_apply(void *p, shmi_amo_op_t op,
                                             shmi_dtype_t dt, const void *v,
                                             const void *c, void *f)
{
    shmi_cpu_amo_apply(p, op, dt, v, c, f);
}

static uint64_t amo64(uint64_t *w, shmi_amo_op_t op, uint64_t v, uint64_t c)
{
    uint64_t old = 0;

    amo_apply(w, op, SHMI_DT_UINT64, &v, &c, &old);
    return old;
}

static void test_amo_ops(void)
{
    uint64_t w = 10;
    int32_t i = -5, io = 0, iv = 7;
    uint8_t b = 250, bo = 0, bv = 10;
    int16_t h = 3, hv = 3, hc = 3, ho = 0;
    double d = 1.5, dv = 2.25, dold = 0;
    float f = 2.0f, fv = 0.5f, fold = 0;

    CHECK(amo64(&w, SHMI_AMO_FETCH, 0, 0) == 10 && w == 10);
    CHECK(amo64(&w, SHMI_AMO_FETCH_ADD, 5, 0) == 10 && w == 15);
    CHECK(amo64(&w, SHMI_AMO_FETCH_INC, 0, 0) == 15 && w == 16);
    amo64(&w, SHMI_AMO_INC, 0, 0);
    amo64(&w, SHMI_AMO_ADD, 4, 0);
    CHECK(w == 21);
    CHECK(amo64(&w, SHMI_AMO_CSWAP, 99, 20) == 21 && w == 21);
    CHECK(amo64(&w, SHMI_AMO_CSWAP, 99, 21) == 21 && w == 99);
    CHECK(amo64(&w, SHMI_AMO_SWAP, 0xF0, 0) == 99 && w == 0xF0);
    CHECK(amo64(&w, SHMI_AMO_FETCH_AND, 0x3C, 0) == 0xF0 && w == 0x30);
    CHECK(amo64(&w, SHMI_AMO_FETCH_OR, 0x03, 0) == 0x30 && w == 0x33);
    CHECK(amo64(&w, SHMI_AMO_FETCH_XOR, 0xFF, 0) == 0x33 && w == 0xCC);
    amo64(&w, SHMI_AMO_SET, 7, 0);
    CHECK(w == 7);
    amo64(&w, SHMI_AMO_AND, 3, 0);
    amo64(&w, SHMI_AMO_OR, 8, 0);
    amo64(&w, SHMI_AMO_XOR, 1, 0);
    CHECK(w == 10);

    amo_apply(&i, SHMI_AMO_FETCH_ADD, SHMI_DT_INT, &iv, NULL, &io);
    CHECK(io == -5 && i == 2);
    amo_apply(&b, SHMI_AMO_FETCH_ADD, SHMI_DT_UINT8, &bv, NULL, &bo);
    CHECK(bo == 250 && b == 4); /* wraps at 8 bits, neighbours untouched */
    amo_apply(&h, SHMI_AMO_CSWAP, SHMI_DT_SHORT, &hv, &hc, &ho);
    CHECK(ho == 3 && h == 3);
    amo_apply(&d, SHMI_AMO_SWAP, SHMI_DT_DOUBLE, &dv, NULL, &dold);
    CHECK(dold == 1.5 && d == 2.25);
    amo_apply(&f, SHMI_AMO_FETCH_ADD, SHMI_DT_FLOAT, &fv, NULL, &fold);
    CHECK(fold == 2.0f && f == 2.5f);
    amo_apply(&d, SHMI_AMO_FETCH, SHMI_DT_DOUBLE, NULL, NULL, &dold);
    CHECK(dold == 2.25);
}

/* ---- contention: no update lost ------------------------------------------- */

#define NTHREADS 4
#define NITER    100000

static struct {
    uint64_t u64;
    uint32_t u32;
    uint16_t u16;
    uint8_t u8;
    double dbl;
} counters;

static void *hammer(void *arg)
{
    uint64_t one = 1;
    uint32_t one32 = 1;
    uint16_t one16 = 1;
    double half = 0.5;

    (void)arg;
    for (int i = 0; i < NITER; i++) {
        amo_apply(&counters.u64, SHMI_AMO_ADD, SHMI_DT_UINT64, &one, NULL,
                  NULL);
        amo_apply(&counters.u32, SHMI_AMO_FETCH_ADD, SHMI_DT_UINT32, &one32,
                  NULL, &one32);
        one32 = 1;
        amo_apply(&counters.u16, SHMI_AMO_ADD, SHMI_DT_UINT16, &one16, NULL,
                  NULL);
        amo_apply(&counters.u8, SHMI_AMO_INC, SHMI_DT_UINT8, NULL, NULL, NULL);
        if (i % 16 == 0)
            amo_apply(&counters.dbl, SHMI_AMO_ADD, SHMI_DT_DOUBLE, &half, NULL,
                      NULL);
    }
    return NULL;
}

static void test_amo_contention(void)
{
    pthread_t t[NTHREADS];
    uint64_t total = (uint64_t)NTHREADS * NITER;

    for (int i = 0; i < NTHREADS; i++)
        pthread_create(&t[i], NULL, hammer, NULL);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    CHECK(counters.u64 == total);
    CHECK(counters.u32 == (uint32_t)total);
    CHECK(counters.u16 == (uint16_t)total);
    CHECK(counters.u8 == (uint8_t)total);
    CHECK(counters.dbl == 0.5 * NTHREADS * ((NITER + 15) / 16));
}

/* ---- wait / test ------------------------------------------------------------ */

static char heap[4096] __attribute__((aligned(64)));
static shmi_route_t heap_route[1];

static void fake_job(void)
{
    shmi_state.boot.rank = 0;
    shmi_state.boot.size = 1;
    shmi_state.seg[SHMI_SEG_HEAP].base = heap;
    shmi_state.seg[SHMI_SEG_HEAP].size = sizeof(heap);
    heap_route[0].base = heap;
    heap_route[0].cpu_amo = 1;
    shmi_state.route[SHMI_SEG_HEAP] = heap_route;
}

static void test_wait_compare(void)
{
    int *iv = (int *)heap;
    unsigned *uv = (unsigned *)(heap + 64);
    int zero = 0;
    unsigned uzero = 0;

    *iv = -1;
    *uv = 0xFFFFFFFFu;
    CHECK(shmi_wait("t", SHMI_WAIT_ONE, SHMI_DT_INT, iv, 1, NULL, SHMEM_CMP_LT,
                    &zero, 0, NULL, 0) == 1);
    CHECK(shmi_wait("t", SHMI_WAIT_ONE, SHMI_DT_UINT, uv, 1, NULL, SHMEM_CMP_LT,
                    &uzero, 0, NULL, 0) == 0);
    CHECK(shmi_wait("t", SHMI_WAIT_ONE, SHMI_DT_UINT, uv, 1, NULL, SHMEM_CMP_GT,
                    &uzero, 0, NULL, 0) == 1);
    {
        const int cmps[6] = {SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT,
                             SHMEM_CMP_GE, SHMEM_CMP_LT, SHMEM_CMP_LE};
        /* expected for ivar = -1 against -1, 0 */
        const int vs_m1[6] = {1, 0, 0, 1, 0, 1};
        const int vs_0[6] = {0, 1, 0, 0, 1, 1};
        int m1 = -1;

        for (int c = 0; c < 6; c++) {
            CHECK(shmi_wait("t", SHMI_WAIT_ONE, SHMI_DT_INT, iv, 1, NULL,
                            cmps[c], &m1, 0, NULL, 0) == (size_t)vs_m1[c]);
            CHECK(shmi_wait("t", SHMI_WAIT_ONE, SHMI_DT_INT, iv, 1, NULL,
                            cmps[c], &zero, 0, NULL, 0) == (size_t)vs_0[c]);
        }
    }
}

static void test_wait_vectors(void)
{
    long *v = (long *)(heap + 128);
    long vals[4] = {1, 0, 3, 0}, one = 1;
    int status[4] = {0, 0, 0, 1};
    size_t idx[4];

    v[0] = 1, v[1] = 2, v[2] = 3, v[3] = 4;
    /* ALL against vector values: element 1 differs (2 != 0)... */
    CHECK(shmi_wait("t", SHMI_WAIT_ALL, SHMI_DT_LONG, v, 4, NULL, SHMEM_CMP_EQ,
                    vals, 1, NULL, 0) == 0);
    vals[1] = 2, vals[3] = 4;
    CHECK(shmi_wait("t", SHMI_WAIT_ALL, SHMI_DT_LONG, v, 4, NULL, SHMEM_CMP_EQ,
                    vals, 1, NULL, 0) == 1);
    /* ANY with one value, masked element ignored: 1 or 2 (the order in
     * which satisfied elements are returned is the engine's to choose) */
    {
        size_t i = shmi_wait("t", SHMI_WAIT_ANY, SHMI_DT_LONG, v, 4, status,
                             SHMEM_CMP_GT, &one, 0, NULL, 0);
        CHECK(i == 1 || i == 2);
    }
    status[1] = status[2] = 1;
    CHECK(shmi_wait("t", SHMI_WAIT_ANY, SHMI_DT_LONG, v, 4, status,
                    SHMEM_CMP_GT, &one, 0, NULL, 0) == SIZE_MAX);
    status[0] = 1;
    CHECK(shmi_wait("t", SHMI_WAIT_ANY, SHMI_DT_LONG, v, 4, status,
                    SHMEM_CMP_GT, &one, 0, NULL,
                    1) == SIZE_MAX); /* all masked */
    CHECK(shmi_wait("t", SHMI_WAIT_ALL, SHMI_DT_LONG, v, 4, status,
                    SHMEM_CMP_EQ, &one, 0, NULL, 1) == 1); /* all masked */
    memset(status, 0, sizeof(status));
    CHECK(shmi_wait("t", SHMI_WAIT_SOME, SHMI_DT_LONG, v, 4, status,
                    SHMEM_CMP_GE, &one + 0, 0, idx, 0) == 4);
    {
        long three = 3;
        size_t n = shmi_wait("t", SHMI_WAIT_SOME, SHMI_DT_LONG, v, 4, NULL,
                             SHMEM_CMP_GE, &three, 0, idx, 0);
        CHECK(n == 2 && idx[0] == 2 && idx[1] == 3);
    }
    CHECK(shmi_wait("t", SHMI_WAIT_SOME, SHMI_DT_LONG, v, 0, NULL, SHMEM_CMP_GE,
                    &one, 0, idx, 1) == 0);
}

/* Blocking waits: a second thread changes the words a little later. */
static void *setter(void *arg)
{
    long *v = arg;

    usleep(20000);
    __atomic_store_n(&v[2], 42, __ATOMIC_RELEASE);
    usleep(20000);
    __atomic_store_n(&v[0], 42, __ATOMIC_RELEASE);
    __atomic_store_n(&v[1], 42, __ATOMIC_RELEASE);
    __atomic_store_n(&v[3], 42, __ATOMIC_RELEASE);
    return NULL;
}

static void test_wait_blocking(void)
{
    long *v = (long *)(heap + 256), want = 42;
    uint64_t *sig = (uint64_t *)(heap + 512);
    size_t idx[4];
    pthread_t t;

    memset(v, 0, 4 * sizeof(long));
    pthread_create(&t, NULL, setter, v);
    CHECK(shmi_wait("t", SHMI_WAIT_ANY, SHMI_DT_LONG, v, 4, NULL, SHMEM_CMP_EQ,
                    &want, 0, NULL, 1) == 2);
    CHECK(shmi_wait("t", SHMI_WAIT_ALL, SHMI_DT_LONG, v, 4, NULL, SHMEM_CMP_EQ,
                    &want, 0, NULL, 1) == 1);
    CHECK(shmi_wait("t", SHMI_WAIT_SOME, SHMI_DT_LONG, v, 4, NULL, SHMEM_CMP_EQ,
                    &want, 0, idx, 1) == 4);
    pthread_join(t, NULL);

    *sig = 5;
    CHECK(shmi_wait_u64("t", sig, SHMEM_CMP_GE, 3) == 5);
}

/* Bad input ends the process with a message naming the routine. */
static void test_wait_bad_cmp(void)
{
    int fds[2], st;
    char buf[512] = "";
    pid_t pid;

    if (pipe(fds))
        return;
    pid = fork();
    if (pid == 0) {
        long one = 1;
        dup2(fds[1], 2);
        shmi_wait("shmem_long_wait_until", SHMI_WAIT_ONE, SHMI_DT_LONG,
                  (long *)heap, 1, NULL, 77, &one, 0, NULL, 1);
        _exit(0);
    }
    close(fds[1]);
    (void)!read(fds[0], buf, sizeof(buf) - 1);
    close(fds[0]);
    waitpid(pid, &st, 0);
    CHECK(!(WIFEXITED(st) && WEXITSTATUS(st) == 0));
    CHECK(strstr(buf, "shmem_long_wait_until") != NULL);
    CHECK(strstr(buf, "comparison") != NULL);
}

int main(void)
{
    fake_job();
    test_amo_ops();
    test_amo_contention();
    test_wait_compare();
    test_wait_vectors();
    test_wait_blocking();
    test_wait_bad_cmp();
    return check_end("dp_unit");
}
