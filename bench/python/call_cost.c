/*
 * The C side of bench/python/call_cost.py: what one call of each routine
 * family costs from C, timed the same way as from Python, so that the
 * difference is what the Python call adds.
 *
 *   put        shmem_putmem, 8 bytes to PE 1 (PE 0 times; the others
 *              wait in the next barrier)
 *   put_signal shmem_putmem_signal, 8 bytes and a signal set on PE 1 (PE 0)
 *   signal_wait_until  shmem_signal_wait_until on a signal of PE 0 that
 *              already satisfies the comparison (PE 0): the cost of the
 *              call alone, without the wait
 *   fetch_add  shmem_int64_atomic_fetch_add on a word of PE 1 (PE 0)
 *   barrier    shmem_barrier_all (every PE)
 *   reduce     shmem_int64_sum_reduce of one element on the world team
 *              (every PE)
 *
 *   call_cost [--iters N] [--batches B]
 *
 * Each routine runs in B batches of N calls after a warm-up batch; PE 0
 * prints "name,min_ns,median_ns": the fastest batch (the least disturbed)
 * and the median batch, in nanoseconds per call.
 */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile int64_t cc_sink; /* keeps fetch_add's results alive */

static double cc_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cc_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

typedef struct cc_bufs {
    int64_t *word; /* symmetric: target of put and fetch_add */
    int64_t *red;  /* symmetric: [0] reduce source, [1] reduce result */
    uint64_t *sig; /* symmetric: the signal of put_signal and the wait */
    int64_t local; /* private: the source of put */
} cc_bufs_t;

enum cc_op {
    CC_PUT,
    CC_PUT_SIGNAL,
    CC_SIGNAL_WAIT,
    CC_FETCH_ADD,
    CC_BARRIER,
    CC_REDUCE
};

static void cc_batch(enum cc_op op, cc_bufs_t *b, long n)
{
    for (long i = 0; i < n; i++) {
        switch (op) {
        case CC_PUT:
            shmem_putmem(b->word, &b->local, 8, 1);
            break;
        case CC_PUT_SIGNAL:
            shmem_putmem_signal(b->word, &b->local, 8, b->sig, 1,
                                SHMEM_SIGNAL_SET, 1);
            break;
        case CC_SIGNAL_WAIT:
            cc_sink += (int64_t)shmem_signal_wait_until(b->sig, SHMEM_CMP_GE, 0);
            break;
        case CC_FETCH_ADD:
            cc_sink += shmem_int64_atomic_fetch_add(b->word, 1, 1);
            break;
        case CC_BARRIER:
            shmem_barrier_all();
            break;
        case CC_REDUCE:
            shmem_int64_sum_reduce(SHMEM_TEAM_WORLD, &b->red[1], &b->red[0],
                                   1);
            break;
        }
    }
}

static void cc_time(const char *name, enum cc_op op, cc_bufs_t *b, long iters,
                    int batches, double *ns)
{
    int me = shmem_my_pe();
    int all = op == CC_BARRIER || op == CC_REDUCE;

    shmem_barrier_all();
    if (all || me == 0) {
        cc_batch(op, b, iters);
        for (int k = 0; k < batches; k++) {
            double t = cc_now();

            cc_batch(op, b, iters);
            ns[k] = 1e9 * (cc_now() - t) / (double)iters;
        }
    }
    shmem_barrier_all();
    if (me == 0) {
        qsort(ns, (size_t)batches, sizeof(*ns), cc_cmp);
        printf("%s,%.1f,%.1f\n", name, ns[0], ns[batches / 2]);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    long iters = 1000;
    int batches = 50;
    cc_bufs_t b = {0};
    double *ns;

    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--iters"))
            iters = strtol(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--batches"))
            batches = (int)strtol(argv[i + 1], NULL, 10);
    }
    if (iters < 1 || batches < 1 || argc % 2 == 0) {
        fprintf(stderr, "usage: call_cost [--iters N] [--batches B]\n");
        return 2;
    }
    shmem_init();
    if (shmem_n_pes() < 2) {
        if (shmem_my_pe() == 0)
            fprintf(stderr, "call_cost needs at least 2 PEs\n");
        shmem_finalize();
        return 2;
    }
    b.word = shmem_calloc(1, sizeof(int64_t));
    b.red = shmem_calloc(2, sizeof(int64_t));
    b.sig = shmem_calloc(1, sizeof(uint64_t));
    ns = malloc((size_t)batches * sizeof(*ns));
    if (!b.word || !b.red || !b.sig || !ns) {
        fprintf(stderr, "call_cost: out of memory\n");
        shmem_global_exit(1);
    }
    b.red[0] = 1;
    if (shmem_my_pe() == 0)
        printf("# call_cost npes=%d iters=%ld batches=%d\n", shmem_n_pes(),
               iters, batches);
    cc_time("put", CC_PUT, &b, iters, batches, ns);
    cc_time("put_signal", CC_PUT_SIGNAL, &b, iters, batches, ns);
    cc_time("signal_wait_until", CC_SIGNAL_WAIT, &b, iters, batches, ns);
    cc_time("fetch_add", CC_FETCH_ADD, &b, iters, batches, ns);
    cc_time("barrier", CC_BARRIER, &b, iters, batches, ns);
    cc_time("reduce", CC_REDUCE, &b, iters, batches, ns);
    free(ns);
    shmem_free(b.sig);
    shmem_free(b.red);
    shmem_free(b.word);
    shmem_finalize();
    return 0;
}
