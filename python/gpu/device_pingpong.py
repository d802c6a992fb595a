"""Ping-pong between two PEs on device memory, from Python, beside what the
GPU frameworks reach on the same machine (docs/python-gpu.md):

  weft         put_signal of device data (device heap to device heap) with
               the signal word in host memory, then signal_wait_until on
               it: the host-initiated path, one Python call each way
  weft_stream  the same ping-pong enqueued on a weft.Stream (put_signal
               and signal_wait_until on the stream, the signal in the
               device heap), all iterations enqueued, one synchronize
  cupy_copy    CuPy's device-to-device copy into the peer's buffer through
               the IPC mapping (weft.device.ptr): one copy, synchronized;
               the floor under Weft's IPC path (no signalling)
  nccl         NCCL send/recv through CuPy (cupy.cuda.nccl), else PyTorch
               (torch.distributed): refused by NCCL when both ranks share
               one GPU, which is then what the row says

Half round trip in microseconds and bandwidth (bytes / half round trip).
Every PE runs it (2 PEs):

  oshrun -n 2 python3 device_pingpong.py [--max BYTES] [--csv FILE]
         [--methods weft,weft_stream,cupy_copy,nccl] [--scale X]

SHMEM_DEVICE_BACKEND must give a device heap large enough for two buffers
of --max bytes (SHMEM_SYMMETRIC_DEVICE_SIZE).  Output: a table on PE 0,
and CSV rows method,bytes,iters,half_rt_us,GBps,note.
"""
import argparse
import os
import sys
import time

import numpy as np

import weft
import weft.device as wd


def sizes(max_bytes):
    n = 8
    while n <= max_bytes:
        yield n
        n *= 8
    if n // 8 != max_bytes:
        yield max_bytes


def iterations(nbytes, scale):
    return max(10, int(min(1000, 2e8 / nbytes) * scale))


def pattern(pe, nbytes, salt):
    return ((np.arange(nbytes) + 31 * pe + salt) % 251).astype(np.uint8)


class Bench:
    def __init__(self, max_bytes, scale):
        self.me, self.npes = weft.my_pe(), weft.n_pes()
        if self.npes != 2:
            raise SystemExit("device_pingpong: run it on 2 PEs")
        self.peer = 1 - self.me
        self.max = max_bytes
        self.scale = scale
        self.src = wd.zeros(max_bytes, dtype="uint8")
        self.dst = wd.zeros(max_bytes, dtype="uint8")
        self.hsig = weft.zeros(1, dtype="uint64")       # host heap
        self.dsig = wd.zeros(1, dtype="uint64")         # device heap
        self.rows = []

    def record(self, method, nbytes, iters, seconds, note=""):
        half = seconds / iters / 2 if iters else float("nan")
        gbps = nbytes / half / 1e9 if iters else float("nan")
        self.rows.append((method, nbytes, iters, half * 1e6, gbps, note))

    def check(self, method, nbytes, salt):
        got = wd.to_numpy(self.dst[:nbytes])
        if not (got == pattern(self.peer, nbytes, salt)).all():
            raise SystemExit(f"device_pingpong: {method} {nbytes} B: PE "
                             f"{self.me} received wrong data")

    def fill(self, nbytes, salt):
        wd.copy_from_host(self.src[:nbytes], pattern(self.me, nbytes, salt))
        weft.barrier_all()

    # -- weft, host-initiated ---------------------------------------------
    def weft(self, nbytes):
        src, dst = self.src[:nbytes], self.dst[:nbytes]
        iters = iterations(nbytes, self.scale)
        self.fill(nbytes, 1)
        seq = 0
        for phase in ("warm", "timed"):
            n = 10 if phase == "warm" else iters
            weft.barrier_all()
            t0 = time.perf_counter()
            for _ in range(n):
                seq += 1
                if self.me == 0:
                    weft.put_signal(dst, src, 1, self.hsig, seq,
                                    weft.SIGNAL_SET)
                    weft.signal_wait_until(self.hsig, weft.CMP_EQ, seq)
                else:
                    weft.signal_wait_until(self.hsig, weft.CMP_EQ, seq)
                    weft.put_signal(dst, src, 0, self.hsig, seq,
                                    weft.SIGNAL_SET)
            t = time.perf_counter() - t0
        self.record("weft", nbytes, iters, t)
        weft.barrier_all()
        self.check("weft", nbytes, 1)
        self.hsig[0] = 0        # every put completed before the barrier
        weft.barrier_all()

    # -- weft, stream-ordered ---------------------------------------------
    def weft_stream(self, nbytes):
        src, dst = self.src[:nbytes], self.dst[:nbytes]
        iters = iterations(nbytes, self.scale) // 2 or 1
        self.fill(nbytes, 2)
        wd.copy_from_host(self.dsig, np.zeros(1, np.uint64))
        weft.barrier_all()
        with weft.Stream() as s:
            seq = 0
            for phase in ("warm", "timed"):
                n = 5 if phase == "warm" else iters
                s.synchronize()
                weft.barrier_all()
                t0 = time.perf_counter()
                for _ in range(n):
                    seq += 1
                    if self.me == 0:
                        weft.put_signal(dst, src, 1, self.dsig, seq,
                                        weft.SIGNAL_SET, stream=s)
                        weft.signal_wait_until(self.dsig, weft.CMP_EQ, seq,
                                               stream=s)
                    else:
                        weft.signal_wait_until(self.dsig, weft.CMP_EQ, seq,
                                               stream=s)
                        weft.put_signal(dst, src, 0, self.dsig, seq,
                                        weft.SIGNAL_SET, stream=s)
                s.synchronize()
                t = time.perf_counter() - t0
        self.record("weft_stream", nbytes, iters, t)
        weft.barrier_all()
        self.check("weft_stream", nbytes, 2)

    # -- CuPy's copy into the peer's mapped buffer ------------------------
    def cupy_copy(self, nbytes):
        import cupy
        peer = wd.ptr(self.dst, self.peer)
        if peer is None:
            self.record("cupy_copy", nbytes, 0, 0, "peer heap not mapped")
            return
        iters = iterations(nbytes, self.scale)
        self.fill(nbytes, 3)
        s = cupy.cuda.Stream(non_blocking=True)
        d2d = cupy.cuda.runtime.memcpyDeviceToDevice
        for phase in ("warm", "timed"):
            n = 10 if phase == "warm" else iters
            weft.barrier_all()
            t0 = time.perf_counter()
            if self.me == 0:
                for _ in range(n):
                    cupy.cuda.runtime.memcpyAsync(peer.ptr, self.src.ptr,
                                                  nbytes, d2d, s.ptr)
                    s.synchronize()
            t = time.perf_counter() - t0
        # one copy each way per round trip: a copy is a half round trip
        if self.me == 0:
            self.record("cupy_copy", nbytes, iters, 2 * t,
                        "one synchronized copy, no signal")
        weft.barrier_all()
        if self.me == 1:
            self.check("cupy_copy", nbytes, 3)

    # -- NCCL ---------------------------------------------------------------
    def nccl_comm(self):
        """(kind, communicator) through CuPy's NCCL, the unique id carried
        by a weft put; or raises."""
        from cupy.cuda import nccl
        uid = weft.zeros(128, dtype="int8")
        if self.me == 0:
            mine = np.array(nccl.get_unique_id(), dtype=np.int8)
            weft.put(uid, mine, 1)
            uid[...] = mine
        weft.barrier_all()
        return nccl.NcclCommunicator(2, tuple(int(x) for x in uid), self.me)

    def nccl(self, nbytes, state={}):
        import cupy
        if "comm" not in state:
            try:
                state["comm"] = self.nccl_comm()
            except Exception as e:          # report, do not stop the run
                state["comm"] = None
                state["why"] = f"{type(e).__name__}: {e}".replace(",", ";")
        comm = state["comm"]
        if comm is None:
            self.record("nccl", nbytes, 0, 0, state["why"][:160])
            return
        from cupy.cuda import nccl
        iters = iterations(nbytes, self.scale)
        s = cupy.cuda.Stream(non_blocking=True)
        for phase in ("warm", "timed"):
            n = 10 if phase == "warm" else iters
            weft.barrier_all()
            t0 = time.perf_counter()
            for _ in range(n):
                if self.me == 0:
                    comm.send(self.src.ptr, nbytes, nccl.NCCL_UINT8, 1, s.ptr)
                    comm.recv(self.dst.ptr, nbytes, nccl.NCCL_UINT8, 1, s.ptr)
                else:
                    comm.recv(self.dst.ptr, nbytes, nccl.NCCL_UINT8, 0, s.ptr)
                    comm.send(self.src.ptr, nbytes, nccl.NCCL_UINT8, 0, s.ptr)
            s.synchronize()
            t = time.perf_counter() - t0
        self.record("nccl", nbytes, iters, t, "cupy.cuda.nccl")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--max", type=int, default=16 << 20)
    p.add_argument("--csv")
    p.add_argument("--methods", default="weft,weft_stream,cupy_copy,nccl")
    p.add_argument("--scale", type=float,
                   default=float(os.environ.get("PINGPONG_SCALE", "1")))
    args = p.parse_args(argv)
    if not wd.available():
        raise SystemExit("device_pingpong: no device heap "
                         "(SHMEM_DEVICE_BACKEND)")
    b = Bench(args.max, args.scale)
    for method in args.methods.split(","):
        if method in ("cupy_copy", "nccl"):
            try:
                import cupy  # noqa: F401
            except ImportError as e:
                b.record(method, 0, 0, 0, f"no CuPy: {e}")
                continue
        for n in sizes(args.max):
            getattr(b, method)(n)
    weft.barrier_all()
    if b.me == 0:
        lines = ["method,bytes,iters,half_rt_us,GBps,note"]
        lines += [f"{m},{n},{i},{h:.3f},{g:.3f},{note}"
                  for m, n, i, h, g, note in b.rows]
        if args.csv:
            with open(args.csv, "w") as f:
                f.write("\n".join(lines) + "\n")
        print(f"{'method':<12} {'bytes':>10} {'iters':>6} "
              f"{'half RT us':>11} {'GB/s':>8}  note")
        for m, n, i, h, g, note in b.rows:
            print(f"{m:<12} {n:>10} {i:>6} {h:>11.2f} {g:>8.3f}  {note}")
    sys.stdout.flush()
    weft.barrier_all()


if __name__ == "__main__":
    main(sys.argv[1:])
