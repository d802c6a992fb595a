"""Ping-pong between ranks 0 and 1 with mpi4py's Send/Recv on NumPy arrays:
one-way latency (half the round trip), microseconds, per message size.

    mpirun.openmpi -n 2 python3 pingpong_mpi.py [--min B] [--max B] [--csv]

The twin of pingpong_shmem.py and of bench/mpi_latency.c's
sendrecv_pingpong: same sizes, iterations and warm-up. Ranks above 1 only
take part in the barriers.
"""
import time

import numpy as np
from mpi4py import MPI

import bench_opts


def pingpong(o, comm, buf):
    me = comm.Get_rank()
    send, recv = comm.Send, comm.Recv
    bench_opts.header(o, "py_sendrecv_pingpong", "us")
    for size in bench_opts.sizes(o):
        n = bench_opts.iters_for(o, size)
        view = buf[:size]
        comm.Barrier()
        if me > 1:
            continue
        t = 0.0
        if me == 0:
            for i in range(-o.warmup, n):
                if i == 0:
                    t = time.perf_counter()
                send(view, 1, 1)
                recv(view, 1, 1)
        else:
            for i in range(-o.warmup, n):
                recv(view, 0, 1)
                send(view, 0, 1)
        t = time.perf_counter() - t
        if me == 0:
            bench_opts.row(o, "py_sendrecv_pingpong", "us", size, 1e6 * t / (2.0 * n))


def main():
    o = bench_opts.parse("pingpong_mpi.py", 1 << 20)
    comm = MPI.COMM_WORLD
    if comm.Get_size() < 2:
        if comm.Get_rank() == 0:
            print("pingpong_mpi.py needs at least 2 ranks", flush=True)
        return 2
    buf = np.ones(o.max, dtype=np.uint8)
    pingpong(o, comm, buf)
    comm.Barrier()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
