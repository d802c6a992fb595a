/*
 * Bounded soak test: every PE issues a random mix of RMA, atomics, signals
 * and collectives for a given time and checks every result.
 *
 * Usage: stress [--seconds S] [--seed N] [--max-size BYTES] [--max-reduce BYTES]
 *   --max-size    largest message, 1 B .. 1 MiB (default 1 MiB)
 *   --max-reduce  largest reduction in bytes (default: --max-size); the
 *                 reductions over libfabric are slow for large arrays, so
 *                 the timed CI cases keep them smaller
 *
 * The data is laid out so that each PE can predict what it must read:
 * - slots: on every PE, one region per writer PE; only that writer puts
 *   there, with a byte pattern derived from (writer, target, sequence,
 *   offset). After the data the writer puts a header describing the last
 *   write; at the end of each round every target checks its slots against
 *   the headers (visibility at the target), and every put is read back by
 *   its writer (visibility at the initiator);
 * - getsrc: a region whose fixed pattern is written before the first round;
 * - counters (int, long, unsigned long long, CAS tickets, put_with_signal
 *   ADD signals): each PE counts what it added on each target, and a
 *   sum_reduce at the end of each round gives the totals every target must
 *   hold;
 * - swap/set cells: one per (writer, target), so the writer knows the value
 *   each swap must return and each fetch must read.
 * The PEs share a round seed (the same on all PEs) that chooses the
 * collectives and the signal ring of the round (stress_rounds.c); each PE
 * has its own seed, printed, for its point-to-point operations.
 */
#include <shmem.h>

#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stress.h"

volatile const char *phase = "start-up";

static void on_alarm(int sig)
{
    (void)sig;
    char msg[256];
    int n = snprintf(msg, sizeof msg,
                     "stress[pe %d]: watchdog: no progress, stuck in %s\n",
                     shmem_my_pe(), (const char *)phase);
    if (n > 0)
        (void)!write(2, msg, (size_t)n);
    _exit(3);
}

uint64_t rnd(uint64_t *s)
{
    /* splitmix64: small, fast and good enough to vary the mix */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t rnd_below(uint64_t *s, uint64_t n)
{
    return n ? rnd(s) % n : 0;
}

/* 1 B .. max, log-uniform so that small messages dominate. */
size_t rnd_size(uint64_t *s, size_t max)
{
    unsigned bits = 0;
    while (((size_t)1 << (bits + 1)) <= max)
        bits++;
    size_t lo = (size_t)1 << rnd_below(s, bits + 1);
    size_t n = lo + rnd_below(s, lo);
    return n > max ? max : n;
}

static unsigned char pat(uint64_t a, uint64_t b, uint64_t seq, size_t i)
{
    uint64_t x = (seq * 0x9e37u) ^ (a * 131u) ^ (b * 7919u);
    return (unsigned char)(x + i + (i >> 8) * 13u + (i >> 16) * 101u);
}

void fill(unsigned char *p, size_t n, uint64_t a, uint64_t b,
                 uint64_t seq, size_t off)
{
    for (size_t i = 0; i < n; i++)
        p[i] = pat(a, b, seq, off + i);
}

void error(stress_t *st, const char *fmt, ...)
{
    if (st->errors++ < MAX_ERRORS_SHOWN) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "stress[pe %d]: ERROR: ", st->me);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
}

/* Returns 0 when p holds the pattern, else reports the first wrong byte. */
int check(stress_t *st, const char *what, const unsigned char *p,
                 size_t n, uint64_t a, uint64_t b, uint64_t seq, size_t off)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char want = pat(a, b, seq, off + i);
        if (p[i] != want) {
            error(st, "%s: byte %zu of %zu is 0x%02x, expected 0x%02x "
                  "(writer %" PRIu64 ", target %" PRIu64 ", seq %" PRIu64 ")",
                  what, i, n, p[i], want, a, b, seq);
            return -1;
        }
    }
    return 0;
}

unsigned char *slot(stress_t *st, int writer)
{
    return st->slots + (size_t)writer * SLOT_SIZE;
}

/* After the data reached the target, describe it in the target's header. */
static void put_header(stress_t *st, int t, const slot_hdr_t *h)
{
    shmem_quiet();
    shmem_putmem(&st->hdr[st->me], h, sizeof *h, t);
}

/* put, quiet, get back: both the initiator and (later) the target check. */
static void op_put(stress_t *st, int t)
{
    size_t n = rnd_size(&st->rng, st->max_size);
    size_t off = rnd_below(&st->rng, SLOT_SIZE - n + 1);
    uint64_t seq = st->seq[t]++;
    slot_hdr_t h = { .nparts = 1, .off = { off }, .len = { n }, .seq = { seq } };

    phase = "putmem";
    fill(st->lbuf[0], n, (uint64_t)st->me, (uint64_t)t, seq, off);
    shmem_putmem(slot(st, st->me) + off, st->lbuf[0], n, t);
    shmem_quiet();
    memset(st->lbuf[1], 0, n);
    phase = "getmem (read back)";
    shmem_getmem(st->lbuf[1], slot(st, st->me) + off, n, t);
    check(st, "put then get", st->lbuf[1], n, (uint64_t)st->me, (uint64_t)t,
          seq, off);
    put_header(st, t, &h);
    st->ops += 2;
}

/* Several non-blocking puts to (maybe different) targets, quiet, then
 * non-blocking gets of the same data, quiet, check. */
static void op_nbi(stress_t *st)
{
    int nparts = 1 + (int)rnd_below(&st->rng, HDR_PARTS);
    size_t part = SLOT_SIZE / HDR_PARTS;
    size_t maxn = st->max_size < part ? st->max_size : part;
    int tgt[HDR_PARTS], i;
    size_t n[HDR_PARTS], off[HDR_PARTS];
    uint64_t seq[HDR_PARTS];

    phase = "put_nbi";
    for (i = 0; i < nparts; i++) {
        tgt[i] = (int)rnd_below(&st->rng, (uint64_t)st->npes);
        n[i] = rnd_size(&st->rng, maxn);
        /* part i of a batch owns quarter i of the slot: no overlap */
        off[i] = part * (size_t)i + rnd_below(&st->rng, part - n[i] + 1);
        seq[i] = st->seq[tgt[i]]++;
        fill(st->lbuf[i], n[i], (uint64_t)st->me, (uint64_t)tgt[i], seq[i], off[i]);
        shmem_putmem_nbi(slot(st, st->me) + off[i], st->lbuf[i], n[i], tgt[i]);
    }
    phase = "quiet after put_nbi";
    shmem_quiet();
    for (i = 0; i < nparts; i++)
        memset(st->lbuf[i], 0, n[i]);
    phase = "get_nbi";
    for (i = 0; i < nparts; i++)
        shmem_getmem_nbi(st->lbuf[i], slot(st, st->me) + off[i], n[i], tgt[i]);
    phase = "quiet after get_nbi";
    shmem_quiet();
    /* one header per target, listing every part that went there */
    for (int t = 0; t < st->npes; t++) {
        slot_hdr_t h;
        memset(&h, 0, sizeof h);
        for (i = 0; i < nparts; i++) {
            if (tgt[i] != t)
                continue;
            check(st, "put_nbi then get_nbi", st->lbuf[i], n[i],
                  (uint64_t)st->me, (uint64_t)t, seq[i], off[i]);
            h.off[h.nparts] = off[i];
            h.len[h.nparts] = n[i];
            h.seq[h.nparts] = seq[i];
            h.nparts++;
        }
        if (h.nparts)
            put_header(st, t, &h);
    }
    st->ops += 2 * nparts;
}

static void op_get(stress_t *st, int t)
{
    size_t n = rnd_size(&st->rng, st->max_size);
    size_t off = rnd_below(&st->rng, SLOT_SIZE - n + 1);

    phase = "getmem";
    memset(st->lbuf[0], 0, n);
    if (rnd_below(&st->rng, 2)) {
        shmem_getmem(st->lbuf[0], st->getsrc + off, n, t);
    } else {
        shmem_getmem_nbi(st->lbuf[0], st->getsrc + off, n, t);
        shmem_quiet();
    }
    check(st, "get of a fixed region", st->lbuf[0], n, (uint64_t)t,
          (uint64_t)t, 0xfeed, off);
    st->ops++;
}

/* Counts what was added where, for the round-end totals. */
static void count(stress_t *st, int kind, int t, long v)
{
    st->added[kind * st->npes + t] += v;
}

static void op_add(stress_t *st, int t)
{
    long v = 1 + (long)rnd_below(&st->rng, 16);

    phase = "atomic add/fetch_add";
    switch (rnd_below(&st->rng, 5)) {
    case 0:
        shmem_int_atomic_add(st->ctr_int, (int)v, t);
        count(st, K_INT, t, v);
        break;
    case 1: {
        int old = shmem_int_atomic_fetch_add(st->ctr_int, (int)v, t);
        if (old < 0)
            error(st, "shmem_int_atomic_fetch_add on PE %d returned %d", t, old);
        count(st, K_INT, t, v);
        break;
    }
    case 2:
        shmem_long_atomic_add(st->ctr_long, v, t);
        count(st, K_LONG, t, v);
        break;
    case 3:
        (void)shmem_long_atomic_fetch_add(st->ctr_long, v, t);
        count(st, K_LONG, t, v);
        break;
    default: {
        /* only additions: what one PE sees on one target never decreases */
        unsigned long long old =
            shmem_ulonglong_atomic_fetch_add(st->ctr_ull, (unsigned long long)v, t);
        if (old < st->lastfetch[t])
            error(st, "shmem_ulonglong_atomic_fetch_add on PE %d went back "
                  "from %llu to %llu", t, st->lastfetch[t], old);
        st->lastfetch[t] = old + (unsigned long long)v;
        count(st, K_ULL, t, v);
        break;
    }
    }
    st->ops++;
}

/* A ticket increment with fetch + compare_swap retries; on the long
 * counter it races with the other PEs' adds, which must not be lost. */
static void op_cas(stress_t *st, int t)
{
    phase = "atomic compare_swap";
    if (rnd_below(&st->rng, 2)) {
        long v = shmem_long_atomic_fetch(st->ctr_long, t);
        for (long old; (old = shmem_long_atomic_compare_swap(st->ctr_long, v,
                                                             v + 1, t)) != v;) {
            st->ops++;
            if (old < v) {
                error(st, "long compare_swap on PE %d: counter went back "
                      "from %ld to %ld", t, v, old);
                return;
            }
            v = old;
        }
        st->ops++;
        count(st, K_LONG, t, 1);
        return;
    }
    int v = shmem_int_atomic_fetch(st->cas_ctr, t);
    for (int tries = 0;; tries++) {
        int old = shmem_int_atomic_compare_swap(st->cas_ctr, v, v + 1, t);
        st->ops++;
        if (old == v)
            break;
        if (old < v)
            error(st, "compare_swap on PE %d: counter went back from %d to %d",
                  t, v, old);
        v = old;
        if (tries > 100000) {
            error(st, "compare_swap on PE %d: no success in 100000 tries", t);
            return;
        }
    }
    count(st, K_CAS, t, 1);
}

static void op_swap_set_fetch(stress_t *st, int t)
{
    int me = st->me;

    phase = "atomic swap/set/fetch";
    switch (rnd_below(&st->rng, 3)) {
    case 0: {
        long nv = (long)(rnd(&st->rng) >> 2);
        long old = shmem_long_atomic_swap(&st->swap_cell[me], nv, t);
        if (old != st->lastswap[t])
            error(st, "shmem_long_atomic_swap on PE %d returned %ld, expected %ld",
                  t, old, st->lastswap[t]);
        st->lastswap[t] = nv;
        break;
    }
    case 1: {
        double nv = (double)rnd_below(&st->rng, 1u << 30) / 7.0;
        double old = shmem_double_atomic_swap(&st->dswap_cell[me], nv, t);
        if (old != st->lastdswap[t])
            error(st, "shmem_double_atomic_swap on PE %d returned %g, expected %g",
                  t, old, st->lastdswap[t]);
        st->lastdswap[t] = nv;
        break;
    }
    default: {
        float nv = (float)rnd_below(&st->rng, 1u << 20) + 0.5f;
        long lnv = (long)(rnd(&st->rng) >> 3);
        shmem_float_atomic_set(&st->fcell[me], nv, t);
        shmem_long_atomic_set(&st->swap_cell[me], lnv, t);
        st->lastswap[t] = lnv;
        /* set completes at quiet; the fetch must then see it */
        shmem_quiet();
        float got = shmem_float_atomic_fetch(&st->fcell[me], t);
        if (got != nv)
            error(st, "shmem_float_atomic_fetch on PE %d read %g after set %g",
                  t, (double)got, (double)nv);
        long lv = shmem_long_atomic_fetch(&st->swap_cell[me], t);
        if (lv != st->lastswap[t])
            error(st, "shmem_long_atomic_fetch on PE %d read %ld, expected %ld",
                  t, lv, st->lastswap[t]);
        break;
    }
    }
    st->ops++;
}

/* put_with_signal (ADD 1): the data is checked like a put, the signal
 * count at the round end. */
static void op_put_signal(stress_t *st, int t)
{
    size_t n = rnd_size(&st->rng, st->max_size);
    size_t off = rnd_below(&st->rng, SLOT_SIZE - n + 1);
    uint64_t seq = st->seq[t]++;
    slot_hdr_t h = { .nparts = 1, .off = { off }, .len = { n }, .seq = { seq } };

    phase = "putmem_signal (ADD)";
    fill(st->lbuf[0], n, (uint64_t)st->me, (uint64_t)t, seq, off);
    if (rnd_below(&st->rng, 2))
        shmem_putmem_signal(slot(st, st->me) + off, st->lbuf[0], n, st->sig_add,
                            1, SHMEM_SIGNAL_ADD, t);
    else
        shmem_putmem_signal_nbi(slot(st, st->me) + off, st->lbuf[0], n,
                                st->sig_add, 1, SHMEM_SIGNAL_ADD, t);
    count(st, K_SIG, t, 1);
    put_header(st, t, &h);
    st->ops++;
}

double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void note_slow(stress_t *st, const char *what, double t0)
{
    double dt = now() - t0;
    if (dt > st->slowest) {
        st->slowest = dt;
        st->slowest_what = what;
    }
}

static void random_op(stress_t *st)
{
    int t = (int)rnd_below(&st->rng, (uint64_t)st->npes);
    double t0 = now();

    switch (rnd_below(&st->rng, 8)) {
    case 0: op_put(st, t); break;
    case 1: op_nbi(st); break;
    case 2: op_get(st, t); break;
    case 3: case 4: op_add(st, t); break;
    case 5: op_cas(st, t); break;
    case 6: op_swap_set_fetch(st, t); break;
    default: op_put_signal(st, t); break;
    }
    note_slow(st, (const char *)phase, t0);
}


/* --- set-up and main --- */

static void *sym(size_t n)
{
    void *p = shmem_calloc(1, n);
    if (!p) {
        fprintf(stderr, "stress: shmem_calloc(%zu) failed; set "
                "SHMEM_SYMMETRIC_SIZE larger\n", n);
        shmem_global_exit(2);
    }
    return p;
}

static void *priv(size_t n)
{
    void *p = calloc(1, n);
    if (!p) {
        fprintf(stderr, "stress: out of memory\n");
        shmem_global_exit(2);
    }
    return p;
}

static void setup(stress_t *st)
{
    int np = st->npes;

    st->slots = sym((size_t)np * SLOT_SIZE);
    st->hdr = sym((size_t)np * sizeof(slot_hdr_t));
    st->getsrc = sym(SLOT_SIZE);
    st->ringbuf = sym(SLOT_SIZE);
    st->csrc = sym(SLOT_SIZE);
    st->cdst = sym(SLOT_SIZE);
    st->ctr_int = sym(sizeof(int));
    st->ctr_long = sym(sizeof(long));
    st->ctr_ull = sym(sizeof(unsigned long long));
    st->cas_ctr = sym(sizeof(int));
    st->sig_add = sym(sizeof(uint64_t));
    st->sig_ring = sym(sizeof(uint64_t));
    st->swap_cell = sym((size_t)np * sizeof(long));
    st->dswap_cell = sym((size_t)np * sizeof(double));
    st->fcell = sym((size_t)np * sizeof(float));
    st->red_src = sym(((size_t)K_NKINDS * np + 1) * sizeof(long));
    st->red_dst = sym(((size_t)K_NKINDS * np + 1) * sizeof(long));
    for (int i = 0; i < HDR_PARTS; i++)
        st->lbuf[i] = priv(SLOT_SIZE);
    st->added = priv((size_t)K_NKINDS * np * sizeof(long));
    st->lastswap = priv((size_t)np * sizeof(long));
    st->lastdswap = priv((size_t)np * sizeof(double));
    st->seq = priv((size_t)np * sizeof(uint64_t));
    st->lastfetch = priv((size_t)np * sizeof(unsigned long long));
    fill(st->getsrc, SLOT_SIZE, (uint64_t)st->me, (uint64_t)st->me, 0xfeed, 0);
}

static void teardown(stress_t *st)
{
    void *sym_bufs[] = { st->slots, st->hdr, st->getsrc, st->ringbuf, st->csrc,
                         st->cdst, st->ctr_int, st->ctr_long, st->ctr_ull,
                         st->cas_ctr, st->sig_add, st->sig_ring, st->swap_cell,
                         st->dswap_cell, st->fcell, st->red_src, st->red_dst };

    /* shmem_free is collective: every PE frees the same objects in order */
    for (size_t i = sizeof sym_bufs / sizeof sym_bufs[0]; i-- > 0;)
        shmem_free(sym_bufs[i]);
    for (int i = 0; i < HDR_PARTS; i++)
        free(st->lbuf[i]);
    free(st->added);
    free(st->lastswap);
    free(st->lastdswap);
    free(st->seq);
    free(st->lastfetch);
}

static void usage(void)
{
    fprintf(stderr, "usage: stress [--seconds S] [--seed N] [--max-size BYTES] "
            "[--max-reduce BYTES]\n");
    exit(2);
}

static void parse_args(int argc, char **argv, double *secs, long long *seed,
                       size_t *max, size_t *max_red)
{
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (i + 1 >= argc)
            usage();
        if (!strcmp(argv[i], "--seconds"))
            *secs = strtod(argv[++i], &end);
        else if (!strcmp(argv[i], "--seed"))
            *seed = strtoll(argv[++i], &end, 0);
        else if (!strcmp(argv[i], "--max-size"))
            *max = (size_t)strtoull(argv[++i], &end, 0);
        else if (!strcmp(argv[i], "--max-reduce"))
            *max_red = (size_t)strtoull(argv[++i], &end, 0);
        else
            usage();
        if (!end || *end || *secs < 0 || *seed < -1 || *max < 1 ||
            *max > SLOT_SIZE || *max_red > SLOT_SIZE)
            usage();
    }
}

/* The same seed on every PE: PE 0's choice unless --seed was given. */
static uint64_t agree_seed(long long seed)
{
    long *s = sym(2 * sizeof(long));
    s[0] = seed >= 0 ? seed : (long)((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16));
    shmem_long_broadcast(SHMEM_TEAM_WORLD, s + 1, s, 1, 0);
    uint64_t v = (uint64_t)s[1];
    shmem_free(s);
    return v;
}

static void run(stress_t *st, uint64_t seed, double secs)
{
    double t0 = now();
    long round = 0;

    for (int done = 0; !done; round++) {
        uint64_t rs = seed * 0x100000001b3ull + (uint64_t)round;
        int nops = 1 + (int)rnd_below(&st->rng, 64);
        double tr = now();
        for (int i = 0; i < nops && now() - tr < 0.25; i++)
            random_op(st);
        tr = now();
        ring_step(st, &rs, round);
        note_slow(st, "signal ring", tr);
        tr = now();
        collective_step(st, &rs, round);
        note_slow(st, (const char *)phase, tr);
        tr = now();
        done = round_end(st, st->me == 0 && now() - t0 >= secs);
        note_slow(st, "round end", tr);
    }
    if (st->me == 0)
        printf("stress: %ld rounds in %.1f s\n", round, now() - t0);
    /* slow is not wrong, but worth knowing when a run overshoots */
    if (st->slowest > 0.5)
        printf("stress[pe %d]: slowest operation %.2f s (%s)\n", st->me,
               st->slowest, st->slowest_what);
}

int main(int argc, char **argv)
{
    double secs = 20;
    long long seed = -1;
    size_t max = SLOT_SIZE, max_red = 0;
    stress_t st = { 0 };

    parse_args(argc, argv, &secs, &seed, &max, &max_red);
    shmem_init();
    st.me = shmem_my_pe();
    st.npes = shmem_n_pes();
    st.max_size = max;
    st.max_reduce = max_red ? max_red : max;
    signal(SIGALRM, on_alarm);
    alarm((unsigned)(2 * secs) + 120);
    setup(&st);
    uint64_t base = agree_seed(seed);
    st.rng = base * 1000003u + (uint64_t)st.me;
    printf("stress[pe %d]: seed %" PRIu64 " (PE seed %" PRIu64 ")\n", st.me,
           base, st.rng);
    fflush(stdout);
    shmem_barrier_all();

    run(&st, base, secs);

    long *tot = sym(4 * sizeof(long));
    tot[0] = st.ops;
    tot[1] = st.errors;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, tot + 2, tot, 2);
    if (st.me == 0)
        printf("stress: %d PEs, %ld operations, %ld errors (seed %" PRIu64 ")\n",
               st.npes, tot[2], tot[3], base);
    int status = tot[3] != 0;
    shmem_free(tot);
    teardown(&st);
    alarm(0);
    shmem_finalize();
    return status;
}
