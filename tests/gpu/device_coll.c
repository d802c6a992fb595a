/*
 * Collectives on device buffers through the public API: broadcast,
 * collect, fcollect, alltoall, alltoalls, reductions and scans, in their
 * team forms (the world team and a team of every second PE) and their
 * active-set forms (pSync and pWrk in host memory), with dest and source
 * in the device heap (and mixed with host symmetric memory). Sizes cover
 * the small algorithms and the large ones (pull broadcast, sliced
 * reduction: SHMEM_COLL_LARGE is 16 KiB by default). Results are read back
 * into host memory and checked element by element. Run with
 * SHMEM_DEVICE_BACKEND=mock (device pages fault on any host load);
 * skipped without a device heap.
 *
 *   device_coll            the tests
 *   device_coll badpsync   an active-set call with pSync in the device
 *                          heap: must end with a clear fatal error
 *   device_coll badbarrier the same for shmem_barrier
 */
#include "config.h"

#include <shmem.h>
#include <shmemx.h>

#include "gpu_test.h"

#define SMALL 1000  /* ints: two reduction chunks, under SHMEM_COLL_LARGE */
#define LARGE 20011 /* ints: 80 KB, the large algorithms */
#define MAXPE 16

static int me, npes;
static long psync[SHMEM_REDUCE_SYNC_SIZE];
static int pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + LARGE];

/* Element i of what PE pe contributes in test tag. */
static int val(int pe, size_t i, int tag)
{
    return (int)((size_t)pe * 100003u + i * 7u + (size_t)tag * 1009u) % 1000003;
}

static void *dalloc(size_t bytes)
{
    void *p = shmemx_malloc_device(bytes);

    if (!p) {
        fprintf(stderr, "device heap exhausted (%zu bytes)\n", bytes);
        shmem_global_exit(1);
    }
    return p;
}

/* Own device memory <-> host, through puts and gets to self. */
static void to_dev(void *dev, const void *h, size_t n)
{
    shmem_putmem(dev, h, n, me);
}

static int *from_dev(const void *dev, size_t nelems)
{
    int *h = gt_xmalloc(nelems * sizeof(int));

    shmem_getmem(h, dev, nelems * sizeof(int), me);
    return h;
}

/* Fills own device array with val(pe, i, tag), i < n. */
static void fill_dev(int *dev, size_t n, int pe, int tag)
{
    int *h = gt_xmalloc(n * sizeof(int));

    for (size_t i = 0; i < n; i++)
        h[i] = val(pe, i, tag);
    to_dev(dev, h, n * sizeof(int));
    free(h);
}

/* Compares got[i] with want[i]; reports the first mismatch and the count. */
static void expect(const char *what, const int *got, const int *want, size_t n)
{
    size_t bad = 0, first = 0;

    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i] && bad++ == 0)
            first = i;
    CHECK_MSG(bad == 0,
              "%s: %zu of %zu elements differ, first [%zu] = %d, "
              "want %d",
              what, bad, n, first, got[first], want[first]);
}

/* Every member has read its results before anyone writes a dest again. */
static shmem_team_t cur_team;

static void check(const char *what, const int *got, const int *want, size_t n)
{
    expect(what, got, want, n);
    shmem_team_sync(cur_team);
}

/* The buffers of one round: allocated by every PE (collective). */
typedef struct bufs {
    int *src, *dst; /* device, LARGE * MAXPE ints each */
    int *hdst;      /* host symmetric, as large */
} bufs_t;

/* Team member k as a world PE: start + k * stride. */
typedef struct shape {
    shmem_team_t team;
    int n, my, start, stride;
} shape_t;

static void t_broadcast(const shape_t *s, bufs_t *b, size_t n, int root)
{
    int *want = gt_xmalloc(n * sizeof(int)), *got;
    int wroot = s->start + root * s->stride;

    for (size_t i = 0; i < n; i++)
        want[i] = val(wroot, i, 1);
    fill_dev(b->src, n, me, 1);
    shmem_int_broadcast(s->team, b->dst, b->src, n, root);
    got = from_dev(b->dst, n);
    check("broadcast device->device", got, want, n);
    free(got);
    shmem_broadcastmem(s->team, b->hdst, b->src, n * sizeof(int), root);
    check("broadcast device->host", b->hdst, want, n);
    shmem_team_sync(s->team);
    free(want);
}

static void t_collect(const shape_t *s, bufs_t *b, size_t n)
{
    size_t total = 0, at = 0, mine = n + (size_t)s->my;
    int *want = gt_xmalloc((n + MAXPE) * (size_t)s->n * sizeof(int)), *got;

    /* fcollect: n from everyone */
    fill_dev(b->src, mine, me, 2);
    shmem_int_fcollect(s->team, b->dst, b->src, n);
    for (int k = 0; k < s->n; k++)
        for (size_t i = 0; i < n; i++)
            want[(size_t)k * n + i] = val(s->start + k * s->stride, i, 2);
    got = from_dev(b->dst, n * (size_t)s->n);
    check("fcollect", got, want, n * (size_t)s->n);
    free(got);
    /* collect: team PE k gives n + k */
    shmem_int_collect(s->team, b->dst, b->src, mine);
    for (int k = 0; k < s->n; k++) {
        for (size_t i = 0; i < n + (size_t)k; i++)
            want[at++] = val(s->start + k * s->stride, i, 2);
        total += n + (size_t)k;
    }
    got = from_dev(b->dst, total);
    check("collect", got, want, total);
    free(got);
    free(want);
}

static void t_alltoall(const shape_t *s, bufs_t *b, size_t n)
{
    size_t all = n * (size_t)s->n;
    int *h = gt_xmalloc(3 * all * sizeof(int)), *got;
    int *want = gt_xmalloc(3 * all * sizeof(int));

    /* block j of PE p's source: val(p, j * n + i, 3) */
    fill_dev(b->src, 3 * all, me, 3);
    shmem_int_alltoall(s->team, b->dst, b->src, n);
    for (int j = 0; j < s->n; j++)
        for (size_t i = 0; i < n; i++)
            want[(size_t)j * n + i] =
                val(s->start + j * s->stride, (size_t)s->my * n + i, 3);
    got = from_dev(b->dst, all);
    check("alltoall", got, want, all);
    free(got);
    /* alltoalls, dst 2, sst 3: element i of block j of PE p's source is at
     * (j * n + i) * 3; it lands at (p * n + i) * 2 of PE j's dest. */
    memset(h, 0, 2 * all * sizeof(int));
    to_dev(b->dst, h, 2 * all * sizeof(int));
    shmem_team_sync(s->team);
    shmem_int_alltoalls(s->team, b->dst, b->src, 2, 3, n);
    memset(want, 0, 2 * all * sizeof(int));
    for (int p = 0; p < s->n; p++)
        for (size_t i = 0; i < n; i++)
            want[((size_t)p * n + i) * 2] =
                val(s->start + p * s->stride, ((size_t)s->my * n + i) * 3, 3);
    got = from_dev(b->dst, 2 * all - 1);
    check("alltoalls", got, want, 2 * all - 1);
    free(got);
    free(h);
    free(want);
}

/* Sum, max over the team of val(p, i, tag); and the inclusive/exclusive
 * prefix sums over team order. */
static void reduce_want(const shape_t *s, size_t n, int tag, int *sum, int *max,
                        int *in, int *ex)
{
    for (size_t i = 0; i < n; i++) {
        sum[i] = 0, max[i] = val(s->start, i, tag);
        for (int k = 0; k < s->n; k++) {
            int v = val(s->start + k * s->stride, i, tag);

            if (k < s->my)
                ex[i] = sum[i] + v;
            sum[i] += v;
            max[i] = v > max[i] ? v : max[i];
            if (k == s->my)
                in[i] = sum[i];
        }
        if (s->my == 0)
            ex[i] = 0;
    }
}

static void t_reduce(const shape_t *s, bufs_t *b, size_t n)
{
    int *sum = gt_xmalloc(n * sizeof(int)), *max = gt_xmalloc(n * sizeof(int));
    int *in = gt_xmalloc(n * sizeof(int)), *ex = gt_xmalloc(n * sizeof(int));
    int *got;

    reduce_want(s, n, 4, sum, max, in, ex);
    fill_dev(b->src, n, me, 4);
    shmem_int_sum_reduce(s->team, b->dst, b->src, n);
    got = from_dev(b->dst, n);
    check("sum_reduce", got, sum, n);
    free(got);
    shmem_int_max_reduce(s->team, b->hdst, b->src, n);
    check("max_reduce device->host", b->hdst, max, n);
    shmem_int_sum_inscan(s->team, b->dst, b->src, n);
    got = from_dev(b->dst, n);
    check("sum_inscan", got, in, n);
    free(got);
    shmem_int_sum_exscan(s->team, b->dst, b->src, n);
    got = from_dev(b->dst, n);
    check("sum_exscan", got, ex, n);
    free(got);
    shmem_int_sum_reduce(s->team, b->src, b->src, n); /* in place */
    got = from_dev(b->src, n);
    check("sum_reduce in place", got, sum, n);
    free(got);
    free(sum), free(max), free(in), free(ex);
}

static void team_round(const shape_t *s, bufs_t *b)
{
    size_t sizes[2] = {SMALL, LARGE};

    for (int k = 0; k < 2; k++) {
        t_broadcast(s, b, sizes[k], 0);
        t_broadcast(s, b, sizes[k], s->n - 1);
        t_collect(s, b, sizes[k] / (size_t)s->n);
        t_alltoall(s, b, sizes[k] / (size_t)s->n / 3 + 1);
        t_reduce(s, b, sizes[k]);
    }
}

/* The deprecated forms on an active set (start 0, 2^log stride). */
static void as_round(const shape_t *s, bufs_t *b, int log)
{
    size_t n = SMALL, all;
    int *sum = gt_xmalloc(LARGE * sizeof(int));
    int *max = gt_xmalloc(LARGE * sizeof(int));
    int *in = gt_xmalloc(LARGE * sizeof(int));
    int *ex = gt_xmalloc(LARGE * sizeof(int)), *got;

    /* broadcast64 from set member 1 (or 0): the root's dest stays alone */
    int root = s->n > 1 ? 1 : 0;
    reduce_want(s, LARGE, 5, sum, max, in, ex);
    fill_dev(b->src, LARGE, me, 5);
    fill_dev(b->dst, n, me, 9);
    shmem_broadcast64(b->dst, b->src, n / 2, root, 0, log, s->n, psync);
    got = from_dev(b->dst, n);
    for (size_t i = 0; i < n; i++)
        in[i] = s->my == root ? val(me, i, 9)
                              : val(s->start + root * s->stride, i, 5);
    check("broadcast64", got, in, n);
    free(got);
    shmem_fcollect64(b->dst, b->src, n / 2, 0, log, s->n, psync);
    all = n * (size_t)s->n;
    got = from_dev(b->dst, all);
    for (size_t i = 0; i < all; i++)
        ex[i] = val(s->start + (int)(i / n) * s->stride, i % n, 5);
    check("fcollect64", got, ex, all);
    free(got);
    shmem_int_sum_to_all(b->dst, b->src, LARGE, 0, log, s->n, pwrk, psync);
    got = from_dev(b->dst, LARGE);
    check("int_sum_to_all", got, sum, LARGE);
    free(got);
    shmem_int_max_to_all(b->dst, b->src, (int)n, 0, log, s->n, pwrk, psync);
    got = from_dev(b->dst, n);
    check("int_max_to_all", got, max, n);
    free(got);
    free(sum), free(max), free(in), free(ex);
}

/* The active-set exchanges: collect32, alltoall64, alltoalls32 (source
 * still val(pe, i, 5) from as_round). */
static void as_exchanges(const shape_t *s, bufs_t *b, int log)
{
    size_t mine = 100 + (size_t)s->my, at = 0, blk = 4, ne = 5;
    size_t all = (size_t)s->n * 2 * ne * 3;
    int *want = gt_xmalloc((LARGE + all) * sizeof(int)), *got;

    shmem_collect32(b->dst, b->src, mine, 0, log, s->n, psync);
    for (int k = 0; k < s->n; k++)
        for (size_t i = 0; i < 100 + (size_t)k; i++)
            want[at++] = val(s->start + k * s->stride, i, 5);
    got = from_dev(b->dst, at);
    check("collect32", got, want, at);
    free(got);
    /* 2 64-bit elements per block: 4 ints */
    shmem_alltoall64(b->dst, b->src, blk / 2, 0, log, s->n, psync);
    for (int p = 0; p < s->n; p++)
        for (size_t i = 0; i < blk; i++)
            want[(size_t)p * blk + i] =
                val(s->start + p * s->stride, (size_t)s->my * blk + i, 5);
    got = from_dev(b->dst, blk * (size_t)s->n);
    check("alltoall64", got, want, blk * (size_t)s->n);
    free(got);
    memset(want, 0, all * sizeof(int));
    to_dev(b->dst, want, all * sizeof(int));
    shmem_team_sync(s->team);
    shmem_alltoalls32(b->dst, b->src, 2, 3, ne, 0, log, s->n, psync);
    for (int p = 0; p < s->n; p++)
        for (size_t i = 0; i < ne; i++)
            want[((size_t)p * ne + i) * 2] =
                val(s->start + p * s->stride, ((size_t)s->my * ne + i) * 3, 5);
    got = from_dev(b->dst, all);
    check("alltoalls32", got, want, all);
    free(got);
    free(want);
}

static void run(shape_t *s, int log)
{
    bufs_t b;

    b.src = dalloc((size_t)LARGE * MAXPE * sizeof(int));
    b.dst = dalloc((size_t)LARGE * MAXPE * sizeof(int));
    b.hdst = shmem_malloc((size_t)LARGE * MAXPE * sizeof(int));
    if (s->my >= 0) {
        cur_team = s->team;
        team_round(s, &b);
        as_round(s, &b, log);
        as_exchanges(s, &b, log);
    }
    shmem_barrier_all();
    shmem_free(b.hdst);
    shmem_free(b.dst);
    shmem_free(b.src);
}

int main(int argc, char **argv)
{
    shape_t world, half;
    void *probe;

    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    probe = shmemx_malloc_device(64);
    if (!probe || npes > MAXPE) {
        if (me == 0)
            printf("%s: skipped\n", probe ? "more than 16 PEs"
                                          : "no device heap (set "
                                            "SHMEM_DEVICE_BACKEND=mock)");
        fflush(stdout);
        shmem_finalize();
        return 77;
    }
    if (argc > 1 && strcmp(argv[1], "badpsync") == 0) {
        shmem_broadcast64(probe, probe, 1, 0, 0, 0, npes, probe);
        shmem_finalize();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "badbarrier") == 0) {
        shmem_barrier(0, 0, npes, probe);
        shmem_finalize();
        return 0;
    }
    world = (shape_t){SHMEM_TEAM_WORLD, npes, me, 0, 1};
    run(&world, 0);
    half = (shape_t){SHMEM_TEAM_INVALID, (npes + 1) / 2, -1, 0, 2};
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, half.n, NULL, 0,
                             &half.team);
    if (half.team != SHMEM_TEAM_INVALID)
        half.my = shmem_team_my_pe(half.team);
    run(&half, 1);
    if (half.team != SHMEM_TEAM_INVALID)
        shmem_team_destroy(half.team);
    shmem_free(probe);
    return check_pes_end("device_coll");
}
