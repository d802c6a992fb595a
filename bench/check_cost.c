/*
 * The 8-byte operations whose hot-path argument checks bench/check-cost.sh
 * prices, timed in many short batches:
 *   put        shmem_putmem, 8 bytes, back to back
 *   p          shmem_long_p
 *   get        shmem_getmem, 8 bytes
 *   g          shmem_long_g
 *   put_quiet  shmem_putmem + shmem_quiet
 *   msg_rate   shmem_putmem_nbi, a shmem_quiet every 64 messages (time per
 *              message; the rate is 1000 / ns million messages per second)
 *   fetch_add  shmem_long_atomic_fetch_add
 *   pingpong   one-way latency of a shmem_putmem_signal ping-pong between
 *              PE 0 and PE 1 (2 PEs or more only)
 * PE 0 times; it targets PE 1, or itself when it runs alone (the same checks
 * without traffic between cores). The other PEs wait in a barrier, except PE
 * 1 in the ping-pong.
 *
 *   check_cost [--iters N] [--batches B] [--only NAME] [--raw]
 *              [--turn IN OUT]
 *
 * Prints "# check_cost npes=P iters=N batches=B cpu=C", then per operation
 * "name,min_ns,median_ns": the fastest batch (the least disturbed) and the
 * median batch, in nanoseconds per operation; with --raw, "name,batch,ns"
 * per batch instead.
 *
 * --turn lets two copies of this program (one per build) take turns on the
 * same core, batch by batch, so that both see the machine in the same state:
 * PE 0 reads one byte from the FIFO IN before each batch (after the warm-up of
 * each operation, and a short re-warm after each turn), and writes one byte
 * to OUT after it. Both copies must run with the same options.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CC_WINDOW 64 /* messages between two quiets in msg_rate */

typedef struct cc_bufs {
    long *dst;     /* symmetric: written by puts and atomics */
    long *src;     /* symmetric: read by gets, on another cache line */
    uint64_t *sig; /* symmetric: ping-pong signal */
    long local[8]; /* private: the other side of puts and gets */
    int target;
} cc_bufs_t;

/* Keeps the results of g and fetch_add alive. */
static volatile long cc_sink;

static double cc_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void op_put(cc_bufs_t *b, long n)
{
    for (long i = 0; i < n; i++)
        shmem_putmem(b->dst, b->local, 8, b->target);
}

static void op_p(cc_bufs_t *b, long n)
{
    for (long i = 0; i < n; i++)
        shmem_long_p(b->dst, i, b->target);
}

static void op_get(cc_bufs_t *b, long n)
{
    for (long i = 0; i < n; i++)
        shmem_getmem(b->local, b->src, 8, b->target);
}

static void op_g(cc_bufs_t *b, long n)
{
    long s = 0;

    for (long i = 0; i < n; i++)
        s += shmem_long_g(b->src, b->target);
    cc_sink = s;
}

static void op_put_quiet(cc_bufs_t *b, long n)
{
    for (long i = 0; i < n; i++) {
        shmem_putmem(b->dst, b->local, 8, b->target);
        shmem_quiet();
    }
}

static void op_msg_rate(cc_bufs_t *b, long n)
{
    for (long i = 0; i < n; i += CC_WINDOW) {
        for (int k = 0; k < CC_WINDOW; k++)
            shmem_putmem_nbi(b->dst + (k & 7), b->local, 8, b->target);
        shmem_quiet();
    }
}

static void op_fetch_add(cc_bufs_t *b, long n)
{
    long s = 0;

    for (long i = 0; i < n; i++)
        s += shmem_long_atomic_fetch_add(b->dst, 1, b->target);
    cc_sink = s;
}

typedef struct cc_op {
    const char *name;
    void (*run)(cc_bufs_t *b, long n);
} cc_op_t;

static const cc_op_t cc_ops[] = {
    {"put", op_put},
    {"p", op_p},
    {"get", op_get},
    {"g", op_g},
    {"put_quiet", op_put_quiet},
    {"msg_rate", op_msg_rate},
    {"fetch_add", op_fetch_add},
};

static int cc_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

typedef struct cc_opts {
    long iters;
    int batches;
    const char *only;
    int raw;
    int turn_in, turn_out; /* FIFOs of --turn, or -1 */
} cc_opts_t;

/* Waits for this copy's turn (--turn); no-op without --turn. */
static void cc_turn_take(const cc_opts_t *o)
{
    char c;

    if (o->turn_in < 0)
        return;
    if (read(o->turn_in, &c, 1) != 1) {
        fprintf(stderr, "check_cost: lost the other copy (--turn)\n");
        shmem_global_exit(1);
    }
}

static void cc_turn_give(const cc_opts_t *o)
{
    if (o->turn_out >= 0 && write(o->turn_out, "t", 1) != 1) {
        fprintf(stderr, "check_cost: lost the other copy (--turn)\n");
        shmem_global_exit(1);
    }
}

/* Prints the batches of one operation, sorting t[0..nb). */
static void cc_report(const cc_opts_t *o, const char *name, double *t,
                      int nb)
{
    if (o->raw)
        for (int k = 0; k < nb; k++)
            printf("%s,%d,%.3f\n", name, k, t[k]);
    qsort(t, (size_t)nb, sizeof(*t), cc_cmp);
    if (!o->raw)
        printf("%s,%.3f,%.3f\n", name, t[0],
               nb % 2 ? t[nb / 2] : (t[nb / 2 - 1] + t[nb / 2]) / 2);
    fflush(stdout);
}

static void cc_time_op(const cc_opts_t *o, const cc_op_t *op, cc_bufs_t *b,
                       double *t)
{
    long n = o->iters;

    op->run(b, n); /* warm-up: caches, branch predictors, page mappings */
    for (int k = 0; k < o->batches; k++) {
        double t0;

        cc_turn_take(o);
        if (o->turn_in >= 0)
            op->run(b, n / 8 + 1); /* the other copy ran in between */
        t0 = cc_now();
        op->run(b, n);
        t[k] = 1e9 * (cc_now() - t0) / (double)n;
        cc_turn_give(o);
    }
    cc_report(o, op->name, t, o->batches);
}

/* rounds ping-pong rounds between PE 0 and PE 1 from sequence number *seq. */
static void cc_pingpong_rounds(cc_bufs_t *b, int me, long rounds,
                               uint64_t *seq)
{
    for (long i = 0; i < rounds; i++) {
        uint64_t s = ++*seq;

        if (me == 0) {
            shmem_putmem_signal(b->dst, b->local, 8, b->sig, s,
                                SHMEM_SIGNAL_SET, 1);
            shmem_signal_wait_until(b->sig, SHMEM_CMP_GE, s);
        } else {
            shmem_signal_wait_until(b->sig, SHMEM_CMP_GE, s);
            shmem_putmem_signal(b->dst, b->local, 8, b->sig, s,
                                SHMEM_SIGNAL_SET, 0);
        }
    }
}

/* Every PE takes part in the barriers; PE 0 and PE 1 in the rounds. */
static void cc_pingpong(const cc_opts_t *o, cc_bufs_t *b, int me, double *t)
{
    /* a round trip costs far more than a put: fewer rounds per batch */
    long n = o->iters / 20 + 1;
    uint64_t seq = 0;

    if (me <= 1)
        cc_pingpong_rounds(b, me, n, &seq);
    for (int k = 0; k < o->batches; k++) {
        double t0;

        if (me == 0)
            cc_turn_take(o);
        shmem_barrier_all();
        if (me <= 1)
            cc_pingpong_rounds(b, me, n / 8 + 1, &seq);
        t0 = cc_now();
        if (me <= 1)
            cc_pingpong_rounds(b, me, n, &seq);
        t[k] = 1e9 * (cc_now() - t0) / (2.0 * (double)n);
        if (me == 0)
            cc_turn_give(o);
    }
    if (me == 0)
        cc_report(o, "pingpong", t, o->batches);
}

static void cc_usage(void)
{
    fprintf(stderr, "usage: check_cost [--iters N] [--batches B] "
                    "[--only NAME] [--raw] [--turn IN OUT]\n");
    exit(2);
}

static int cc_open_fifo(const char *path)
{
    /* read-write: opening never waits for the other end */
    int fd = open(path, O_RDWR);

    if (fd < 0) {
        fprintf(stderr, "check_cost: cannot open %s\n", path);
        exit(2);
    }
    return fd;
}

static cc_opts_t cc_parse(int argc, char **argv)
{
    cc_opts_t o = {20000, 21, NULL, 0, -1, -1};

    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;

        if (!strcmp(argv[i], "--raw")) {
            o.raw = 1;
            continue;
        }
        if (!v)
            cc_usage();
        if (!strcmp(argv[i], "--iters"))
            o.iters = strtol(v, &end, 10);
        else if (!strcmp(argv[i], "--batches"))
            o.batches = (int)strtol(v, &end, 10);
        else if (!strcmp(argv[i], "--only"))
            o.only = v;
        else if (!strcmp(argv[i], "--turn") && i + 2 < argc) {
            o.turn_in = cc_open_fifo(v);
            o.turn_out = cc_open_fifo(argv[i + 2]);
            i++;
        } else
            cc_usage();
        if (end && *end)
            cc_usage();
        i++;
    }
    if (o.iters < CC_WINDOW || o.batches < 1 || o.batches > 100000)
        cc_usage();
    return o;
}

int main(int argc, char **argv)
{
    cc_opts_t o = cc_parse(argc, argv);
    cc_bufs_t b;
    double *t = malloc((size_t)o.batches * sizeof(double));
    int me, npes;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    b.dst = shmem_calloc(32, sizeof(long));
    b.sig = shmem_calloc(1, sizeof(uint64_t));
    if (!t || !b.dst || !b.sig) {
        fprintf(stderr, "check_cost: out of memory\n");
        shmem_global_exit(1);
    }
    b.src = b.dst + 16; /* 128 bytes further: another cache line */
    memset(b.local, 0, sizeof(b.local));
    b.target = npes > 1 ? 1 : 0;
    if (me == 0)
        printf("# check_cost npes=%d iters=%ld batches=%d cpu=%d\n", npes,
               o.iters, o.batches, sched_getcpu());
    for (size_t i = 0; i < sizeof(cc_ops) / sizeof(cc_ops[0]); i++) {
        if (o.only && strcmp(o.only, cc_ops[i].name))
            continue;
        if (me == 0)
            cc_time_op(&o, &cc_ops[i], &b, t);
        shmem_barrier_all();
    }
    if (npes > 1 && (!o.only || !strcmp(o.only, "pingpong")))
        cc_pingpong(&o, &b, me, t);
    shmem_barrier_all();
    shmem_free(b.sig);
    shmem_free(b.dst);
    free(t);
    shmem_finalize();
    return 0;
}
