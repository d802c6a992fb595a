/*
 * The MPI twin of bench/scale/scale_shmem.c (README.md here): start-up to
 * the first barrier, the latency of MPI_Barrier, 8-byte and 1 KiB
 * MPI_Allreduce sums and an 8-byte-per-pair MPI_Alltoall on
 * MPI_COMM_WORLD, and the memory each rank holds after them; rank 0 prints
 * the "scale ..." line (bench/scale/scale_probe.h). The driver
 * bench/scale/scale compiles it with each MPI's own mpicc.
 */
#include <mpi.h>

#include "bench/scale/scale_probe.h"

#define RED_LONGS 128 /* the 1 KiB reduction */

#ifndef SCALE_MPI_NAME /* the driver names the MPI it compiles with */
#define SCALE_MPI_NAME "mpi"
#endif

static long red_src[RED_LONGS], red_dst[RED_LONGS];
static char *a2a_src, *a2a_dst;

typedef void (*coll_fn_t)(void);

static void do_barrier(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

static void do_allred8(void)
{
    MPI_Allreduce(red_src, red_dst, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
}

static void do_allred1k(void)
{
    MPI_Allreduce(red_src, red_dst, RED_LONGS, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
}

static void do_alltoall(void)
{
    MPI_Alltoall(a2a_src, 8, MPI_BYTE, a2a_dst, 8, MPI_BYTE, MPI_COMM_WORLD);
}

/*
 * This rank's mean microseconds per call, after warm-up calls; how many
 * calls follows from the slowest rank's time for one call (scale_plan).
 */
static double time_one(coll_fn_t fn, const scale_opts_t *o)
{
    double one_call, slowest;
    long warmup, iters;

    fn(); /* the first call may set things up (a peer's mapping): not the one to plan by */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = scale_monotonic();
    fn();
    one_call = scale_monotonic() - t0;
    MPI_Allreduce(&one_call, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    scale_plan(o, slowest, &warmup, &iters);
    scale_count_calls(iters);
    for (long i = 0; i < warmup; i++)
        fn();
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = scale_monotonic();
    for (long i = 0; i < iters; i++)
        fn();
    return (scale_monotonic() - t0) * 1e6 / (double)iters;
}

int main(int argc, char **argv)
{
    double t_main = scale_realtime();
    scale_opts_t o = scale_parse(argc, argv);
    double fig[SF_COUNT], sum[SF_COUNT], max[SF_COUNT];
    int rank, nranks;

    MPI_Init(&argc, &argv);
    MPI_Barrier(MPI_COMM_WORLD);
    double t_ready = scale_realtime();

    fig[SF_START_CPU] = scale_cpu();
    fig[SF_START_WALL] = o.launch > 0 ? t_ready - o.launch : -1;
    fig[SF_INIT] = t_ready - t_main;
    scale_read_start_memory(fig);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    a2a_src = calloc(2 * (size_t)nranks, 8);
    if (!a2a_src) {
        fprintf(stderr, "scale_mpi: rank %d: no memory for %d ranks' buffers\n", rank, nranks);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    a2a_dst = a2a_src + 8 * (size_t)nranks;

    fig[SF_BARRIER] = time_one(do_barrier, &o);
    fig[SF_ALLRED8] = time_one(do_allred8, &o);
    fig[SF_ALLRED1K] = time_one(do_allred1k, &o);
    fig[SF_ALLTOALL] = time_one(do_alltoall, &o);
    fig[SF_END_CPU] = scale_cpu();
    scale_read_memory(fig);

    MPI_Reduce(fig, sum, SF_COUNT, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(fig, max, SF_COUNT, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        scale_print(SCALE_MPI_NAME, nranks, &o, sum, max);
    free(a2a_src);
    MPI_Finalize();
    return 0;
}
