/*
 * The overlap measurement of the nonblocking collectives, in the manner of
 * the OSU micro-benchmarks' nonblocking collective tests, shared by the
 * SHMEM program (shmem_nbc.c) and its MPI twin (mpi_nbc.c):
 *
 *   pure     post, then wait at once: the collective's own time
 *   compute  a computation of length pure, alone (no library call in it)
 *   overall  post, the same computation, then wait
 *   overlap  100 x (1 - (overall - compute) / pure), clamped to 0..100:
 *            the share of the collective hidden behind the computation
 *
 * Each figure is the mean per call on the slowest process. CSV lines
 * "collective,size,pure_us,compute_us,overall_us,overlap_pct".
 */
#ifndef WEFT_BENCH_NBC_OVERLAP_H
#define WEFT_BENCH_NBC_OVERLAP_H

#include "bench/bench_util.h"

enum { NBC_BARRIER, NBC_BCAST, NBC_ALLTOALL, NBC_ALLREDUCE, NBC_KINDS };

static const char *const nbc_names[NBC_KINDS] = {"barrier", "bcast",
                                                 "alltoall", "allreduce"};

/* What the library under test provides. post starts collective kind on
 * size bytes (bcast: all; alltoall: per process; allreduce: doubles of
 * size bytes); wait completes it. */
typedef struct nbc_lib {
    void (*post)(int kind, size_t size);
    void (*wait)(void);
    void (*barrier)(void);
    double (*max)(double v);
} nbc_lib_t;

/* Computation without a library call: arithmetic until us microseconds
 * have passed (reading the clock is a vDSO call, not the library's). */
static inline void nbc_compute(double us)
{
    double t0 = bench_now();
    volatile double x = 0;

    while ((bench_now() - t0) * 1e6 < us)
        for (int i = 0; i < 256; i++)
            x += i * 0.5;
}

static inline double nbc_time(const nbc_lib_t *lib, int kind, size_t size,
                              long iters, double compute_us, int post)
{
    double t0;

    lib->barrier();
    t0 = bench_now();
    for (long i = 0; i < iters; i++) {
        if (post)
            lib->post(kind, size);
        if (compute_us > 0)
            nbc_compute(compute_us);
        if (post)
            lib->wait();
    }
    return lib->max((bench_now() - t0) * 1e6 / (double)iters);
}

static inline void nbc_measure(const nbc_lib_t *lib, const bench_opts_t *o,
                               int kind, size_t size)
{
    long iters = bench_iters_for(o, size);
    double pure, cpu, all, overlap;

    for (long i = 0; i < o->warmup; i++) {
        lib->post(kind, size);
        lib->wait();
    }
    pure = nbc_time(lib, kind, size, iters, 0, 1);
    cpu = nbc_time(lib, kind, size, iters, pure, 0);
    all = nbc_time(lib, kind, size, iters, pure, 1);
    overlap = 100.0 * (1.0 - (all - cpu) / pure);
    if (overlap < 0)
        overlap = 0;
    if (overlap > 100)
        overlap = 100;
    if (!o->print)
        return;
    if (o->csv)
        printf("%s,%zu,%.3f,%.3f,%.3f,%.1f\n", nbc_names[kind], size, pure,
               cpu, all, overlap);
    else
        printf("%-10s %9zu %12.2f %12.2f %12.2f %8.1f\n", nbc_names[kind],
               size, pure, cpu, all, overlap);
    fflush(stdout);
}

/* Every selected collective (o->only: one name) from o->min_size to
 * o->max_size, multiplying by 4 and ending at the maximum; the barrier
 * once. */
static inline void nbc_run(const nbc_lib_t *lib, const bench_opts_t *o)
{
    if (o->print && !o->csv)
        printf("%-10s %9s %12s %12s %12s %8s\n", "collective", "bytes",
               "pure us", "compute us", "overall us", "overlap%");
    for (int k = 0; k < NBC_KINDS; k++) {
        size_t s, min = k == NBC_ALLREDUCE && o->min_size < 8 ? 8
                                                              : o->min_size;

        if (!bench_selected(o, nbc_names[k]))
            continue;
        if (k == NBC_BARRIER) {
            nbc_measure(lib, o, k, 0);
            continue;
        }
        for (s = min; s < o->max_size; s *= 4)
            nbc_measure(lib, o, k, s);
        nbc_measure(lib, o, k, o->max_size);
    }
}

#endif /* WEFT_BENCH_NBC_OVERLAP_H */
