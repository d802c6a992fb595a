/*
 * The MPI twin of bench/coll/shmem_nbc.c: MPI_Ibarrier, MPI_Ibcast (root
 * 0), MPI_Ialltoall and MPI_Iallreduce (MPI_SUM of doubles) on
 * MPI_COMM_WORLD, completed by MPI_Wait, measured the same way
 * (bench/coll/nbc_overlap.h). bench/coll/nbc-overlap builds it with each
 * MPI's own wrapper.
 */
#include <mpi.h>

#include "bench/coll/nbc_overlap.h"

static char *src, *dst;
static MPI_Request req;

static void post(int kind, size_t size)
{
    switch (kind) {
    case NBC_BARRIER:
        MPI_Ibarrier(MPI_COMM_WORLD, &req);
        break;
    case NBC_BCAST:
        MPI_Ibcast(dst, (int)size, MPI_BYTE, 0, MPI_COMM_WORLD, &req);
        break;
    case NBC_ALLTOALL:
        MPI_Ialltoall(src, (int)size, MPI_BYTE, dst, (int)size, MPI_BYTE,
                      MPI_COMM_WORLD, &req);
        break;
    default:
        MPI_Iallreduce(src, dst, (int)(size / 8), MPI_DOUBLE, MPI_SUM,
                       MPI_COMM_WORLD, &req);
        break;
    }
}

static void wait_req(void)
{
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void barrier(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

static double max_of(double v)
{
    double m;

    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

int main(int argc, char **argv)
{
    nbc_lib_t lib = {post, wait_req, barrier, max_of};
    bench_opts_t o;
    int rank, n;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    o = bench_parse(argc, argv, 4 << 20);
    o.print = rank == 0;
    src = malloc(o.max_size * (size_t)n);
    dst = malloc(o.max_size * (size_t)n);
    if (src == NULL || dst == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(src, 1, o.max_size * (size_t)n);
    memset(dst, 0, o.max_size * (size_t)n);
    nbc_run(&lib, &o);
    free(src);
    free(dst);
    MPI_Finalize();
    return 0;
}
