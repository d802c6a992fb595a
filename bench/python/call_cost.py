"""What one call of each routine family costs from Python, timed exactly as
bench/python/call_cost.c times it from C (same routines, arguments, batch
sizes and statistics), so that the difference is what the Python call adds:

    put        shmem.put of one int64 (8 bytes) to PE 1 (PE 0 times)
    put_signal shmem.put_signal of one int64 and a signal set, to PE 1 (PE 0)
    signal_wait_until  on a signal of PE 0 that already satisfies the
               comparison (PE 0): the cost of the call alone
    fetch_add  shmem.atomic_fetch_add on an int64 of PE 1 (PE 0 times)
    barrier    shmem.barrier_all (every PE)
    reduce     shmem.reduce of one int64, 'sum', world team (every PE)

    oshrun -n 2 python3 call_cost.py [--iters N] [--batches B]

PE 0 prints "name,min_ns,median_ns" per routine (fastest and median batch,
nanoseconds per call). Written against shmem4py's API: `import weft as
shmem` is the only line that names Weft.
"""
import argparse
import time

import numpy as np

import weft as shmem


def batch_put(word, local, n):
    put = shmem.put
    for _ in range(n):
        put(word, local, 1)


def make_batch_put_signal(sig):
    def batch_put_signal(word, local, n):
        put_signal, SET = shmem.put_signal, shmem.SIGNAL_SET
        for _ in range(n):
            put_signal(word, local, 1, sig, 1, SET)
    return batch_put_signal


def make_batch_signal_wait(sig):
    def batch_signal_wait(word, local, n):
        wait, GE = shmem.signal_wait_until, shmem.CMP_GE
        for _ in range(n):
            wait(sig, GE, 0)
    return batch_signal_wait


def batch_fetch_add(word, local, n):
    fetch_add = shmem.atomic_fetch_add
    for _ in range(n):
        fetch_add(word, 1, 1)


def batch_barrier(word, local, n):
    barrier_all = shmem.barrier_all
    for _ in range(n):
        barrier_all()


def make_batch_reduce(dst, src):
    def batch_reduce(word, local, n):
        reduce = shmem.reduce
        for _ in range(n):
            reduce(dst, src, "sum")
    return batch_reduce


def time_op(name, batch, everyone, o, word, local):
    me = shmem.my_pe()
    ns = []
    shmem.barrier_all()
    if everyone or me == 0:
        batch(word, local, o.iters)
        for _ in range(o.batches):
            t = time.perf_counter()
            batch(word, local, o.iters)
            ns.append(1e9 * (time.perf_counter() - t) / o.iters)
    shmem.barrier_all()
    if me == 0:
        ns.sort()
        print("%s,%.1f,%.1f" % (name, ns[0], ns[len(ns) // 2]), flush=True)


def main():
    p = argparse.ArgumentParser(prog="call_cost.py")
    p.add_argument("--iters", type=int, default=1000, help="calls per batch")
    p.add_argument("--batches", type=int, default=50, help="timed batches")
    o = p.parse_args()
    if o.iters < 1 or o.batches < 1:
        p.error("--iters and --batches must be at least 1")
    if shmem.n_pes() < 2:
        if shmem.my_pe() == 0:
            print("call_cost.py needs at least 2 PEs", flush=True)
        return 2
    word = shmem.zeros(1, dtype=np.int64)
    red = shmem.zeros(2, dtype=np.int64)
    red[0] = 1
    sig = shmem.new_signal()
    local = np.zeros(1, dtype=np.int64)
    if shmem.my_pe() == 0:
        print("# call_cost.py npes=%d iters=%d batches=%d" %
              (shmem.n_pes(), o.iters, o.batches), flush=True)
    time_op("put", batch_put, False, o, word, local)
    time_op("put_signal", make_batch_put_signal(sig), False, o, word, local)
    time_op("signal_wait_until", make_batch_signal_wait(sig), False, o, word, local)
    time_op("fetch_add", batch_fetch_add, False, o, word, local)
    time_op("barrier", batch_barrier, True, o, word, local)
    time_op("reduce", make_batch_reduce(red[1:2], red[0:1]), True, o, word, local)
    shmem.barrier_all()
    shmem.del_signal(sig)
    shmem.free(red)
    shmem.free(word)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
