/*
 * Overlap of Weft's nonblocking collectives with computation
 * (docs/nonblocking-collectives.md), on SHMEM_TEAM_WORLD:
 * shmemx_barrier_all_nb, shmemx_broadcastmem_nb (root 0),
 * shmemx_alltoallmem_nb and shmemx_double_sum_reduce_nb, measured by
 * bench/coll/nbc_overlap.h. Its MPI twin is bench/coll/mpi_nbc.c;
 * bench/coll/nbc-overlap runs both.
 *
 *   shmem_nbc [--min BYTES] [--max BYTES] [--iters N] [--warmup N] [--csv]
 *             [--only barrier|bcast|alltoall|allreduce]
 */
#include <shmemx.h>

#include "bench/coll/nbc_overlap.h"

static char *src, *dst;
static shmemx_req_h req;
static double tmax_in, tmax_out;

static void post(int kind, size_t size)
{
    switch (kind) {
    case NBC_BARRIER:
        shmemx_barrier_all_nb(&req);
        break;
    case NBC_BCAST:
        shmemx_broadcastmem_nb(SHMEM_TEAM_WORLD, dst, src, size, 0, &req);
        break;
    case NBC_ALLTOALL:
        shmemx_alltoallmem_nb(SHMEM_TEAM_WORLD, dst, src, size, &req);
        break;
    default:
        shmemx_double_sum_reduce_nb(SHMEM_TEAM_WORLD, (double *)dst,
                                    (const double *)src, size / 8, &req);
        break;
    }
}

static void wait_req(void)
{
    shmemx_req_wait(req);
}

static double max_of(double v)
{
    tmax_in = v;
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &tmax_out, &tmax_in, 1);
    return tmax_out;
}

int main(int argc, char **argv)
{
    nbc_lib_t lib = {post, wait_req, shmem_barrier_all, max_of};
    bench_opts_t o;
    int n;

    shmem_init();
    n = shmem_n_pes();
    o = bench_parse(argc, argv, 4 << 20);
    o.print = shmem_my_pe() == 0;
    src = shmem_malloc(o.max_size * (size_t)n);
    dst = shmem_malloc(o.max_size * (size_t)n);
    if (src == NULL || dst == NULL) {
        fprintf(stderr, "shmem_nbc: cannot allocate 2 x %zu bytes of symmetric "
                        "heap (SHMEM_SYMMETRIC_SIZE)\n",
                o.max_size * (size_t)n);
        shmem_global_exit(1);
    }
    memset(src, 1, o.max_size * (size_t)n);
    memset(dst, 0, o.max_size * (size_t)n);
    shmem_barrier_all();
    nbc_run(&lib, &o);
    shmem_free(src);
    shmem_free(dst);
    shmem_finalize();
    return 0;
}
