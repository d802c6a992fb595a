"""Transpose kernel (PRK 2.17), Python on OpenSHMEM:
transpose <iterations> <order> [tile]

    oshrun -n 2 python3 transpose_shmem.py 40 2048

A is symmetric. When every PE's A is reachable by load/store (shmem.ptr
gives a NumPy view of it: the PEs share a node), a PE reads the rows of
each peer's A that it needs in place and transposes them straight into
B, as it does with its diagonal block: those rows are read and bumped by
this PE alone (their owner only touches its own diagonal block), so there
is no copy and no synchronization inside a sweep (the on-node path of
prk/transpose/transpose_shmem.c). Otherwise, or with PRK_EXCHANGE=put in
the environment, each phase packs the block for the PE `to` and puts it
into `to`'s symmetric receive buffer for the phase with put_signal; the
receiver waits for the signal (the sweep's number + 1), adds the block
into B and hands the buffer back by an atomic add to the sender's
"buffer free" counter, which the sender waits on before its next put.
A line "Exchange path = ..." says which ran.

Written against shmem4py's API: `import weft as shmem` is the only line
that names Weft.
"""
import os
import sys

import numpy as np

import weft as shmem

import prk_py
from comm_shmem import Comm
from transpose_core import Transpose


class LoadStore:
    """The exchange through load/store views of the peers' A."""
    name = "load/store (shmem.ptr)"

    def __init__(self, t, views):
        self.t, self.views = t, views

    def sweep(self, it):
        t = self.t
        t.transpose_local()
        for phase in range(1, t.npes):
            frm = (t.me + phase) % t.npes
            t.transpose_from(self.views[frm], frm)

    def free(self):
        pass


class PutSignal:
    """The exchange by put_signal into one receive buffer per phase."""
    name = "put with signal"

    def __init__(self, t):
        self.t = t
        nph = max(t.npes - 1, 1)
        self.recv = shmem.zeros((nph, t.b, t.b), dtype=np.float64)
        self.freed = shmem.zeros(nph, dtype=np.int64)
        self.arrived = [shmem.new_signal() for _ in range(nph)]
        self.send = np.empty((t.b, t.b))

    def sweep(self, it):
        t = self.t
        t.transpose_local()
        for phase in range(1, t.npes):
            to = (t.me - phase) % t.npes
            frm = (t.me + phase) % t.npes
            k = phase - 1
            # The buffer on `to` is free once it added the block of sweep it-1.
            shmem.wait_until(self.freed[k:k + 1], shmem.CMP_GE, it)
            t.pack(to, self.send)
            shmem.put_signal(self.recv[k], self.send, to, self.arrived[k], it + 1,
                             shmem.SIGNAL_SET)
            shmem.signal_wait_until(self.arrived[k], shmem.CMP_GE, it + 1)
            t.add(frm, self.recv[k])
            shmem.atomic_add(self.freed[k:k + 1], 1, frm)

    def free(self):
        shmem.barrier_all()
        for sig in self.arrived:
            shmem.del_signal(sig)
        shmem.free(self.freed)
        shmem.free(self.recv)


def exchange(t, a_sym):
    """The load/store path when every peer's A has a view, else put."""
    ptr = getattr(shmem, "ptr", None)
    if ptr is not None and os.environ.get("PRK_EXCHANGE", "") != "put":
        views = [ptr(a_sym, p) for p in range(t.npes)]
        ok = all(v is not None for v in views)
        if comm_all(ok):
            return LoadStore(t, [v[:, :t.order] for v in views])
    return PutSignal(t)


def comm_all(flag):
    """True when flag is true on every PE."""
    buf = shmem.zeros(2, dtype=np.int32)
    buf[0] = 0 if flag else 1
    shmem.reduce(buf[1:2], buf[0:1], "max")
    ok = buf[1] == 0
    shmem.free(buf)
    return bool(ok)


def main(argv):
    comm = Comm()
    prk_py.banner(comm, "matrix transpose: B = A^T")
    t = prk_py.setup_or_exit(comm, lambda: Transpose(argv, comm.size, comm.rank))
    a_sym = shmem.zeros(t.padded_shape(), dtype=np.float64)
    t.init_fields(a_sym)
    ex = exchange(t, a_sym)
    t.print_params()
    if comm.rank == 0:
        print("Exchange path = %s" % ex.name, flush=True)
    comm.barrier()  # every A is initialised before a peer reads it
    status = t.finish(comm, prk_py.timed_sweeps(comm, t.iterations, ex.sweep))
    ex.free()
    shmem.free(a_sym)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
