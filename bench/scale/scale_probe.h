/*
 * What one PE of the scaling benchmark (bench/scale/scale) measures about
 * itself, shared by its SHMEM and MPI programs: the clocks, the CPU time,
 * the memory figures of /proc/self, the options and the one line PE 0
 * prints. The programs differ only in the calls they time and in how the
 * per-PE figures reach PE 0 (a sum and a max over PEs).
 *
 * The line is "scale key=value ...", parsed by bench/scale/scale; every
 * value is a plain number so that a missing figure (e.g. no RssShmem in an
 * old kernel) reads -1 rather than breaking the parse.
 */
#ifndef WEFT_SCALE_PROBE_H
#define WEFT_SCALE_PROBE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* Per-PE figures, reduced over PEs both as a sum (for the mean) and a max. */
enum scale_fig {
    SF_START_WALL,   /* launch (given by the driver) to the first barrier, s */
    SF_INIT,         /* top of main to the first barrier, s */
    SF_START_CPU,    /* user+sys CPU at the first barrier, s */
    SF_END_CPU,      /* user+sys CPU after the timed collectives, s */
    SF_START_RSS,    /* VmRSS at the first barrier, KiB */
    SF_START_PTE,    /* VmPTE at the first barrier, KiB */
    SF_START_MAPS,   /* mappings at the first barrier */
    SF_RSS,          /* VmRSS, KiB */
    SF_ANON,         /* RssAnon, KiB */
    SF_SHMEM,        /* RssShmem (shared memory pages mapped), KiB */
    SF_PSS,          /* Pss of smaps_rollup (shared pages split among mappers), KiB */
    SF_PTE,          /* VmPTE (page tables), KiB */
    SF_MAPS,         /* lines of /proc/self/maps */
    SF_BARRIER,      /* us per call, this PE's mean */
    SF_ALLRED8,
    SF_ALLRED1K,
    SF_ALLTOALL,
    SF_COUNT
};

static const char *const scale_fig_name[SF_COUNT] = {
    "start_wall_s", "init_s", "start_cpu_s", "end_cpu_s", "start_rss_kib",
    "start_pte_kib", "start_maps", "rss_kib",
    "anon_kib", "shmem_kib", "pss_kib", "pte_kib", "maps", "barrier_us",
    "allred8_us", "allred1k_us", "alltoall_us",
};

/* The fewest timed calls of any collective (scale_plan), for the line. */
static long scale_calls_min = -1;

static inline void scale_count_calls(long iters)
{
    if (scale_calls_min < 0 || iters < scale_calls_min)
        scale_calls_min = iters;
}

typedef struct scale_opts {
    double launch;   /* CLOCK_REALTIME epoch seconds just before the launch; 0: unknown */
    long iters;      /* timed calls of each collective, at most */
    long warmup;     /* untimed calls before them, at most */
    double budget;   /* seconds each collective's timed calls should take, about */
} scale_opts_t;

/*
 * Calls of one collective, from the slowest PE's time for one call after
 * a first (every PE gets the same figure, so they all make the same number
 * of calls): at most o->iters, and no more than fit in o->budget seconds, at
 * least 3. Oversubscribed, a barrier of a library that polls can take a
 * good part of a second, and a fixed count would make one run take minutes.
 */
static inline void scale_plan(const scale_opts_t *o, double first_call_s, long *warmup,
                              long *iters)
{
    double fit = first_call_s > 0 ? o->budget / first_call_s : (double)o->iters;

    *iters = fit < (double)o->iters ? (long)fit : o->iters;
    if (*iters < 3)
        *iters = 3;
    *warmup = *iters / 10 > 1 ? *iters / 10 : 1;
    if (*warmup > o->warmup)
        *warmup = o->warmup;
}

static inline double scale_realtime(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline double scale_monotonic(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* User plus system CPU seconds of this process (all its threads). */
static inline double scale_cpu(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* The "Key:   N kB" value of a /proc file, or -1 when the key is absent. */
static inline double scale_proc_kib(const char *path, const char *key)
{
    char line[256];
    size_t n = strlen(key);
    double v = -1;
    FILE *f = fopen(path, "r");

    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == ':') {
            v = strtod(line + n + 1, NULL);
            break;
        }
    fclose(f);
    return v;
}

static inline double scale_map_count(void)
{
    char buf[4096];
    size_t got;
    double lines = 0;
    FILE *f = fopen("/proc/self/maps", "r");

    if (!f)
        return -1;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < got; i++)
            lines += buf[i] == '\n';
    fclose(f);
    return lines;
}

/* Before any collective: what start-up alone leaves (peers not yet reached). */
static inline void scale_read_start_memory(double *fig)
{
    fig[SF_START_RSS] = scale_proc_kib("/proc/self/status", "VmRSS");
    fig[SF_START_PTE] = scale_proc_kib("/proc/self/status", "VmPTE");
    fig[SF_START_MAPS] = scale_map_count();
}

/* After the collectives, which have reached every PE (the alltoall). */
static inline void scale_read_memory(double *fig)
{
    fig[SF_RSS] = scale_proc_kib("/proc/self/status", "VmRSS");
    fig[SF_ANON] = scale_proc_kib("/proc/self/status", "RssAnon");
    fig[SF_SHMEM] = scale_proc_kib("/proc/self/status", "RssShmem");
    fig[SF_PTE] = scale_proc_kib("/proc/self/status", "VmPTE");
    fig[SF_PSS] = scale_proc_kib("/proc/self/smaps_rollup", "Pss");
    fig[SF_MAPS] = scale_map_count();
}

/* --launch EPOCH_SECONDS --iters N --warmup N; exits with status 2 on a bad one. */
static inline scale_opts_t scale_parse(int argc, char **argv)
{
    scale_opts_t o = {0, 1000, 100, 0.5};

    for (int i = 1; i + 1 < argc; i += 2) {
        char *end;
        double v = strtod(argv[i + 1], &end);

        if (*end || v < 0)
            goto bad;
        if (!strcmp(argv[i], "--launch"))
            o.launch = v;
        else if (!strcmp(argv[i], "--iters") && v >= 1)
            o.iters = (long)v;
        else if (!strcmp(argv[i], "--warmup"))
            o.warmup = (long)v;
        else if (!strcmp(argv[i], "--budget") && v > 0)
            o.budget = v;
        else
            goto bad;
    }
    if (argc % 2 == 0)
        goto bad;
    return o;
bad:
    fprintf(stderr, "usage: %s [--launch EPOCH_SECONDS] [--iters N] [--warmup N]"
            " [--budget SECONDS]\n",
            argv[0]);
    exit(2);
}

/* PE 0's line: the mean (sum / npes) and the max of every figure. */
static inline void scale_print(const char *lib, int npes, const scale_opts_t *o,
                               const double *sum, const double *max)
{
    printf("scale lib=%s pes=%d iters=%ld calls_min=%ld", lib, npes, o->iters,
           scale_calls_min);
    for (int k = 0; k < SF_COUNT; k++)
        printf(" %s_mean=%.6g %s_max=%.6g", scale_fig_name[k],
               sum[k] / npes, scale_fig_name[k], max[k]);
    printf("\n");
    fflush(stdout);
}

#endif
