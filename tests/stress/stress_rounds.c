/*
 * The soak test's coordinated steps (see stress.c): every PE draws them from
 * the same round seed, so all take part in the same signal ring and the
 * same collective with the same sizes, and the round ends with the checks
 * of everything written during it.
 */
#include <shmem.h>

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "stress.h"

void ring_step(stress_t *st, uint64_t *rs, long round)
{
    int np = st->npes;
    int k = np > 1 ? 1 + (int)rnd_below(rs, (uint64_t)np - 1) : 0;
    size_t n = rnd_size(rs, st->max_size);
    int to = (st->me + k) % np, from = (st->me - k + np) % np;
    uint64_t stamp = (uint64_t)round + 1;

    phase = "signal ring: put_signal";
    fill(st->lbuf[0], n, (uint64_t)st->me, (uint64_t)to, (uint64_t)round, 0);
    shmem_putmem_signal(st->ringbuf, st->lbuf[0], n, st->sig_ring, stamp,
                        SHMEM_SIGNAL_SET, to);
    phase = "signal ring: signal_wait_until";
    uint64_t got = shmem_signal_wait_until(st->sig_ring, SHMEM_CMP_EQ, stamp);
    if (got != stamp)
        error(st, "shmem_signal_wait_until returned %" PRIu64 ", expected %" PRIu64,
              got, stamp);
    check(st, "put_signal data after the signal", st->ringbuf, n,
          (uint64_t)from, (uint64_t)st->me, (uint64_t)round, 0);
    st->ops += 2;
}

static void coll_broadcast(stress_t *st, uint64_t *rs, long round)
{
    size_t n = rnd_size(rs, st->max_size);
    int root = (int)rnd_below(rs, (uint64_t)st->npes);

    phase = "broadcastmem";
    if (st->me == root)
        fill(st->csrc, n, (uint64_t)root, 0xb, (uint64_t)round, 0);
    int rc = shmem_broadcastmem(SHMEM_TEAM_WORLD, st->cdst, st->csrc, n, root);
    if (rc != 0)
        error(st, "shmem_broadcastmem returned %d", rc);
    check(st, "broadcastmem", st->cdst, n, (uint64_t)root, 0xb,
          (uint64_t)round, 0);
}

static void coll_reduce(stress_t *st, uint64_t *rs, long round)
{
    size_t n = rnd_size(rs, st->max_reduce) / sizeof(long);
    long *src = (long *)st->csrc, *dst = (long *)st->cdst;
    long np = st->npes;

    n = n ? n : 1;
    phase = "sum_reduce";
    if (rnd_below(rs, 2)) {
        for (size_t i = 0; i < n; i++)
            src[i] = st->me * 1000L + (long)i + round;
        int rc = shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, n);
        if (rc != 0)
            error(st, "shmem_long_sum_reduce returned %d", rc);
        for (size_t i = 0; i < n; i++) {
            long want = 1000L * np * (np - 1) / 2 + np * ((long)i + round);
            if (dst[i] != want) {
                error(st, "shmem_long_sum_reduce: element %zu of %zu is %ld, "
                      "expected %ld", i, n, dst[i], want);
                break;
            }
        }
    } else {
        double *ds = (double *)src, *dd = (double *)dst;
        for (size_t i = 0; i < n; i++)
            ds[i] = (double)(st->me + 1) * 0.5 + (double)(i % 1024);
        int rc = shmem_double_sum_reduce(SHMEM_TEAM_WORLD, dd, ds, n);
        if (rc != 0)
            error(st, "shmem_double_sum_reduce returned %d", rc);
        for (size_t i = 0; i < n; i++) {
            /* every term is a multiple of 0.5 well below 2^52: exact */
            double want = 0.25 * (double)(np * (np + 1)) + (double)np * (double)(i % 1024);
            if (dd[i] != want) {
                error(st, "shmem_double_sum_reduce: element %zu of %zu is %g, "
                      "expected %g", i, n, dd[i], want);
                break;
            }
        }
    }
}

static void coll_fcollect(stress_t *st, uint64_t *rs, long round)
{
    size_t n = rnd_size(rs, st->max_size / (size_t)st->npes);

    phase = "fcollectmem";
    fill(st->csrc, n, (uint64_t)st->me, 0xfc, (uint64_t)round, 0);
    int rc = shmem_fcollectmem(SHMEM_TEAM_WORLD, st->cdst, st->csrc, n);
    if (rc != 0)
        error(st, "shmem_fcollectmem returned %d", rc);
    for (int p = 0; p < st->npes; p++)
        if (check(st, "fcollectmem", st->cdst + (size_t)p * n, n, (uint64_t)p,
                  0xfc, (uint64_t)round, 0))
            break;
}

static void coll_barrier(stress_t *st, long round)
{
    long *cell = (long *)st->cdst;

    phase = "barrier_all";
    shmem_long_p(cell, round + 1, (st->me + 1) % st->npes);
    shmem_barrier_all();
    if (*cell != round + 1)
        error(st, "after shmem_barrier_all, a put from PE %d is not visible "
              "(%ld, expected %ld)", (st->me + st->npes - 1) % st->npes,
              *cell, round + 1);
}

void collective_step(stress_t *st, uint64_t *rs, long round)
{
    switch (rnd_below(rs, 4)) {
    case 0: coll_barrier(st, round); break;
    case 1: coll_broadcast(st, rs, round); break;
    case 2: coll_reduce(st, rs, round); break;
    default: coll_fcollect(st, rs, round); break;
    }
    st->ops++;
}

/* --- the round end: everything written this round is checked --- */

static void verify_slots(stress_t *st)
{
    phase = "round end: slots";
    for (int w = 0; w < st->npes; w++) {
        const slot_hdr_t *h = &st->hdr[w];
        if (h->nparts > HDR_PARTS) {
            error(st, "slot header from PE %d is corrupt (%" PRIu64 " parts)",
                  w, h->nparts);
            continue;
        }
        for (uint64_t i = 0; i < h->nparts; i++) {
            if (h->off[i] + h->len[i] > SLOT_SIZE) {
                error(st, "slot header from PE %d is corrupt", w);
                break;
            }
            check(st, "data put here, read at the target",
                  slot(st, w) + h->off[i], h->len[i], (uint64_t)w,
                  (uint64_t)st->me, h->seq[i], h->off[i]);
        }
    }
}

static void verify_counters(stress_t *st, const long *tot)
{
    int me = st->me, np = st->npes;
    long have[K_NKINDS];
    static const char *const names[K_NKINDS] = {
        "int add/fetch_add", "long add/fetch_add/compare_swap", "ulonglong fetch_add",
        "int compare_swap tickets", "put_with_signal ADD signals"
    };

    phase = "round end: counters";
    have[K_INT] = shmem_int_atomic_fetch(st->ctr_int, me);
    have[K_LONG] = shmem_long_atomic_fetch(st->ctr_long, me);
    have[K_ULL] = (long)shmem_ulonglong_atomic_fetch(st->ctr_ull, me);
    have[K_CAS] = shmem_int_atomic_fetch(st->cas_ctr, me);
    have[K_SIG] = (long)shmem_signal_fetch(st->sig_add);
    for (int k = 0; k < K_NKINDS; k++)
        if (have[k] != tot[k * np + me] && !st->counter_off[k]++)
            error(st, "%s: this PE's counter is %ld, the PEs added %ld",
                  names[k], have[k], tot[k * np + me]);
}

/* Returns non-zero when the run is over (PE 0 decides, all agree). */
int round_end(stress_t *st, int stop_here)
{
    int np = st->npes, nk = K_NKINDS * np;

    phase = "round end: barrier_all";
    shmem_barrier_all();
    verify_slots(st);
    for (int i = 0; i < nk; i++)
        st->red_src[i] = st->added[i];
    st->red_src[nk] = stop_here;
    phase = "round end: sum_reduce of counters";
    if (shmem_long_sum_reduce(SHMEM_TEAM_WORLD, st->red_dst, st->red_src,
                              (size_t)nk + 1) != 0)
        error(st, "shmem_long_sum_reduce (round end) failed");
    verify_counters(st, st->red_dst);
    long stop = st->red_dst[nk];
    /* ready for next round's collectives: stale data cannot pass a check */
    memset(st->cdst, 0, SLOT_SIZE);
    phase = "round end: second barrier_all";
    shmem_barrier_all();
    return stop != 0;
}
