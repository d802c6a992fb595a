/*
 * Shared helpers of the micro-benchmarks (SHMEM and MPI programs alike):
 * the clock, the size sweep, the options and the output format.
 *
 * Every benchmark prints "# <benchmark> <unit>" then one "<size> <value>"
 * line per message size (OSU style); with --csv it prints
 * "benchmark,size,value,unit" lines instead, for bench/compare.
 */
#ifndef WEFT_BENCH_UTIL_H
#define WEFT_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct bench_opts {
    size_t min_size;   /* first message size, bytes */
    size_t max_size;   /* last message size, bytes (doubling from min) */
    long iters;        /* timed iterations for small messages */
    long warmup;       /* untimed iterations before timing */
    int csv;           /* 1: CSV lines instead of the table */
    const char *only;  /* run only the benchmark with this name, or NULL */
    int print;         /* 1 on the process that reports (PE/rank 0) */
} bench_opts_t;

static inline double bench_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline void bench_usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [--min BYTES] [--max BYTES] [--iters N] [--warmup N]\n"
            "          [--csv] [--only NAME]\n",
            prog);
}

/* Parses the common options; exits with status 2 on a bad one. */
static inline bench_opts_t bench_parse(int argc, char **argv,
                                       size_t default_max)
{
    bench_opts_t o = {1, default_max, 10000, 1000, 0, NULL, 1};

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (!strcmp(a, "--csv")) {
            o.csv = 1;
            continue;
        }
        if (!v) {
            bench_usage(argv[0]);
            exit(2);
        }
        if (!strcmp(a, "--min"))
            o.min_size = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--max"))
            o.max_size = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--iters"))
            o.iters = strtol(v, NULL, 0);
        else if (!strcmp(a, "--warmup"))
            o.warmup = strtol(v, NULL, 0);
        else if (!strcmp(a, "--only"))
            o.only = v;
        else {
            bench_usage(argv[0]);
            exit(2);
        }
        i++;
    }
    if (o.min_size < 1 || o.max_size < o.min_size || o.iters < 1 ||
        o.warmup < 0) {
        bench_usage(argv[0]);
        exit(2);
    }
    return o;
}

/* Fewer iterations for large messages, so every size takes similar time. */
static inline long bench_iters_for(const bench_opts_t *o, size_t size)
{
    long n = o->iters;

    if (size > 8192)
        n = (long)((double)o->iters * 8192.0 / (double)size);
    return n < 20 ? 20 : n;
}

static inline int bench_selected(const bench_opts_t *o, const char *name)
{
    return o->only == NULL || strcmp(o->only, name) == 0;
}

static inline void bench_header(const bench_opts_t *o, const char *name,
                                const char *unit)
{
    if (o->print && !o->csv)
        printf("# %s (%s)\n# %-10s %14s\n", name, unit, "size", unit);
}

static inline void bench_row(const bench_opts_t *o, const char *name,
                             const char *unit, size_t size, double value)
{
    if (!o->print)
        return;
    if (o->csv)
        printf("%s,%zu,%.4f,%s\n", name, size, value, unit);
    else
        printf("  %-10zu %14.3f\n", size, value);
    fflush(stdout);
}

#endif /* WEFT_BENCH_UTIL_H */
