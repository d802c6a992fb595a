/*
 * The host's checks of kernel_ops.c for the atomics, signals, barriers,
 * shmemd_ptr and the flood (kept apart so that each file stays short).
 * Included once, by kernel_ops.c, after its helpers.
 */
#ifndef WEFT_TESTS_GPU_KERNEL_CHECKS_H
#define WEFT_TESTS_GPU_KERNEL_CHECKS_H

/* Every PE's copy of n bytes at the symmetric device address d. */
static void *gather(const void *d, size_t n)
{
    char *all = (char *)gt_xmalloc(n * (size_t)npes);

    for (int pe = 0; pe < npes; pe++)
        shmem_getmem(all + n * (size_t)pe, d, n, pe);
    return all;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

    return a < b ? -1 : a > b;
}

/* The fetch_add results that went to PE target, over all threads of all
 * PEs, are exactly 0 .. total-1. */
static void check_fetched(const uint64_t *all, int target)
{
    size_t per = (size_t)kt_g * KT_AMO_ROUNDS, total = per * npes, k = 0;
    uint64_t *v = (uint64_t *)gt_xmalloc(total * sizeof(*v));

    for (int pe = 0; pe < npes; pe++)
        for (size_t i = 0; i < per; i++)
            v[k++] = all[(size_t)pe * per * npes + i * npes + target];
    qsort(v, total, sizeof(*v), cmp_u64);
    for (size_t i = 0; i < total; i++)
        CHECK_MSG(v[i] == i, "fetch_add on PE %d: value %zu is %llu", target, i,
                  (unsigned long long)v[i]);
    free(v);
}

static void check_amo(kt_args_t *a)
{
    size_t fb = (size_t)kt_g * KT_AMO_ROUNDS * npes * sizeof(uint64_t);
    uint64_t c64[4], *all;
    unsigned c32[4];
    int *win, wins = 0;
    double d;

    launch(k_amo, a);
    rd(c64, a->ctr64, sizeof(c64));
    rd(c32, a->ctr32, sizeof(c32));
    rd(&d, a->dbl + kt_g, sizeof(d));
    CHECK_MSG(c64[0] == (uint64_t)kt_g * KT_AMO_ROUNDS * npes &&
                  c64[1] == c64[0] && c32[0] == 2 * c64[0],
              "amo: counters %llu %llu %u, expected %d",
              (unsigned long long)c64[0], (unsigned long long)c64[1], c32[0],
              kt_g * KT_AMO_ROUNDS * npes);
    CHECK_MSG(c32[1] >= 1 && c32[1] <= (unsigned)(kt_g * npes) && c64[2] >= 1 &&
                  c64[2] <= (uint64_t)kt_g * npes,
              "amo: compare_swap winner %u, swap %llu", c32[1],
              (unsigned long long)c64[2]);
    CHECK_MSG(d == 2.5 + (me + npes - 1) % npes, "double atomic set: %g", d);
    all = (uint64_t *)gather(a->fetched, fb);
    if (me == 0)
        for (int pe = 0; pe < npes; pe++)
            check_fetched(all, pe);
    free(all);
    win = (int *)gather(a->winners, kt_g * sizeof(int));
    for (unsigned i = 0; i < kt_g * (unsigned)npes; i++)
        wins += (win[i] >> me) & 1;
    CHECK_MSG(wins == 1, "compare_swap on PE %d: %d winners", me, wins);
    free(win);
    zero(a->ctr64, sizeof(c64));
    zero(a->ctr32, sizeof(c32));
}

static void check_signal(kt_args_t *a)
{
    long got[2], dst[KT_CHUNK];
    int left = (me + npes - 1) % npes;

    zero(a->got, sizeof(got));
    launch(k_signal, a);
    rd(got, a->got, sizeof(got));
    rd(dst, a->dst, sizeof(dst));
    CHECK_MSG(got[0] == 1, "signal: fetched %ld, expected 1", got[0]);
    CHECK_MSG(got[1] == 0, "fence: the data arrived after the flag");
    for (unsigned i = 0; i < KT_CHUNK; i++)
        CHECK_MSG(dst[i] == kt_value(left, 0, i + 100),
                  "putmem_signal: element %u: %ld", i, dst[i]);
}

static void check_barrier(kt_args_t *a)
{
    long got[KT_BARRIER_ROUNDS];

    zero(a->got, sizeof(got));
    launch(k_barrier, a);
    rd(got, a->got, sizeof(got));
    for (int r = 0; r < KT_BARRIER_ROUNDS; r++)
        CHECK_MSG(got[r] == 0,
                  "barrier round %d (%s): the neighbour's put "
                  "was not there",
                  r, r % 2 ? "_block" : "one thread");
}

/* GT_KERNEL_ROUTE: direct (every PE mapped), proxy (only this one). */
static void check_ptr(kt_args_t *a)
{
    const char *want = getenv("GT_KERNEL_ROUTE");
    long *ok = (long *)gt_xmalloc((size_t)npes * sizeof(long));

    launch(k_ptr, a);
    rd(ok, a->ptr_ok, (size_t)npes * sizeof(long));
    for (int pe = 0; want && pe < npes; pe++) {
        long expect = pe == me || strcmp(want, "direct") == 0;

        CHECK_MSG(ok[pe] == expect,
                  "shmemd_ptr for PE %d: %s, expected %s "
                  "(GT_KERNEL_ROUTE=%s)",
                  pe, ok[pe] ? "an address" : "NULL",
                  expect ? "an address" : "NULL", want);
    }
    free(ok);
}

static void check_flood(kt_args_t *a)
{
    uint64_t c;
    long dst[KT_MAX_G];
    int left = (me + npes - 1) % npes;

    launch(k_flood, a);
    rd(&c, a->ctr64, sizeof(c));
    rd(dst, a->dst, sizeof(dst));
    /* each thread of every PE adds KT_FLOOD times, spread over the PEs */
    CHECK_MSG(c == (uint64_t)kt_g * KT_FLOOD,
              "flood: counter %llu, expected %d: requests lost",
              (unsigned long long)c, kt_g * KT_FLOOD);
    for (unsigned g = 0; g < kt_g; g++)
        CHECK_MSG(dst[g] == kt_value(left, g, 9), "flood: p of thread %u", g);
}

#endif /* WEFT_TESTS_GPU_KERNEL_CHECKS_H */
