/*
 * Large reductions: shmem_long_sum_reduce of N longs (65,536 by default,
 * argument 1 overrides) on symmetric heap arrays, on arrays of the data
 * segment, in place, and into a private dest; each result is checked
 * element by element, and the time of each call (slowest PE) is printed,
 * next to an fcollect that moves the same bytes, so that a reduction far
 * slower than its data movement shows up in the log:
 *   coll_reduce_large: heap 65536 longs: reduce 812.3 us, fcollect 402.1 us
 * Argument 2, when given, is a limit in seconds for the heap reduction
 * (the test fails above it).
 */
#include <string.h>

#include "tests/common/check_pes.h"
#include "bench/bench_util.h"

#define STATIC_N 65536
static long s_src[STATIC_N], s_dst[STATIC_N];
static double t_local, t_max;

static void fill(long *a, size_t n, int me)
{
    for (size_t i = 0; i < n; i++)
        a[i] = (long)(i % 1000) * (me + 1) + me;
}

static void check(const long *d, size_t n, int npes)
{
    long tri = (long)npes * (npes + 1) / 2, lin = (long)npes * (npes - 1) / 2;
    size_t bad = 0;

    for (size_t i = 0; i < n; i++)
        if (d[i] != (long)(i % 1000) * tri + lin && bad++ < 3)
            CHECK(d[i] == (long)(i % 1000) * tri + lin);
    CHECK(bad == 0);
}

static double slowest(double t0)
{
    t_local = (bench_now() - t0) * 1e6;
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &t_max, &t_local, 1);
    return t_max;
}

static double time_reduce(long *d, const long *s, size_t n)
{
    shmem_barrier_all();
    double t0 = bench_now();

    CHECK(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, d, s, n) == 0);
    return slowest(t0);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 65536;
    double limit = argc > 2 ? strtod(argv[2], NULL) : 0;

    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *src = shmem_malloc(n * sizeof(long));
    long *dst = shmem_malloc(n * sizeof(long) * (size_t)npes);
    long *priv = malloc(n * sizeof(long));

    if (src == NULL || dst == NULL || priv == NULL) {
        if (me == 0)
            printf("coll_reduce_large: no room for %zu longs\n", n);
        shmem_global_exit(77);
    }
    fill(src, n, me);
    time_reduce(dst, src, n); /* first touch, registration */
    memset(dst, 0, n * sizeof(long));
    double tr = time_reduce(dst, src, n);
    check(dst, n, npes);

    shmem_barrier_all();
    double t0 = bench_now();
    shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, n * sizeof(long));
    double tf = slowest(t0);
    if (me == 0)
        printf("coll_reduce_large: heap %zu longs: reduce %.1f us, "
               "fcollect %.1f us\n",
               n, tr, tf);
    if (limit > 0)
        CHECK(tr <= limit * 1e6);

    memcpy(dst, src, n * sizeof(long));
    double ti = time_reduce(dst, dst, n);
    check(dst, n, npes);

    memset(priv, 0, n * sizeof(long));
    double tp = time_reduce(priv, src, n);
    check(priv, n, npes);

    size_t sn = n < STATIC_N ? n : STATIC_N;
    fill(s_src, sn, me);
    double ts = time_reduce(s_dst, s_src, sn);
    check(s_dst, sn, npes);
    if (me == 0)
        printf("coll_reduce_large: in place %.1f us, private dest %.1f us, "
               "data segment (%zu longs) %.1f us\n",
               ti, tp, sn, ts);
    shmem_free(src);
    shmem_free(dst);
    free(priv);
    return check_pes_end("coll_reduce_large");
}
