/*
 * The MPI twin of bench/coll/shmem_coll.c: MPI_Barrier, MPI_Bcast,
 * MPI_Allreduce (MPI_SUM of doubles), MPI_Allgather and MPI_Alltoall on
 * MPI_COMM_WORLD, same sizes, same statistic (slowest rank's mean time per
 * call, microseconds), same output format.
 */
#include <mpi.h>

#include "bench/bench_util.h"

static char *src, *dst;

typedef void (*coll_fn_t)(size_t size);

static void do_barrier(size_t size)
{
    (void)size;
    MPI_Barrier(MPI_COMM_WORLD);
}

static void do_bcast(size_t size)
{
    MPI_Bcast(dst, (int)size, MPI_BYTE, 0, MPI_COMM_WORLD);
}

static void do_reduce(size_t size)
{
    MPI_Allreduce(src, dst, (int)(size / sizeof(double)), MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
}

static void do_fcollect(size_t size)
{
    MPI_Allgather(src, (int)size, MPI_BYTE, dst, (int)size, MPI_BYTE,
                  MPI_COMM_WORLD);
}

static void do_alltoall(size_t size)
{
    MPI_Alltoall(src, (int)size, MPI_BYTE, dst, (int)size, MPI_BYTE,
                 MPI_COMM_WORLD);
}

static double time_one(coll_fn_t fn, size_t size, long iters, long warmup)
{
    double t, tmax;

    for (long i = 0; i < warmup; i++)
        fn(size);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    for (long i = 0; i < iters; i++)
        fn(size);
    t = (bench_now() - t0) * 1e6 / (double)iters;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax;
}

static void run(const bench_opts_t *o, const char *name, coll_fn_t fn,
                size_t min, size_t max)
{
    if (!bench_selected(o, name))
        return;
    bench_header(o, name, "us");
    for (size_t s = min; s <= max; s *= 2) {
        long it = bench_iters_for(o, s);
        bench_row(o, name, "us", s, time_one(fn, s, it, o->warmup / 10 + 1));
        if (s == 0)
            break;
    }
}

int main(int argc, char **argv)
{
    int rank, n;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    bench_opts_t o = bench_parse(argc, argv, 1 << 20);
    o.print = rank == 0;
    src = malloc(o.max_size * (size_t)n);
    dst = malloc(o.max_size * (size_t)n);
    if (src == NULL || dst == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(src, 1, o.max_size * (size_t)n);
    size_t dmin = o.min_size < 8 ? 8 : o.min_size;
    run(&o, "barrier", do_barrier, 0, 0);
    run(&o, "bcast", do_bcast, o.min_size, o.max_size);
    run(&o, "allreduce", do_reduce, dmin, o.max_size);
    run(&o, "allgather", do_fcollect, o.min_size, o.max_size);
    run(&o, "alltoall", do_alltoall, o.min_size, o.max_size);
    free(src);
    free(dst);
    MPI_Finalize();
    return 0;
}
