/*
 * MPI point-to-point latency between ranks 0 and 1, the counterparts of
 * shmem_latency (OSU style), microseconds:
 *   sendrecv_pingpong  MPI_Send/MPI_Recv ping-pong, one-way (round trip / 2)
 *   put_flush          MPI_Put + MPI_Win_flush (passive target, lock_all)
 */
#include <mpi.h>

#include "bench_util.h"

static void bench_pingpong(const bench_opts_t *o, char *buf, int me)
{
    bench_header(o, "sendrecv_pingpong", "us");
    for (size_t size = o->min_size; size <= o->max_size; size *= 2) {
        long n = bench_iters_for(o, size);
        double t = 0;

        MPI_Barrier(MPI_COMM_WORLD);
        for (long i = -o->warmup; i < n; i++) {
            if (i == 0)
                t = MPI_Wtime();
            if (me == 0) {
                MPI_Send(buf, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            } else if (me == 1) {
                MPI_Recv(buf, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
            }
        }
        t = MPI_Wtime() - t;
        if (me == 0)
            bench_row(o, "sendrecv_pingpong", "us", size,
                      1e6 * t / (2.0 * (double)n));
    }
}

static void bench_put_flush(const bench_opts_t *o, char *buf, int me)
{
    MPI_Win win;

    MPI_Win_create(buf, (MPI_Aint)o->max_size, 1, MPI_INFO_NULL,
                   MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(0, win);
    bench_header(o, "put_flush", "us");
    for (size_t size = o->min_size; size <= o->max_size; size *= 2) {
        long n = bench_iters_for(o, size);
        double t = 0;

        MPI_Barrier(MPI_COMM_WORLD);
        if (me != 0)
            continue;
        for (long i = -o->warmup; i < n; i++) {
            if (i == 0)
                t = MPI_Wtime();
            MPI_Put(buf, (int)size, MPI_CHAR, 1, 0, (int)size, MPI_CHAR, win);
            MPI_Win_flush(1, win);
        }
        t = MPI_Wtime() - t;
        bench_row(o, "put_flush", "us", size, 1e6 * t / (double)n);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    char *buf;
    int me, np;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    o = bench_parse(argc, argv, 1 << 20);
    o.print = me == 0;
    if (np < 2) {
        if (me == 0)
            fprintf(stderr, "mpi_latency needs at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    buf = malloc(o.max_size);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(buf, 1, o.max_size);
    if (bench_selected(&o, "sendrecv_pingpong"))
        bench_pingpong(&o, buf, me);
    if (bench_selected(&o, "put_flush"))
        bench_put_flush(&o, buf, me);
    free(buf);
    MPI_Finalize();
    return 0;
}
