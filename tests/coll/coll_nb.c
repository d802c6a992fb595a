/*
 * Nonblocking collectives (docs/nonblocking-collectives.md), checked
 * element by element against their formulas:
 *   - many in flight on SHMEM_TEAM_WORLD at once (syncs, broadcasts from
 *     every root, alltoalls, sum and max reductions, typed, mem and C11
 *     generic forms), completed in reverse order with shmemx_req_wait,
 *     some by polling shmemx_req_test;
 *   - a caller that computes without entering the library: after the
 *     posts it only reads its destination buffers (plain loads) until
 *     they hold the result, then waits; the results must arrive within
 *     WAIT_S seconds without any call (the lanes progress them);
 *   - nonblocking collectives on a split team beside blocking ones on the
 *     world, and a blocking collective on the team while some are in
 *     flight, which must find them complete;
 *   - a team destroyed with a collective in flight, and a request never
 *     completed when shmem_finalize comes.
 */
#include <shmemx.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "tests/common/check_pes.h"

#define NREQ 8      /* collectives of each kind in flight at once */
#define CNT 1024    /* elements per block */
#define WAIT_S 20.0 /* seconds the computing caller waits for its results */

static long *bsrc, *bdst;     /* broadcast: NREQ blocks of CNT */
static int *asrc, *adst;      /* alltoall: NREQ x npes blocks of CNT */
static double *rsrc, *rdst;   /* sum reduction: NREQ blocks of CNT */
static long *msrc, *mdst;     /* max reduction (generic form) */
static unsigned char *msg;    /* broadcastmem */

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long bval(int root, int k, int i) { return root * 100000L + k * 1000L + i; }
static int aval(int from, int to, int k, int i) { return from * 1000000 + to * 10000 + k * 1000 + i; }
static double rval(int pe, int k, int i) { return pe + 0.5 * k + i; }

/* Posts NREQ of each kind; req[] gets 4 * NREQ + 2 requests. */
static int post_all(shmemx_req_h *req, int round)
{
    int me = shmem_my_pe(), n = shmem_n_pes(), r = 0;

    for (int k = 0; k < NREQ; k++) {
        int root = (k + round) % n;

        for (int i = 0; i < CNT; i++) {
            bsrc[k * CNT + i] = bval(me, k + round, i);
            bdst[k * CNT + i] = -1;
            rsrc[k * CNT + i] = rval(me, k + round, i);
            rdst[k * CNT + i] = -1;
            msrc[k * CNT + i] = me * 7 + k + i + round;
            mdst[k * CNT + i] = -1;
            for (int p = 0; p < n; p++) {
                asrc[((size_t)k * n + p) * CNT + i] = aval(me, p, k + round, i);
                adst[((size_t)k * n + p) * CNT + i] = -1;
            }
        }
        (void)root;
    }
    memset(msg, 0, 64);
    if (me == 0)
        for (int i = 0; i < 64; i++)
            msg[64 + i] = (unsigned char)(i + round);
    /* Every destination is ready before any PE's post reaches it. */
    shmem_barrier_all();
    for (int k = 0; k < NREQ; k++) {
        int root = (k + round) % n;

        CHECK(shmemx_long_broadcast_nb(SHMEM_TEAM_WORLD, bdst + k * CNT,
                                       bsrc + k * CNT, CNT, root,
                                       &req[r++]) == 0);
        CHECK(shmemx_int_alltoall_nb(SHMEM_TEAM_WORLD,
                                     adst + (size_t)k * n * CNT,
                                     asrc + (size_t)k * n * CNT, CNT,
                                     &req[r++]) == 0);
        CHECK(shmemx_double_sum_reduce_nb(SHMEM_TEAM_WORLD, rdst + k * CNT,
                                          rsrc + k * CNT, CNT,
                                          &req[r++]) == 0);
        CHECK(shmemx_max_reduce_nb(SHMEM_TEAM_WORLD, mdst + k * CNT,
                                   msrc + k * CNT, CNT, &req[r++]) == 0);
    }
    CHECK(shmemx_sync_nb(SHMEM_TEAM_WORLD, &req[r++]) == 0);
    CHECK(shmemx_broadcastmem_nb(SHMEM_TEAM_WORLD, msg, msg + 64, 64, 0,
                                 &req[r++]) == 0);
    return r;
}

/* 1 when every destination holds its result (plain loads only). */
static int results_in(int round, int check)
{
    int me = shmem_my_pe(), n = shmem_n_pes(), ok = 1;
    double sum_pe = (n - 1) * n / 2.0;

    for (int k = 0; k < NREQ; k++) {
        int root = (k + round) % n;

        for (int i = 0; i < CNT; i += (check ? 1 : 97)) {
            volatile long *b = bdst;
            volatile int *a = adst;
            volatile double *rd = rdst;
            volatile long *m = mdst;
            double want = sum_pe + n * (0.5 * (k + round) + i);
            long mwant = (n - 1) * 7 + k + i + round;

            ok &= b[k * CNT + i] == bval(root, k + round, i);
            ok &= rd[k * CNT + i] == want;
            ok &= m[k * CNT + i] == mwant;
            for (int p = 0; p < n; p++)
                ok &= a[((size_t)k * n + p) * CNT + i] ==
                      aval(p, me, k + round, i);
            if (check && !ok) {
                CHECK_MSG(0, "round %d block %d element %d wrong", round, k,
                          i);
                return 0;
            }
        }
    }
    for (int i = 0; i < 64; i++)
        ok &= ((volatile unsigned char *)msg)[i] == (unsigned char)(i + round);
    if (check)
        CHECK_MSG(ok, "round %d: broadcastmem wrong", round);
    return ok;
}

static void many_in_flight(void)
{
    shmemx_req_h req[4 * NREQ + 2];
    int n;

    /* Round 0: completed in reverse order of posting. */
    n = post_all(req, 0);
    for (int i = n - 1; i >= 0; i--)
        CHECK(shmemx_req_wait(req[i]) == 0);
    results_in(0, 1);
    shmem_barrier_all();
    /* Round 1: completed by polling shmemx_req_test, odd ones first. */
    n = post_all(req, 1);
    for (int pass = 0; pass < 2; pass++)
        for (int i = pass == 0 ? 1 : 0; i < n; i += 2) {
            int rc;

            while ((rc = shmemx_req_test(req[i])) == 1)
                ;
            CHECK(rc == 0);
        }
    results_in(1, 1);
    shmem_barrier_all();
}

/* The caller computes (plain loads) until its results are in: they must
 * arrive without a single call into the library. */
static void progress_without_calls(void)
{
    shmemx_req_h req[4 * NREQ + 2];
    double t0;
    int n, arrived = 0;

    n = post_all(req, 2);
    t0 = now();
    while (now() - t0 < WAIT_S)
        if (results_in(2, 0)) {
            arrived = 1;
            break;
        }
    CHECK_MSG(arrived, "the results of posted collectives did not arrive "
                       "within %.0f s without a call into the library",
              WAIT_S);
    for (int i = 0; i < n; i++)
        CHECK(shmemx_req_wait(req[i]) == 0);
    results_in(2, 1);
    shmem_barrier_all();
}

/* Nonblocking collectives on a team beside blocking ones on the world; a
 * blocking collective on the team finds the earlier ones complete. */
static void teams(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_team_t even = SHMEM_TEAM_INVALID;
    shmemx_req_h req[4];
    static long s[CNT], d[CNT], w[CNT];

    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0,
                             &even);
    for (int i = 0; i < CNT; i++)
        s[i] = me + i, d[i] = -1, w[i] = 0;
    shmem_barrier_all();
    if (even != SHMEM_TEAM_INVALID) {
        int tn = shmem_team_n_pes(even);

        CHECK(shmemx_sum_reduce_nb(even, d, s, CNT, &req[0]) == 0);
        CHECK(shmemx_sync_nb(even, &req[1]) == 0);
        /* Blocking on the world while the team's are in flight. */
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, w, s, CNT);
        /* Blocking on the team: ordered after the posted ones, so the
         * reduction is complete when it returns, before any wait. */
        shmem_team_sync(even);
        for (int i = 0; i < CNT; i++) {
            long want = 0;

            for (int p = 0; p < tn; p++)
                want += 2 * p + i;
            CHECK(d[i] == want);
        }
        CHECK(shmemx_req_wait(req[0]) == 0);
        CHECK(shmemx_req_wait(req[1]) == 0);
        /* Destroyed with a collective in flight: it runs to its end. */
        CHECK(shmemx_sync_nb(even, &req[2]) == 0);
        shmem_team_destroy(even);
    } else {
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, w, s, CNT);
    }
    for (int i = 0; i < CNT; i++)
        CHECK(w[i] == (long)n * (n - 1) / 2 + (long)n * i);
    shmem_barrier_all();
}

int main(void)
{
    int n;
    shmemx_req_h never;

    shmem_init();
    n = shmem_n_pes();
    bsrc = shmem_malloc(sizeof(long) * NREQ * CNT);
    bdst = shmem_malloc(sizeof(long) * NREQ * CNT);
    asrc = shmem_malloc(sizeof(int) * (size_t)NREQ * n * CNT);
    adst = shmem_malloc(sizeof(int) * (size_t)NREQ * n * CNT);
    rsrc = shmem_malloc(sizeof(double) * NREQ * CNT);
    rdst = shmem_malloc(sizeof(double) * NREQ * CNT);
    msrc = shmem_malloc(sizeof(long) * NREQ * CNT);
    mdst = shmem_malloc(sizeof(long) * NREQ * CNT);
    msg = shmem_malloc(128);
    CHECK(bsrc && bdst && asrc && adst && rsrc && rdst && msrc && mdst && msg);
    many_in_flight();
    progress_without_calls();
    teams();
    /* Never completed: shmem_finalize runs it to its end. */
    shmemx_barrier_all_nb(&never);
    return check_pes_end("coll_nb");
}
