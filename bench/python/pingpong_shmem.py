"""Ping-pong between PEs 0 and 1 on symmetric NumPy arrays: one-way latency
(half the round trip), microseconds, per message size.

    oshrun -n 2 python3 pingpong_shmem.py [--min B] [--max B] [--csv]
                                          [--mode signal|put]

--mode signal (default; the shape of bench/shmem_latency.c's
put_signal_pingpong): each leg is one put_signal (the data, then the
signal set to the round's number) and the other PE's signal_wait_until.
--mode put: each leg is a put, a fence and an atomic_set of a flag, and the
other PE's wait_until on the flag (OpenSHMEM before 1.5).

Written against shmem4py's API: `import weft as shmem` is the only line
that names Weft. PEs above 1 only take part in the barriers.
"""
import time

import numpy as np

import weft as shmem

import bench_opts


def signal_rounds(n, view, sig, seq, me):
    """n put_signal rounds from sequence number seq + 1; the calls are in
    the loop itself, as pingpong_mpi.py's Send and Recv are."""
    put_signal, wait = shmem.put_signal, shmem.signal_wait_until
    SET, GE = shmem.SIGNAL_SET, shmem.CMP_GE
    if me == 0:
        for seq in range(seq + 1, seq + n + 1):
            put_signal(view, view, 1, sig, seq, SET)
            wait(sig, GE, seq)
    else:
        for seq in range(seq + 1, seq + n + 1):
            wait(sig, GE, seq)
            put_signal(view, view, 0, sig, seq, SET)


def put_rounds(n, view, flag, seq, me):
    """n put + fence + atomic_set rounds from sequence number seq + 1."""
    put, fence, aset, wait = shmem.put, shmem.fence, shmem.atomic_set, shmem.wait_until
    GE = shmem.CMP_GE
    if me == 0:
        for seq in range(seq + 1, seq + n + 1):
            put(view, view, 1)
            fence()
            aset(flag, seq, 1)
            wait(flag, GE, seq)
    else:
        for seq in range(seq + 1, seq + n + 1):
            wait(flag, GE, seq)
            put(view, view, 0)
            fence()
            aset(flag, seq, 0)


def pingpong(o, name, rounds, buf, word):
    me = shmem.my_pe()
    seq = 0
    bench_opts.header(o, name, "us")
    for size in bench_opts.sizes(o):
        n = bench_opts.iters_for(o, size)
        view = buf[:size]
        shmem.barrier_all()
        if me > 1:
            continue
        rounds(o.warmup, view, word, seq, me)
        seq += o.warmup
        t = time.perf_counter()
        rounds(n, view, word, seq, me)
        t = time.perf_counter() - t
        seq += n
        if me == 0:
            bench_opts.row(o, name, "us", size, 1e6 * t / (2.0 * n))


def main():
    def extra(p):
        p.add_argument("--mode", choices=("signal", "put"), default="signal",
                       help="put_signal + signal_wait_until (default), or put + "
                       "fence + atomic_set + wait_until")

    o = bench_opts.parse("pingpong_shmem.py", 1 << 20, extra)
    if shmem.n_pes() < 2:
        if shmem.my_pe() == 0:
            print("pingpong_shmem.py needs at least 2 PEs", flush=True)
        return 2
    buf = shmem.full(o.max, 1, dtype=np.uint8)
    if o.mode == "signal":
        sig = shmem.new_signal()
        pingpong(o, "py_put_signal_pingpong", signal_rounds, buf, sig)
        shmem.barrier_all()
        shmem.del_signal(sig)
    else:
        flag = shmem.zeros(1, dtype=np.int64)
        pingpong(o, "py_put_wait_pingpong", put_rounds, buf, flag)
        shmem.barrier_all()
        shmem.free(flag)
    shmem.free(buf)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
