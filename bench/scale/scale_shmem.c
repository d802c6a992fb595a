/*
 * The SHMEM side of the scaling benchmark (bench/scale/scale; README.md
 * there): in one run of P PEs, the start-up to the first barrier (wall time
 * from the driver's launch, CPU), the latency of barrier, 8-byte and 1 KiB
 * sum reductions and an 8-byte-per-pair alltoall on SHMEM_TEAM_WORLD, and
 * the memory each PE holds after them. PE 0 prints one "scale ..." line
 * (bench/scale/scale_probe.h). bench/scale/scale_mpi.c is its MPI twin.
 */
#include <shmem.h>

#include "bench/scale/scale_probe.h"

#define RED_LONGS 128 /* the 1 KiB reduction */

static long *red_src, *red_dst;
static char *a2a_src, *a2a_dst;

typedef void (*coll_fn_t)(void);

static void do_barrier(void)
{
    shmem_barrier_all();
}

static void do_allred8(void)
{
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, red_dst, red_src, 1);
}

static void do_allred1k(void)
{
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, red_dst, red_src, RED_LONGS);
}

static void do_alltoall(void)
{
    shmem_alltoallmem(SHMEM_TEAM_WORLD, a2a_dst, a2a_src, 8);
}

/*
 * This PE's mean microseconds per call, after warm-up calls; how many calls
 * follows from the slowest PE's time for one call (scale_plan).
 */
static double time_one(coll_fn_t fn, const scale_opts_t *o)
{
    static double one_call, slowest;
    long warmup, iters;

    fn(); /* the first call may set things up (a peer's mapping): not the one to plan by */
    shmem_barrier_all();
    double t0 = scale_monotonic();
    fn();
    one_call = scale_monotonic() - t0;
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &slowest, &one_call, 1);
    scale_plan(o, slowest, &warmup, &iters);
    scale_count_calls(iters);
    for (long i = 0; i < warmup; i++)
        fn();
    shmem_barrier_all();
    t0 = scale_monotonic();
    for (long i = 0; i < iters; i++)
        fn();
    return (scale_monotonic() - t0) * 1e6 / (double)iters;
}

int main(int argc, char **argv)
{
    double t_main = scale_realtime();
    scale_opts_t o = scale_parse(argc, argv);
    static double fig[SF_COUNT], sum[SF_COUNT], max[SF_COUNT];

    shmem_init();
    shmem_barrier_all();
    double t_ready = scale_realtime();

    fig[SF_START_CPU] = scale_cpu();
    fig[SF_START_WALL] = o.launch > 0 ? t_ready - o.launch : -1;
    fig[SF_INIT] = t_ready - t_main;
    scale_read_start_memory(fig);
    int npes = shmem_n_pes();
    double *sym_fig = shmem_malloc(3 * SF_COUNT * sizeof(double));
    red_src = shmem_calloc(2 * RED_LONGS, sizeof(long));
    a2a_src = shmem_calloc(2 * (size_t)npes, 8);
    if (!sym_fig || !red_src || !a2a_src) {
        fprintf(stderr, "scale_shmem: PE %d: shmem_malloc of the buffers for %d PEs failed\n",
                shmem_my_pe(), npes);
        shmem_global_exit(1);
    }
    red_dst = red_src + RED_LONGS;
    a2a_dst = a2a_src + 8 * (size_t)npes;

    fig[SF_BARRIER] = time_one(do_barrier, &o);
    fig[SF_ALLRED8] = time_one(do_allred8, &o);
    fig[SF_ALLRED1K] = time_one(do_allred1k, &o);
    fig[SF_ALLTOALL] = time_one(do_alltoall, &o);
    fig[SF_END_CPU] = scale_cpu();
    scale_read_memory(fig);

    memcpy(sym_fig, fig, sizeof fig);
    shmem_barrier_all();
    shmem_double_sum_reduce(SHMEM_TEAM_WORLD, sym_fig + SF_COUNT, sym_fig, SF_COUNT);
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, sym_fig + 2 * SF_COUNT, sym_fig, SF_COUNT);
    memcpy(sum, sym_fig + SF_COUNT, sizeof sum);
    memcpy(max, sym_fig + 2 * SF_COUNT, sizeof max);
    if (shmem_my_pe() == 0)
        scale_print("weft", npes, &o, sum, max);
    shmem_free(a2a_src);
    shmem_free(red_src);
    shmem_free(sym_fig);
    shmem_finalize();
    return 0;
}
