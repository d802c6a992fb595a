/*
 * MPI streaming bandwidth, rank 0 -> rank 1 (OSU osu_bw style), MB/s:
 *   isend_bw   a window of MPI_Isend (pre-posted MPI_Irecv on the receiver),
 *              MPI_Waitall, then a short acknowledgement per window
 *   msg_rate   the same with 8-byte messages, millions of messages per second
 */
#include <mpi.h>

#include "bench_util.h"

enum { WINDOW = 64 };

/* Seconds for n windows of WINDOW messages of `size` bytes. */
static double stream(char *buf, size_t size, long n, int me)
{
    MPI_Request req[WINDOW];
    /* A real status array: gcc 12 misreads MPI_STATUSES_IGNORE as a
     * zero-length array and warns. */
    MPI_Status st[WINDOW];
    char ack = 0;
    double t = MPI_Wtime();

    for (long w = 0; w < n; w++) {
        if (me == 0) {
            for (int i = 0; i < WINDOW; i++)
                MPI_Isend(buf, (int)size, MPI_CHAR, 1, 2, MPI_COMM_WORLD,
                          &req[i]);
            MPI_Waitall(WINDOW, req, st);
            MPI_Recv(&ack, 1, MPI_CHAR, 1, 3, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else if (me == 1) {
            for (int i = 0; i < WINDOW; i++)
                MPI_Irecv(buf, (int)size, MPI_CHAR, 0, 2, MPI_COMM_WORLD,
                          &req[i]);
            MPI_Waitall(WINDOW, req, st);
            MPI_Send(&ack, 1, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t;
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    char *buf;
    int me, np;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    o = bench_parse(argc, argv, 4 << 20);
    o.print = me == 0;
    if (np < 2) {
        if (me == 0)
            fprintf(stderr, "mpi_bandwidth needs at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    buf = malloc(o.max_size);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(buf, 1, o.max_size);
    if (bench_selected(&o, "isend_bw")) {
        bench_header(&o, "isend_bw", "MB/s");
        for (size_t size = o.min_size; size <= o.max_size; size *= 2) {
            long n = bench_iters_for(&o, size) / WINDOW;
            double t;

            n = n < 5 ? 5 : n;
            MPI_Barrier(MPI_COMM_WORLD);
            stream(buf, size, n / 5 + 1, me);
            t = stream(buf, size, n, me);
            if (me == 0)
                bench_row(&o, "isend_bw", "MB/s", size,
                          1e-6 * (double)size * WINDOW * (double)n / t);
        }
    }
    if (bench_selected(&o, "msg_rate")) {
        long n = o.iters * 10 / WINDOW;
        double t;

        bench_header(&o, "msg_rate", "Mmsg/s");
        MPI_Barrier(MPI_COMM_WORLD);
        stream(buf, 8, n / 10 + 1, me);
        t = stream(buf, 8, n, me);
        if (me == 0)
            bench_row(&o, "msg_rate", "Mmsg/s", 8,
                      1e-6 * (double)(n * WINDOW) / t);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
