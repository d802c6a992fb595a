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


def signal_legs(buf, sig):
    """The two legs of a put_signal round (PE 0's send, PE 1's echo)."""
    put_signal, wait = shmem.put_signal, shmem.signal_wait_until
    SET, GE = shmem.SIGNAL_SET, shmem.CMP_GE

    def ping(view, seq):
        put_signal(view, view, 1, sig, seq, SET)
        wait(sig, GE, seq)

    def pong(view, seq):
        wait(sig, GE, seq)
        put_signal(view, view, 0, sig, seq, SET)

    return ping, pong


def put_legs(buf, flag):
    """The two legs of a put + fence + atomic_set round."""
    put, fence, aset, wait = shmem.put, shmem.fence, shmem.atomic_set, shmem.wait_until
    GE = shmem.CMP_GE

    def ping(view, seq):
        put(view, view, 1)
        fence()
        aset(flag, seq, 1)
        wait(flag, GE, seq)

    def pong(view, seq):
        wait(flag, GE, seq)
        put(view, view, 0)
        fence()
        aset(flag, seq, 0)

    return ping, pong


def pingpong(o, name, legs, buf):
    me = shmem.my_pe()
    ping, pong = legs
    leg = ping if me == 0 else pong
    seq = 0
    bench_opts.header(o, name, "us")
    for size in bench_opts.sizes(o):
        n = bench_opts.iters_for(o, size)
        view = buf[:size]
        shmem.barrier_all()
        if me > 1:
            continue
        for _ in range(o.warmup):
            seq += 1
            leg(view, seq)
        t = time.perf_counter()
        for _ in range(n):
            seq += 1
            leg(view, seq)
        t = time.perf_counter() - t
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
        pingpong(o, "py_put_signal_pingpong", signal_legs(buf, sig), buf)
        shmem.barrier_all()
        shmem.del_signal(sig)
    else:
        flag = shmem.zeros(1, dtype=np.int64)
        pingpong(o, "py_put_wait_pingpong", put_legs(buf, flag), buf)
        shmem.barrier_all()
        shmem.free(flag)
    shmem.free(buf)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
