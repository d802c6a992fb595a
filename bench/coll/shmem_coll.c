/*
 * Collective latency of Weft by message size, OSU style: barrier,
 * broadcast, sum reduction of doubles, fcollect and alltoall on
 * SHMEM_TEAM_WORLD. Sizes are bytes per PE (the broadcast message, the
 * reduced array, one PE's fcollect block, one alltoall block). Each figure
 * is the slowest PE's mean time per call, in microseconds.
 * bench/coll/mpi_coll.c measures the MPI equivalents the same way.
 */
#include <shmem.h>

#include "bench/bench_util.h"

static char *src, *dst;
static double t_local, t_max;

typedef void (*coll_fn_t)(size_t size);

static void do_barrier(size_t size)
{
    (void)size;
    shmem_barrier_all();
}

static void do_bcast(size_t size)
{
    shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, size, 0);
}

static void do_reduce(size_t size)
{
    shmem_double_sum_reduce(SHMEM_TEAM_WORLD, (double *)dst,
                            (const double *)src, size / sizeof(double));
}

static void do_fcollect(size_t size)
{
    shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, size);
}

static void do_alltoall(size_t size)
{
    shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, size);
}

static double time_one(coll_fn_t fn, size_t size, long iters, long warmup)
{
    for (long i = 0; i < warmup; i++)
        fn(size);
    shmem_barrier_all();
    double t0 = bench_now();
    for (long i = 0; i < iters; i++)
        fn(size);
    t_local = (bench_now() - t0) * 1e6 / (double)iters;
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &t_max, &t_local, 1);
    return t_max;
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
    bench_opts_t o = bench_parse(argc, argv, 1 << 20);

    shmem_init();
    int n = shmem_n_pes();
    o.print = shmem_my_pe() == 0;
    src = shmem_malloc(o.max_size * (size_t)n);
    dst = shmem_malloc(o.max_size * (size_t)n);
    if (src == NULL || dst == NULL) {
        if (o.print)
            fprintf(stderr,
                    "shmem_coll: symmetric heap too small for "
                    "--max %zu with %d PEs\n",
                    o.max_size, n);
        shmem_global_exit(1);
    }
    memset(src, 1, o.max_size * (size_t)n);
    size_t dmin = o.min_size < 8 ? 8 : o.min_size;
    run(&o, "barrier", do_barrier, 0, 0);
    run(&o, "bcast", do_bcast, o.min_size, o.max_size);
    run(&o, "allreduce", do_reduce, dmin, o.max_size);
    run(&o, "allgather", do_fcollect, o.min_size, o.max_size);
    run(&o, "alltoall", do_alltoall, o.min_size, o.max_size);
    shmem_free(src);
    shmem_free(dst);
    shmem_finalize();
    return 0;
}
