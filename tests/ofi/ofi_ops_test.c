/*
 * The libfabric transport alone: put, get, atomics, put-with-signal, fence,
 * quiet and a second context endpoint, between every PE and its neighbours,
 * on whichever provider SHMEM_OFI_PROVIDER names. Run under a PMIx launcher
 * with 2 or more PEs (1 PE tests loopback only).
 *
 *   ofi_ops_test                  the functional tests
 *   ofi_ops_test --expect-provider NAME   ... and checks the provider chosen
 *   ofi_ops_test --emulate-amo    ... with every atomic but compare-swap
 *                                 emulated by compare-swap loops
 *   ofi_ops_test --mr-local       ... obeying FI_MR_LOCAL as if it were required
 *   ofi_ops_test --bad-access     expects a put outside the heap to fail
 *                                 (1 PE)
 *   ofi_ops_test --bad-provider   expects init to refuse SHMEM_OFI_PROVIDER
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "core/state.h"
#include "services/env.h"
#include "tests/ofi/ofi_test.h"
#include "transports/ofi/ofi_internal.h"

static int t_right(void) { return (t_me + 1) % t_npes; }
static int t_left(void) { return (t_me + t_npes - 1) % t_npes; }

static unsigned char t_pattern(int pe, size_t i, unsigned salt)
{
    return (unsigned char)(pe * 31 + i * 7 + salt * 13 + (i >> 12));
}

static void t_fill(unsigned char *buf, size_t len, int pe, unsigned salt)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = t_pattern(pe, i, salt);
}

static void t_verify(const unsigned char *buf, size_t len, int pe,
                     unsigned salt, const char *what)
{
    for (size_t i = 0; i < len; i++)
        T_CHECK(buf[i] == t_pattern(pe, i, salt),
                "%s: byte %zu of %zu is %u, expected %u (from PE %d)", what, i,
                len, buf[i], t_pattern(pe, i, salt), pe);
}

#define T_OK(call) T_CHECK((call) == 0, "%s failed", #call)

/* Blocking puts of several sizes; the source is overwritten as soon as the
 * put returns, which must not change what arrives. */
static void test_put(void)
{
    static const size_t sizes[] = {1, 8, 100, 4096, 65536, T_BIG};
    unsigned char *src = malloc(T_BIG);

    T_CHECK(src, "malloc");
    for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t len = sizes[s];
        size_t off = len > 65536 ? T_OFF_BIG : T_OFF_SMALL;

        t_fill(src, len, t_me, s);
        T_OK(t_ops->rma->put(t_ep, t_right(), SHMI_SEG_HEAP, off, src, len, 0));
        memset(src, 0xEE, len);
        T_OK(t_ops->order->quiet(t_ep, -1));
        t_barrier();
        t_verify((unsigned char *)t_heap + off, len, t_left(), s, "put");
        t_barrier();
    }
    /* Non-blocking puts: the source stays until quiet. */
    t_fill(src, 65536, t_me, 77);
    for (size_t o = 0; o < 65536; o += 1024)
        T_OK(t_ops->rma->put(t_ep, t_right(), SHMI_SEG_HEAP, T_OFF_SMALL + o,
                             src + o, 1024, 1));
    T_OK(t_ops->order->quiet(t_ep, -1));
    t_barrier();
    t_verify((unsigned char *)t_heap + T_OFF_SMALL, 65536, t_left(), 77,
             "put_nbi");
    /* The data segment. */
    t_fill(src, 64, t_me, 5);
    T_OK(t_ops->rma->put(t_ep, t_right(), SHMI_SEG_DATA, 128, src, 64, 0));
    T_OK(t_ops->order->quiet(t_ep, -1));
    t_barrier();
    t_verify((unsigned char *)t_data + 128, 64, t_left(), 5, "put data seg");
    free(src);
    printf("[pe %d] put: ok\n", t_me);
}

/* Blocking puts a little over inject_size go through the endpoint's bounce
 * space: the source is reused at once, more of them than the space holds
 * are in flight before the quiet, and a blocking put-with-signal of such a
 * size still shows its data before its signal. */
static void test_put_bounce(void)
{
    static const size_t lens[] = {100, 1000, 4096};
    unsigned char src[4096];
    unsigned char *want = malloc(T_BIG);
    size_t at = 0;

    T_CHECK(want, "malloc");
    for (unsigned k = 0; at + 4096 <= (size_t)3 << 20; k++) {
        size_t len = lens[k % 3];

        t_fill(src, len, t_me, k);
        T_OK(t_ops->rma->put(t_ep, t_right(), SHMI_SEG_HEAP, T_OFF_BIG + at,
                             src, len, 0));
        t_fill(want + at, len, t_left(), k);
        memset(src, 0xEE, len);
        at += len;
    }
    T_OK(t_ops->order->quiet(t_ep, -1));
    t_barrier();
    T_CHECK(memcmp((unsigned char *)t_heap + T_OFF_BIG, want, at) == 0,
            "bounced puts: data differs");
    t_barrier();
    for (unsigned r = 1; r <= 20; r++) {
        t_fill(src, 1000, t_me, 90 + r);
        T_OK(t_ops->rma->put_signal(t_ep, t_right(), SHMI_SEG_HEAP, T_OFF_SMALL,
                                    src, 1000, SHMI_SEG_HEAP, T_OFF_SIG, 1,
                                    SHMI_AMO_ADD, 0));
        memset(src, 0xEE, 1000);
        t_wait_ge(T_OFF_SIG, r);
        t_verify((unsigned char *)t_heap + T_OFF_SMALL, 1000, t_left(),
                 90 + r, "bounced put_signal data");
        t_barrier(); /* the next round overwrites what was just checked */
    }
    T_OK(t_ops->order->quiet(t_ep, -1));
    __atomic_store_n((uint64_t *)((char *)t_heap + T_OFF_SIG), 0,
                     __ATOMIC_SEQ_CST);
    t_barrier();
    free(want);
    printf("[pe %d] put bounce: ok\n", t_me);
}

static void test_get(void)
{
    unsigned char *dst = malloc(T_BIG);

    T_CHECK(dst, "malloc");
    t_fill((unsigned char *)t_heap + T_OFF_GETSRC, T_BIG, t_me, 9);
    t_fill((unsigned char *)t_data + 1024, 256, t_me, 10);
    t_barrier();
    memset(dst, 0, T_BIG);
    T_OK(t_ops->rma->get(t_ep, t_right(), SHMI_SEG_HEAP, T_OFF_GETSRC, dst,
                         T_BIG, 0));
    t_verify(dst, T_BIG, t_right(), 9, "get 4 MiB");
    memset(dst, 0, 8);
    T_OK(t_ops->rma->get(t_ep, t_right(), SHMI_SEG_HEAP, T_OFF_GETSRC, dst, 8,
                         0));
    t_verify(dst, 8, t_right(), 9, "get 8 B");
    memset(dst, 0, 65536);
    for (size_t o = 0; o < 65536; o += 4096)
        T_OK(t_ops->rma->get(t_ep, t_left(), SHMI_SEG_HEAP, T_OFF_GETSRC + o,
                             dst + o, 4096, 1));
    T_OK(t_ops->order->quiet(t_ep, -1));
    t_verify(dst, 65536, t_left(), 9, "get_nbi");
    T_OK(t_ops->rma->get(t_ep, t_left(), SHMI_SEG_DATA, 1024, dst, 256, 0));
    t_verify(dst, 256, t_left(), 10, "get data seg");
    t_barrier();
    free(dst);
    printf("[pe %d] get: ok\n", t_me);
}

/* The standard and extended AMO integer types of the specification. */
static const shmi_dtype_t t_int_types[] = {
    SHMI_DT_INT,   SHMI_DT_LONG,   SHMI_DT_LONGLONG, SHMI_DT_UINT,
    SHMI_DT_ULONG, SHMI_DT_ULONGLONG, SHMI_DT_INT32, SHMI_DT_INT64,
    SHMI_DT_UINT32, SHMI_DT_UINT64, SHMI_DT_SIZE,   SHMI_DT_PTRDIFF,
};
#define T_NINT (sizeof(t_int_types) / sizeof(t_int_types[0]))

static uint64_t t_ld(const void *p, size_t size)
{
    uint32_t u32;
    uint64_t u64;

    if (size == 4) {
        memcpy(&u32, p, 4);
        return u32;
    }
    memcpy(&u64, p, 8);
    return u64;
}

static void t_st(void *p, uint64_t v, size_t size)
{
    uint32_t u32 = (uint32_t)v;

    if (size == 4)
        memcpy(p, &u32, 4);
    else
        memcpy(p, &v, 8);
}

static int t_amo(shmi_amo_op_t op, shmi_dtype_t dt, size_t off, uint64_t v,
                 uint64_t cmp, uint64_t *fetched)
{
    size_t size = shmi_dtype_size(dt);
    unsigned char a[8], c[8], f[8] = {0};
    int ret;

    t_st(a, v, size);
    t_st(c, cmp, size);
    ret = t_ops->atomic->amo(t_ep, 0, SHMI_SEG_HEAP, off, op, dt, a, c,
                             fetched ? f : NULL, 0);
    if (fetched)
        *fetched = t_ld(f, size);
    return ret;
}

/* Arithmetic atomics from every PE on one word of PE 0. */
static void test_amo_arith(shmi_dtype_t dt, size_t off)
{
    size_t size = shmi_dtype_size(dt);
    uint64_t n = (uint64_t)t_npes, f, expect, mask;

    mask = size == 8 ? ~0ull : 0xffffffffull;
    T_OK(t_amo(SHMI_AMO_ADD, dt, off, (uint64_t)t_me + 1, 0, NULL));
    T_OK(t_amo(SHMI_AMO_FETCH_ADD, dt, off, 2, 0, &f));
    T_CHECK(f < n * (n + 1) / 2 + 4 * n, "%s fetch_add fetched %llu",
            shmi_dtype_table[dt].name, (unsigned long long)f);
    T_OK(t_amo(SHMI_AMO_INC, dt, off, 0, 0, NULL));
    T_OK(t_amo(SHMI_AMO_FETCH_INC, dt, off, 0, 0, &f));
    /* Negative operands wrap as two's complement. */
    T_OK(t_amo(SHMI_AMO_ADD, dt, off, (uint64_t)-5 & mask, 0, NULL));
    T_OK(t_amo(SHMI_AMO_ADD, dt, off, 5, 0, NULL));
    T_OK(t_ops->order->quiet(t_ep, -1));
    t_barrier();
    expect = n * (n + 1) / 2 + 4 * n;
    T_OK(t_amo(SHMI_AMO_FETCH, dt, off, 0, 0, &f));
    T_CHECK(f == expect, "%s arithmetic: %llu, expected %llu",
            shmi_dtype_table[dt].name, (unsigned long long)f,
            (unsigned long long)expect);
    t_barrier();
}

/* cswap increments, swap, set on one word of PE 0. */
static void test_amo_swap(shmi_dtype_t dt, size_t off)
{
    uint64_t n = (uint64_t)t_npes, f, guess = 0;
    int done = 0;

    if (t_me == 0)
        T_OK(t_amo(SHMI_AMO_SET, dt, off, 0, 0, NULL));
    T_OK(t_ops->order->quiet(t_ep, -1));
    t_barrier();
    while (done < 3) {
        T_OK(t_amo(SHMI_AMO_CSWAP, dt, off, guess + 1, guess, &f));
        if (f == guess)
            done++;
        guess = f == guess ? guess + 1 : f;
    }
    t_barrier();
    T_OK(t_amo(SHMI_AMO_FETCH, dt, off, 0, 0, &f));
    T_CHECK(f == 3 * n, "%s cswap: %llu, expected %llu",
            shmi_dtype_table[dt].name, (unsigned long long)f,
            (unsigned long long)(3 * n));
    t_barrier();
    T_OK(t_amo(SHMI_AMO_SWAP, dt, off, 100 + (uint64_t)t_me, 0, &f));
    T_CHECK(f == 3 * n || (f >= 100 && f < 100 + n), "%s swap fetched %llu",
            shmi_dtype_table[dt].name, (unsigned long long)f);
    t_barrier();
}

/* Bitwise atomics: every PE sets its bit, then clears it. */
static void test_amo_bits(shmi_dtype_t dt, size_t off)
{
    uint64_t bit = 1ull << (t_me % 32), f, all = 0;

    for (int pe = 0; pe < t_npes; pe++)
        all |= 1ull << (pe % 32);
    if (t_me == 0)
        T_OK(t_amo(SHMI_AMO_SET, dt, off, 0, 0, NULL));
    T_OK(t_ops->order->quiet(t_ep, -1));
    t_barrier();
    T_OK(t_amo(t_me % 2 ? SHMI_AMO_OR : SHMI_AMO_FETCH_OR, dt, off, bit, 0,
               t_me % 2 ? NULL : &f));
    T_OK(t_ops->order->quiet(t_ep, -1));
    t_barrier();
    T_OK(t_amo(SHMI_AMO_FETCH, dt, off, 0, 0, &f));
    T_CHECK(f == all, "%s or: %llx, expected %llx", shmi_dtype_table[dt].name,
            (unsigned long long)f, (unsigned long long)all);
    t_barrier();
    if (t_me % 2)
        T_OK(t_amo(SHMI_AMO_FETCH_XOR, dt, off, bit, 0, &f));
    else
        T_OK(t_amo(SHMI_AMO_AND, dt, off, ~bit, 0, NULL));
    T_OK(t_ops->order->quiet(t_ep, -1));
    t_barrier();
    T_OK(t_amo(SHMI_AMO_FETCH, dt, off, 0, 0, &f));
    T_CHECK(f == 0 || t_npes > 32, "%s and/xor: %llx, expected 0",
            shmi_dtype_table[dt].name, (unsigned long long)f);
    t_barrier();
}

/* Floating point: fetch, set and swap are bit copies. */
static void test_amo_float(void)
{
    double d = 3.25, got = 0, mine = t_me + 0.5;
    float fl = -1.5f, fgot = 0;

    if (t_me == t_npes - 1) {
        T_OK(t_ops->atomic->amo(t_ep, 0, SHMI_SEG_HEAP, T_OFF_AMO, SHMI_AMO_SET,
                                SHMI_DT_DOUBLE, &d, NULL, NULL, 0));
        T_OK(t_ops->atomic->amo(t_ep, 0, SHMI_SEG_HEAP, T_OFF_AMO + 8,
                                SHMI_AMO_SET, SHMI_DT_FLOAT, &fl, NULL, NULL,
                                0));
    }
    T_OK(t_ops->order->quiet(t_ep, -1));
    t_barrier();
    T_OK(t_ops->atomic->amo(t_ep, 0, SHMI_SEG_HEAP, T_OFF_AMO, SHMI_AMO_FETCH,
                            SHMI_DT_DOUBLE, NULL, NULL, &got, 0));
    T_OK(t_ops->atomic->amo(t_ep, 0, SHMI_SEG_HEAP, T_OFF_AMO + 8,
                            SHMI_AMO_FETCH, SHMI_DT_FLOAT, NULL, NULL, &fgot,
                            0));
    T_CHECK(got == 3.25 && fgot == -1.5f, "float fetch: %g %g", got,
            (double)fgot);
    t_barrier();
    T_OK(t_ops->atomic->amo(t_ep, 0, SHMI_SEG_HEAP, T_OFF_AMO, SHMI_AMO_SWAP,
                            SHMI_DT_DOUBLE, &mine, NULL, &got, 0));
    T_CHECK(got == 3.25 || (got - 0.5 >= 0 && got - 0.5 < t_npes &&
                            (int)(got - 0.5) == got - 0.5),
            "double swap fetched %g", got);
    t_barrier();
}

static void test_amo(void)
{
    for (unsigned i = 0; i < T_NINT; i++) {
        shmi_dtype_t dt = t_int_types[i];
        size_t off = T_OFF_AMO + 16 * (i + 1);
        shmi_dkind_t k = shmi_dtype_kind(dt);

        test_amo_arith(dt, off);
        test_amo_swap(dt, off);
        if (k == SHMI_DK_UNSIGNED || dt == SHMI_DT_INT32 ||
            dt == SHMI_DT_INT64)
            test_amo_bits(dt, off);
    }
    test_amo_float();
    printf("[pe %d] amo: ok (%u integer types, float, double)\n", t_me,
           (unsigned)T_NINT);
}

/* More non-blocking fetching atomics than the transport has operand slots. */
static void test_amo_nbi(void)
{
    enum { N = 150 };
    uint64_t res[N], one = 1, total;
    size_t off = T_OFF_AMO + 16 * 30;

    for (int i = 0; i < N; i++)
        T_OK(t_ops->atomic->amo(t_ep, 0, SHMI_SEG_HEAP, off, SHMI_AMO_FETCH_ADD,
                                SHMI_DT_UINT64, &one, NULL, &res[i], 1));
    for (int i = 0; i < N; i++)
        T_OK(t_ops->atomic->amo(t_ep, 0, SHMI_SEG_HEAP, off + 8, SHMI_AMO_INC,
                                SHMI_DT_UINT64, NULL, NULL, NULL, 1));
    T_OK(t_ops->order->quiet(t_ep, -1));
    for (int i = 0; i < N; i++) {
        T_CHECK(res[i] < (uint64_t)N * t_npes, "nbi fetch_add %llu",
                (unsigned long long)res[i]);
        for (int j = 0; j < i; j++)
            T_CHECK(res[i] != res[j], "nbi fetch_add: %llu fetched twice",
                    (unsigned long long)res[i]);
    }
    t_barrier();
    T_OK(t_ops->atomic->amo(t_ep, 0, SHMI_SEG_HEAP, off + 8, SHMI_AMO_FETCH,
                            SHMI_DT_UINT64, NULL, NULL, &total, 0));
    T_CHECK(total == (uint64_t)N * t_npes, "nbi inc total %llu",
            (unsigned long long)total);
    t_barrier();
    printf("[pe %d] amo nbi: ok\n", t_me);
}

/* Non-fetching atomics to the right neighbour, completed by quiet alone:
 * on an endpoint that counts its writes from the CQ (the target endpoint
 * under ofi_rxm) each must report its completion there, or quiet waits
 * forever. Every PE adds me + 1, N times, to its right neighbour's word. */
static void test_amo_right(void)
{
    enum { N = 200 };
    uint64_t add = (uint64_t)t_me + 1, got;
    size_t off = T_OFF_AMO + 16 * 32; /* test_threads has 31 */

    for (int i = 0; i < N; i++)
        T_OK(t_ops->atomic->amo(t_ep, t_right(), SHMI_SEG_HEAP, off,
                                SHMI_AMO_ADD, SHMI_DT_UINT64, &add, NULL, NULL,
                                1));
    T_OK(t_ops->order->quiet(t_ep, -1));
    t_barrier();
    T_OK(t_ops->atomic->amo(t_ep, t_me, SHMI_SEG_HEAP, off, SHMI_AMO_FETCH,
                            SHMI_DT_UINT64, NULL, NULL, &got, 0));
    T_CHECK(got == (uint64_t)N * ((uint64_t)t_left() + 1),
            "atomics from the left neighbour: %llu, expected %llu",
            (unsigned long long)got,
            (unsigned long long)N * ((uint64_t)t_left() + 1));
    t_barrier();
    printf("[pe %d] amo to the right: ok\n", t_me);
}

/* The signal must never be seen before the data. */
static void test_put_signal(void)
{
    unsigned char *src = malloc(T_BIG);
    size_t lens[2] = {65536, T_BIG};

    T_CHECK(src, "malloc");
    for (int r = 0; r < 2; r++) {
        t_fill(src, lens[r], t_me, 40 + r);
        T_OK(t_ops->rma->put_signal(
            t_ep, t_right(), SHMI_SEG_HEAP, r ? T_OFF_BIG : T_OFF_SMALL, src,
            lens[r], SHMI_SEG_HEAP, r ? T_OFF_SIG2 : T_OFF_SIG, r ? 7 : 1,
            r ? SHMI_AMO_SET : SHMI_AMO_ADD, r));
        t_wait_ge(r ? T_OFF_SIG2 : T_OFF_SIG, r ? 7 : 1);
        t_verify((unsigned char *)t_heap + (r ? T_OFF_BIG : T_OFF_SMALL),
                 lens[r], t_left(), 40 + r, "put_signal data");
        T_OK(t_ops->order->quiet(t_ep, -1));
        t_barrier();
    }
    free(src);
    printf("[pe %d] put_signal: ok\n", t_me);
}

/* fence orders a put before the flag that announces it; a second context's
 * endpoint works and completes on its own quiet. */
static void test_fence_ctx(void)
{
    unsigned char *src = malloc(65536);
    uint64_t flag = 1;
    shmt_ep_t *ep2;

    T_CHECK(src, "malloc");
    t_fill(src, 65536, t_me, 50);
    T_OK(t_ops->rma->put(t_ep, t_right(), SHMI_SEG_HEAP, T_OFF_SMALL, src,
                         65536, 1));
    T_OK(t_ops->order->fence(t_ep));
    T_OK(t_ops->rma->put(t_ep, t_right(), SHMI_SEG_HEAP, T_OFF_FLAG, &flag, 8,
                         1));
    t_wait_ge(T_OFF_FLAG, 1);
    t_verify((unsigned char *)t_heap + T_OFF_SMALL, 65536, t_left(), 50,
             "fence");
    T_OK(t_ops->order->quiet(t_ep, -1));
    t_barrier();
    T_OK(t_ops->ep_create(0, NULL, &ep2));
    T_CHECK(ep2 != t_ep, "a second context got the same endpoint");
    t_fill(src, 65536, t_me, 51);
    T_OK(t_ops->rma->put(ep2, t_right(), SHMI_SEG_HEAP, T_OFF_SMALL, src, 65536,
                         1));
    T_OK(t_ops->order->quiet(ep2, -1));
    t_barrier();
    t_verify((unsigned char *)t_heap + T_OFF_SMALL, 65536, t_left(), 51,
             "second context");
    t_ops->ep_destroy(ep2);
    t_barrier();
    free(src);
    printf("[pe %d] fence, second context: ok\n", t_me);
}

static int bad_provider(void)
{
    char err[512];
    int ret;

    if (shmi_env_load(err, sizeof(err)) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    T_CHECK(shmi_boot_init(&shmi_state.boot) == 0, "shmi_boot_init");
    t_job_fill(NULL, 0, NULL, 0);
    ret = t_ops->init(&t_job);
    shmi_boot_finalize();
    T_CHECK(ret == SHMI_EINVAL, "init with SHMEM_OFI_PROVIDER=%s returned %d",
            shmi_env.OFI_PROVIDER, ret);
    printf("init refused SHMEM_OFI_PROVIDER=%s as expected\n",
           shmi_env.OFI_PROVIDER);
    return 0;
}

/* A put beyond the registered heap is refused by the target: the error
 * must come back as SHMI_EIO (from the put or the quiet), not as a hang.
 * The put targets this PE itself (run with 1 PE): some providers (tcp)
 * drop the connection after such an error, so nothing follows it. */
static void test_bad_access(void)
{
    uint64_t v = 42;
    int ret;

    ret = t_ops->rma->put(t_ep, t_me, SHMI_SEG_HEAP, T_HEAP_SIZE + 65536, &v,
                          sizeof(v), 1);
    if (ret == 0)
        ret = t_ops->order->quiet(t_ep, -1);
    T_CHECK(ret == SHMI_EIO, "put outside the heap: %d, expected SHMI_EIO",
            ret);
    printf("[pe %d] put outside the heap: refused (SHMI_EIO)\n", t_me);
    t_ops->ep_destroy(t_ep);
    t_ops->finalize();
    shmi_boot_finalize();
}

/* Threads, each with its own context endpoint, issue atomics and drive
 * progress at the same time (the domain is FI_THREAD_SAFE). */
enum { T_THREADS = 3, T_THREAD_OPS = 400 };

static void *thread_body(void *arg)
{
    shmt_ep_t *ep = arg;
    uint64_t one = 1, old;

    for (int i = 0; i < T_THREAD_OPS; i++) {
        T_OK(t_ops->atomic->amo(ep, (t_me + i) % t_npes, SHMI_SEG_HEAP,
                                T_OFF_AMO + 16 * 31,
                                i % 4 ? SHMI_AMO_ADD : SHMI_AMO_FETCH_ADD,
                                SHMI_DT_UINT64, &one, NULL, &old, i % 4 != 0));
        t_ops->progress();
    }
    T_OK(t_ops->order->quiet(ep, -1));
    return NULL;
}

static void test_threads(void)
{
    pthread_t th[T_THREADS];
    shmt_ep_t *eps[T_THREADS];
    uint64_t total;

    for (int i = 0; i < T_THREADS; i++)
        T_OK(t_ops->ep_create(0, NULL, &eps[i]));
    t_barrier();
    for (int i = 0; i < T_THREADS; i++)
        T_CHECK(pthread_create(&th[i], NULL, thread_body, eps[i]) == 0,
                "pthread_create");
    for (int i = 0; i < T_THREADS; i++)
        pthread_join(th[i], NULL);
    t_barrier();
    total = *t_word(T_OFF_AMO + 16 * 31);
    T_CHECK(total == (uint64_t)T_THREADS * T_THREAD_OPS,
            "threads: %llu updates arrived here, expected %llu",
            (unsigned long long)total,
            (unsigned long long)T_THREADS * T_THREAD_OPS);
    for (int i = 0; i < T_THREADS; i++)
        t_ops->ep_destroy(eps[i]);
    t_barrier();
    printf("[pe %d] %d threads with their own endpoints: ok\n", t_me,
           T_THREADS);
}

int main(int argc, char **argv)
{
    int ret;

    if (argc > 1 && strcmp(argv[1], "--bad-provider") == 0)
        return bad_provider();
    ret = t_setup(0);
    if (ret)
        return ret;
    if (argc > 1 && strcmp(argv[1], "--emulate-amo") == 0) {
        shmt_ofi_amo_only_cswap();
        if (t_me == 0)
            printf("atomics other than compare-swap emulated\n");
    }
    /* Behave as if the provider required local descriptors (FI_MR_LOCAL,
     * which no provider here does): buffers get registered on the fly. */
    if (argc > 1 && strcmp(argv[1], "--mr-local") == 0)
        shmt_ofi.mr_mode |= FI_MR_LOCAL;
    if (argc > 2 && strcmp(argv[1], "--expect-provider") == 0)
        T_CHECK(strcmp(shmt_ofi.prov, argv[2]) == 0,
                "provider %s chosen, expected %s", shmt_ofi.prov, argv[2]);
    if (t_me == 0)
        printf("provider %s, mr_mode 0x%llx, max_msg %zu, inject %zu, "
               "%d PEs\n",
               shmt_ofi.prov, (unsigned long long)shmt_ofi.mr_mode,
               shmt_ofi.max_msg, shmt_ofi.inject_size, t_npes);
    if (argc > 1 && strcmp(argv[1], "--bad-access") == 0) {
        test_bad_access();
        return 0;
    }
    test_put();
    test_put_bounce();
    test_get();
    test_amo();
    test_amo_nbi();
    test_amo_right();
    test_put_signal();
    test_fence_ctx();
    test_threads();
    t_teardown();
    if (t_me == 0)
        printf("ofi_ops_test: all passed\n");
    return 0;
}
