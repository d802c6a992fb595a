/*
 * Waiting under oversubscription: how many rounds per second a job makes
 * through loops that wait on other PEs, when its PEs may outnumber the
 * cores (bench/oversub/compare runs it over PE counts and the
 * SHMEM_WAIT_SPIN / SHMEM_WAIT_SLEEP settings, docs/env.md).
 *
 *   oversub [-l LOOP] [-t SECONDS] [-c]
 *
 * LOOP (default mix), one round of it:
 *   mix      shmem_long_atomic_inc on PE 0, shmem_long_p to the right
 *            neighbour, shmem_barrier_all
 *   barrier  shmem_barrier_all
 *   wait     a token goes once around the ring: each PE waits for it
 *            (shmem_long_wait_until) and passes it on (shmem_long_p)
 *   signal   the same with shmem_putmem_signal / shmem_signal_wait_until
 *   fadd     every PE does shmem_long_atomic_fetch_add on PE 0's counter
 *            (a barrier every 16 rounds)
 *   lock     every PE takes the lock once, and under it adds 1 to a
 *            counter on PE 0 with a get and a put
 *
 * PE 0 decides when the time is up and tells the others so that every PE
 * stops on the same round; rounds are counted for the whole job (a round
 * is one pass of every PE). The loop runs first for a tenth of the time
 * (at most 0.1 s) to warm up, then for SECONDS (default 1). Each run is
 * checked (counters hold what was added, every token came round, every PE
 * made the same number of rounds); a mismatch is printed and the status
 * is 1. PE 0 prints "LOOP: N PEs, R rounds in S s, X rounds/s", or with
 * -c the CSV line "LOOP,N,R,S,X".
 */
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_util.h"

/* Rounds between the stop checks of fadd, which has a barrier only there. */
#define FADD_BATCH 16

/* The lock loop's words on PE 0, read and written together under the lock. */
enum { LK_COUNT, LK_MAX, LK_STOP, LK_WORDS };

/* Symmetric state of every loop (one shmem_calloc). */
typedef struct sym {
    long ctr;           /* mix, fadd: the counter on PE 0 */
    long x;             /* mix: the round the left neighbour put last */
    long stop_at;       /* mix, barrier, fadd: PE 0's round count at stop */
    long token;         /* wait, signal: 2 * round + 1 on the last round */
    uint64_t sig;       /* signal: the token's value, set with it */
    long shared[LK_WORDS]; /* lock: counter, most rounds of a PE, stop */
    long red_src[3];    /* check: rounds, -rounds, errors */
    long red_dst[3];
    long lock;          /* lock; never reset (zero is free, as it is left) */
} sym_t;

typedef struct run {
    sym_t *s;
    int me, n;
    double seconds; /* how long PE 0 lets the loop run */
    double t0;      /* when this PE started the loop */
    long errors;    /* mismatches this PE saw */
} run_t;

typedef struct loop {
    const char *name;
    long (*body)(run_t *r);            /* runs until told; returns rounds */
    void (*check)(run_t *r, long rounds); /* after the closing barrier */
} loop_t;

static void mismatch(run_t *r, const char *what, long got, long want)
{
    if (r->errors++ < 5)
        fprintf(stderr, "oversub: PE %d: %s is %ld, expected %ld\n", r->me,
                what, got, want);
}

static int time_up(const run_t *r)
{
    return bench_now() - r->t0 >= r->seconds;
}

/*
 * Ends a round of the barrier loops. Once its time is up, PE 0 puts its
 * round count into every PE's stop_at before the barrier; the barrier
 * completes those puts, so every PE reads the same count right after the
 * same barrier. A PE still reading after the previous barrier compares
 * its smaller count, so it cannot stop early.
 */
static int round_end(run_t *r, long rounds)
{
    if (r->me == 0 && r->s->stop_at == 0 && time_up(r))
        for (int pe = 0; pe < r->n; pe++)
            shmem_long_p(&r->s->stop_at, rounds, pe);
    shmem_barrier_all();
    return *(volatile long *)&r->s->stop_at == rounds;
}

static long body_mix(run_t *r)
{
    long rounds = 0;

    do {
        shmem_long_atomic_inc(&r->s->ctr, 0);
        shmem_long_p(&r->s->x, rounds, (r->me + 1) % r->n);
    } while (!round_end(r, ++rounds));
    return rounds;
}

static long counter_on_pe0(run_t *r)
{
    return shmem_long_atomic_fetch(&r->s->ctr, 0);
}

static void check_mix(run_t *r, long rounds)
{
    if (r->me == 0 && counter_on_pe0(r) != rounds * r->n)
        mismatch(r, "the counter", counter_on_pe0(r), rounds * r->n);
    if (r->s->x != rounds - 1)
        mismatch(r, "the left neighbour's last round", r->s->x, rounds - 1);
}

static long body_barrier(run_t *r)
{
    long rounds = 0;

    while (!round_end(r, ++rounds))
        ;
    return rounds;
}

static long body_fadd(run_t *r)
{
    long rounds = 0, last = -1;

    for (;;) {
        long v = shmem_long_atomic_fetch_add(&r->s->ctr, 1, 0);

        /* Each PE's adds land in its order: what it fetches only grows. */
        if (v <= last)
            mismatch(r, "a fetched value", v, last + 1);
        last = v;
        if (++rounds % FADD_BATCH == 0 && round_end(r, rounds))
            return rounds;
    }
}

static void check_fadd(run_t *r, long rounds)
{
    if (r->me == 0 && counter_on_pe0(r) != rounds * r->n)
        mismatch(r, "the counter", counter_on_pe0(r), rounds * r->n);
}

/* How the ring passes a token and waits for one (wait or signal). */
typedef struct ring_ops {
    void (*pass)(run_t *r, long token, int pe);
    long (*await)(run_t *r, long at_least); /* the token that came */
} ring_ops_t;

static void pass_p(run_t *r, long token, int pe)
{
    shmem_long_p(&r->s->token, token, pe);
}

static long await_wait(run_t *r, long at_least)
{
    shmem_long_wait_until(&r->s->token, SHMEM_CMP_GE, at_least);
    return *(volatile long *)&r->s->token;
}

static void pass_signal(run_t *r, long token, int pe)
{
    shmem_putmem_signal(&r->s->token, &token, sizeof(token), &r->s->sig,
                        (uint64_t)token, SHMEM_SIGNAL_SET, pe);
}

static long await_signal(run_t *r, long at_least)
{
    long sig = (long)shmem_signal_wait_until(&r->s->sig, SHMEM_CMP_GE,
                                             (uint64_t)at_least);
    long token = *(volatile long *)&r->s->token;

    /* The signal is set only once the data has landed. */
    if (token != sig)
        mismatch(r, "the token beside its signal", token, sig);
    return token;
}

/*
 * One round: PE 0 sends 2 * round (+ 1 on the last round, once its time
 * is up) to PE 1, each PE waits for it and passes it right, and PE 0
 * waits for it to come back from PE n-1. Only one token is ever in
 * flight, so each PE must receive exactly the round it expects; the last
 * round's mark reaches every PE, so all stop on the same round.
 */
static long ring(run_t *r, const ring_ops_t *ops)
{
    int right = (r->me + 1) % r->n;
    long round = 0, token;

    do {
        round++;
        if (r->me == 0) {
            long sent = 2 * round + time_up(r);

            ops->pass(r, sent, right);
            token = ops->await(r, 2 * round);
            if (token != sent)
                mismatch(r, "the token back on PE 0", token, sent);
        } else {
            token = ops->await(r, 2 * round);
            if (token >> 1 != round)
                mismatch(r, "the token's round", token >> 1, round);
            ops->pass(r, token, right);
        }
    } while (!(token & 1));
    return round;
}

static long body_wait(run_t *r)
{
    static const ring_ops_t ops = {pass_p, await_wait};

    return ring(r, &ops);
}

static long body_signal(run_t *r)
{
    static const ring_ops_t ops = {pass_signal, await_signal};

    return ring(r, &ops);
}

/*
 * One acquisition: under the lock, read PE 0's words, add 1 and write them
 * back. The lock serves PEs in no fixed order, so a PE's round is its own
 * count: PE 0, once its time is up, sets the stop to the most rounds any
 * PE has made (each PE records its count under the lock), every PE goes
 * on until it has made that many, and none has made more.
 */
static long body_lock(run_t *r)
{
    long mine = 0, w[LK_WORDS];

    for (;;) {
        shmem_set_lock(&r->s->lock);
        shmem_long_get(w, r->s->shared, LK_WORDS, 0);
        if (w[LK_STOP] != 0 && mine >= w[LK_STOP])
            break;
        if (r->me == 0 && w[LK_STOP] == 0 && time_up(r))
            w[LK_STOP] = w[LK_MAX] > mine + 1 ? w[LK_MAX] : mine + 1;
        w[LK_COUNT]++;
        if (++mine > w[LK_MAX])
            w[LK_MAX] = mine;
        shmem_long_put(r->s->shared, w, LK_WORDS, 0);
        shmem_clear_lock(&r->s->lock);
    }
    shmem_clear_lock(&r->s->lock);
    return mine;
}

static void check_lock(run_t *r, long rounds)
{
    long count = r->s->shared[LK_COUNT]; /* PE 0's own, written by puts */

    if (r->me == 0 && count != rounds * r->n)
        mismatch(r, "the counter", count, rounds * r->n);
}

static const loop_t loops[] = {
    {"mix", body_mix, check_mix},
    {"barrier", body_barrier, NULL},
    {"wait", body_wait, NULL},
    {"signal", body_signal, NULL},
    {"fadd", body_fadd, check_fadd},
    {"lock", body_lock, check_lock},
};

/* Every PE made the same number of rounds and saw no mismatch. */
static int check_all(run_t *r, const loop_t *l, long rounds)
{
    sym_t *s = r->s;

    if (l->check)
        l->check(r, rounds);
    s->red_src[0] = rounds;
    s->red_src[1] = -rounds;
    s->red_src[2] = r->errors;
    shmem_long_max_reduce(SHMEM_TEAM_WORLD, s->red_dst, s->red_src, 3);
    if (r->me == 0 && s->red_dst[0] != -s->red_dst[1])
        fprintf(stderr, "oversub: %s: PEs stopped after %ld to %ld rounds\n",
                l->name, -s->red_dst[1], s->red_dst[0]);
    return s->red_dst[0] == -s->red_dst[1] && s->red_dst[2] == 0;
}

/* Runs one loop for r->seconds from a clean state; returns its seconds. */
static double run_loop(run_t *r, const loop_t *l, long *rounds)
{
    memset(r->s, 0, offsetof(sym_t, lock));
    shmem_barrier_all(); /* every PE's state is clean before any starts */
    r->t0 = bench_now();
    *rounds = l->body(r);
    shmem_barrier_all();
    return bench_now() - r->t0;
}

static void usage(void)
{
    fprintf(stderr, "usage: oversub [-l mix|barrier|wait|signal|fadd|lock] "
                    "[-t SECONDS] [-c]\n");
    exit(2);
}

static const loop_t *parse(int argc, char **argv, double *seconds, int *csv)
{
    const loop_t *l = &loops[0];

    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;

        if (!strcmp(argv[i], "-c")) {
            *csv = 1;
            continue;
        }
        if (!v)
            usage();
        i++;
        if (!strcmp(argv[i - 1], "-t")) {
            *seconds = strtod(v, &end);
            if (*end || !(*seconds > 0))
                usage();
        } else if (!strcmp(argv[i - 1], "-l")) {
            size_t k = 0;

            while (k < sizeof(loops) / sizeof(loops[0]) &&
                   strcmp(loops[k].name, v))
                k++;
            if (k == sizeof(loops) / sizeof(loops[0]))
                usage();
            l = &loops[k];
        } else {
            usage();
        }
    }
    return l;
}

int main(int argc, char **argv)
{
    double seconds = 1.0, warm, t;
    int csv = 0, ok;
    const loop_t *l = parse(argc, argv, &seconds, &csv);
    run_t r = {0};
    long rounds;

    shmem_init();
    r.me = shmem_my_pe();
    r.n = shmem_n_pes();
    r.s = shmem_calloc(1, sizeof(sym_t));
    if (!r.s)
        shmem_global_exit(1);
    warm = seconds / 10 < 0.1 ? seconds / 10 : 0.1;
    r.seconds = warm;
    run_loop(&r, l, &rounds);
    ok = check_all(&r, l, rounds);
    r.seconds = seconds;
    t = run_loop(&r, l, &rounds);
    ok = check_all(&r, l, rounds) && ok;
    if (r.me == 0 && csv)
        printf("%s,%d,%ld,%.4f,%.1f\n", l->name, r.n, rounds, t, rounds / t);
    else if (r.me == 0)
        printf("%s: %d PEs, %ld rounds in %.3f s, %.1f rounds/s\n", l->name,
               r.n, rounds, t, rounds / t);
    shmem_free(r.s);
    shmem_finalize();
    return ok ? 0 : 1;
}
