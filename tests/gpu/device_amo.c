/*
 * Host-initiated atomics on device memory from every PE at once, through
 * the public API: fetch_add, compare_swap, swap and inc on 32- and 64-bit
 * words of each PE's device heap, checked exactly (every value a fetching
 * atomic returned is accounted for, once; new device memory reads as
 * zero). With a back end without device atomics (cuda, hip; here the
 * stand-in runtime of tests/gpu/fake_runtime.c) the owner's device service
 * serialises them, on one node also without libfabric. Environment
 * (optional checks of the route):
 *   GT_EXPECT_SERVICE=0|1  the device service is (not) running here
 *   GT_EXPECT_FABRIC=0|1   libfabric is (not) in use
 */
#include "config.h"

#include <stdint.h>

#include "core/heap/device_heap.h"
#include "core/state.h"
#include "shmem.h"
#include "shmemx.h"
#include "tests/gpu/device_transport.h"

#include "gpu_test.h"

enum { K = 40 };

static int me, npes;

/* Host copy of a word of own device memory (a get from self). */
static uint64_t dev_u64(const uint64_t *w)
{
    uint64_t v = 0;

    shmem_getmem(&v, w, sizeof(v), me);
    return v;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

/* Gathers each PE's n values into *all on PE 0 (npes * n, sorted); NULL
 * elsewhere. Collective. */
static uint64_t *gather_sorted(const uint64_t *mine, size_t n)
{
    uint64_t *sym = shmem_malloc((size_t)npes * n * sizeof(uint64_t)), *all;

    CHECK_MSG(sym != NULL, "gather buffer");
    shmem_barrier_all();
    shmem_putmem(sym + (size_t)me * n, mine, n * sizeof(uint64_t), 0);
    shmem_barrier_all();
    all = NULL;
    if (me == 0) {
        all = gt_xmalloc((size_t)npes * n * sizeof(uint64_t));
        memcpy(all, sym, (size_t)npes * n * sizeof(uint64_t));
        qsort(all, (size_t)npes * n, sizeof(uint64_t), cmp_u64);
    }
    shmem_barrier_all();
    shmem_free(sym);
    return all;
}

/* fetch_add of 1 from every PE to every PE's counter: each target's
 * fetched values are 0 .. K*npes-1, each once (checked for target 0). */
static void test_fetch_add(uint64_t *ctr)
{
    uint64_t got[K], *all;
    size_t total = (size_t)K * (size_t)npes;

    for (int k = 0; k < K; k++)
        for (int i = 0; i < npes; i++) {
            int pe = (me + i) % npes;
            uint64_t v = shmem_uint64_atomic_fetch_add(ctr, 1, pe);

            if (pe == 0)
                got[k] = v;
        }
    for (int k = 1; k < K; k++)
        CHECK_MSG(got[k] > got[k - 1], "fetch_add from one PE not increasing");
    all = gather_sorted(got, K);
    shmem_barrier_all();
    CHECK_MSG(dev_u64(ctr) == total, "fetch_add total %llu (want %zu)",
              (unsigned long long)dev_u64(ctr), total);
    for (size_t i = 0; all && i < total; i++)
        if (all[i] != i) {
            CHECK_MSG(0, "fetch_add values: #%zu is %llu", i,
                      (unsigned long long)all[i]);
            break;
        }
    free(all);
}

/* A counter incremented by compare_swap loops from every PE, on a 64-bit
 * and a 32-bit word of every PE: exact totals, and every successful swap
 * saw a distinct old value (checked for PE 0's 64-bit word). */
static void test_cswap(uint64_t *w64, int32_t *w32)
{
    uint64_t won[K], *all;
    size_t total = (size_t)K * (size_t)npes;

    for (int k = 0; k < K; k++)
        for (int i = 0; i < npes; i++) {
            int pe = (me + i) % npes;
            uint64_t v = shmem_uint64_atomic_fetch(w64, pe), old;
            int32_t u = shmem_int32_atomic_fetch(w32, pe), uold;

            while ((old = shmem_uint64_atomic_compare_swap(w64, v, v + 1,
                                                           pe)) != v)
                v = old;
            while ((uold = shmem_int32_atomic_compare_swap(w32, u, u + 1,
                                                           pe)) != u)
                u = uold;
            if (pe == 0)
                won[k] = v;
        }
    all = gather_sorted(won, K);
    shmem_barrier_all();
    CHECK_MSG(dev_u64(w64) == total, "cswap counter %llu (want %zu)",
              (unsigned long long)dev_u64(w64), total);
    CHECK_MSG(shmem_int32_atomic_fetch(w32, me) == (int32_t)total,
              "32-bit cswap counter %d (want %zu)",
              shmem_int32_atomic_fetch(w32, me), total);
    for (size_t i = 0; all && i < total; i++)
        if (all[i] != i) {
            CHECK_MSG(0, "cswap old values: #%zu is %llu", i,
                      (unsigned long long)all[i]);
            break;
        }
    free(all);
}

/* swap of distinct values into PE 0's word: the values returned plus the
 * final one are exactly the initial 0 and every value swapped in. */
static void test_swap(uint64_t *w)
{
    uint64_t got[K + 1], *all;
    size_t total = (size_t)(K + 1) * (size_t)npes;

    for (int k = 0; k < K; k++)
        got[k] = shmem_uint64_atomic_swap(w, (uint64_t)me * K + k + 1, 0);
    got[K] = 0; /* stands for the final value, read below on PE 0 */
    all = gather_sorted(got, K + 1);
    if (me == 0) {
        /* The initial 0 and npes placeholder zeroes, one of which now
         * stands for the final value: npes zeroes, then 1 .. K*npes. */
        uint64_t fin = dev_u64(w);

        all[0] = fin;
        qsort(all, total, sizeof(uint64_t), cmp_u64);
        for (size_t i = 0; i < total; i++) {
            uint64_t want = i < (size_t)npes ? 0 : i - (size_t)npes + 1;

            if (all[i] != want) {
                CHECK_MSG(0, "swap values: #%zu is %llu (want %llu)", i,
                          (unsigned long long)all[i], (unsigned long long)want);
                break;
            }
        }
    }
    free(all);
    shmem_barrier_all();
}

/* inc (no fetch) on 64-bit and int words of every PE, and fetch_inc. */
static void test_inc(uint64_t *w64, int *wi)
{
    size_t total = (size_t)K * (size_t)npes;

    for (int k = 0; k < K; k++)
        for (int i = 0; i < npes; i++) {
            int pe = (me + i) % npes;

            shmem_uint64_atomic_inc(w64, pe);
            shmem_int_atomic_inc(wi, pe);
            (void)shmem_int_atomic_fetch_inc(wi, pe);
        }
    shmem_quiet();
    shmem_barrier_all();
    CHECK_MSG(dev_u64(w64) == total, "inc total %llu (want %zu)",
              (unsigned long long)dev_u64(w64), total);
    CHECK_MSG(shmem_int_atomic_fetch(wi, me) == (int)(2 * total),
              "int inc total %d (want %zu)", shmem_int_atomic_fetch(wi, me),
              2 * total);
}

static void check_route(void)
{
    const char *svc = getenv("GT_EXPECT_SERVICE");
    const char *fab = getenv("GT_EXPECT_FABRIC");

    if (svc)
        CHECK_MSG(shmt_dev_svc_up() == atoi(svc),
                  "device service %s, expected %s",
                  shmt_dev_svc_up() ? "running" : "not running", svc);
    if (fab)
        CHECK_MSG((shmi_state.fabric != NULL) == atoi(fab),
                  "libfabric %s, expected %s",
                  shmi_state.fabric ? "in use" : "not in use", fab);
}

int main(void)
{
    uint64_t *w;

    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    w = shmemx_malloc_device(8 * sizeof(uint64_t));
    if (!w && !shmi_device_backend())
        return gt_skip_no_device_heap();
    CHECK_MSG(w != NULL, "device words");
    if (!w)
        return check_pes_end("device_amo");
    check_route();
    shmem_barrier_all();
    test_fetch_add(&w[0]);
    test_cswap(&w[1], (int32_t *)&w[2]);
    test_swap(&w[3]);
    test_inc(&w[4], (int *)&w[5]);
    if (shmt_dev_svc_up() && npes > 1)
        CHECK_MSG(shmt_dev_svc_served() > 0,
                  "the device service served no request");
    shmem_barrier_all();
    shmem_free(w);
    return check_pes_end("device_amo");
}
