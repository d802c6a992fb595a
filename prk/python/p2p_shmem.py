"""Synch_p2p kernel (PRK 2.17), Python on OpenSHMEM: p2p <iterations> <m> <n>

    oshrun -n 2 python3 p2p_shmem.py 100 1024 1024

The wavefront moves with one value and one signal per row: the left
neighbour puts A(start-1, j) into this PE's symmetric mailbox for row j
with put_signal, setting the row's signal to the sweep's number + 1; this
PE waits for the signal and copies the value into its ghost cell. The
corner value that closes a sweep, -A(m-1, n-1), goes from the last PE to
PE 0 the same way, through mailbox 0. Signals only grow, so they are never
reset, and one mailbox per row is enough: the corner orders every write of
a sweep after every read of the previous one (the pattern of
prk/p2p/p2p_shmem.c). A is private, as in the MPI version.

Written against shmem4py's API: `import weft as shmem` is the only line
that names Weft.
"""
import sys

import numpy as np

import weft as shmem

import prk_py
from comm_shmem import Comm
from p2p_core import P2P


class Wavefront:
    """Mailboxes (symmetric values, one signal per row) and the sweep."""

    def __init__(self, p):
        self.p = p
        n = p.n
        self.box = shmem.zeros(max(n, 1), dtype=np.float64)
        self.sig = [shmem.new_signal() for _ in range(max(n, 1))]
        # The 1-element views each row uses, made once.
        self.box_v = [self.box[j:j + 1] for j in range(max(n, 1))]
        self.last_v = [p.a[j, p.w:p.w + 1] for j in range(n)]
        self.corner = np.zeros(1)

    def sweep(self, it):
        p, a, row, lo, w = self.p, self.p.a, self.p.row, self.p.lo, self.p.w
        put_signal, wait = shmem.put_signal, shmem.signal_wait_until
        SET, GE = shmem.SIGNAL_SET, shmem.CMP_GE
        box, sig, box_v, last_v = self.box, self.sig, self.box_v, self.last_v
        left, right, last = p.me - 1, p.me + 1, p.npes - 1
        mark = it + 1
        if left >= 0 and right < p.npes:
            for j in range(1, p.n):
                wait(sig[j], GE, mark)
                a[j, 0] = box[j]
                row(a, j, lo, w)
                put_signal(box_v[j], last_v[j], right, sig[j], mark, SET)
        elif left >= 0:
            for j in range(1, p.n):
                wait(sig[j], GE, mark)
                a[j, 0] = box[j]
                row(a, j, lo, w)
        elif right < p.npes:
            for j in range(1, p.n):
                row(a, j, lo, w)
                put_signal(box_v[j], last_v[j], right, sig[j], mark, SET)
        else:
            for j in range(1, p.n):
                row(a, j, lo, w)
        if p.npes == 1:
            a[0, 1] = -a[p.n - 1, w]
        elif p.me == last:
            self.corner[0] = -a[p.n - 1, w]
            put_signal(box_v[0], self.corner, 0, sig[0], mark, SET)
        elif p.me == 0:
            wait(sig[0], GE, mark)
            a[0, 1] = box[0]

    def free(self):
        shmem.barrier_all()
        for s in self.sig:
            shmem.del_signal(s)
        shmem.free(self.box)


def main(argv):
    comm = Comm()
    prk_py.banner(comm, "pipeline execution on 2D grid")
    p = prk_py.setup_or_exit(comm, lambda: P2P(argv, comm.size, comm.rank))
    wf = Wavefront(p)
    p.print_params()
    status = p.finish(comm, prk_py.timed_sweeps(comm, p.iterations, wf.sweep))
    wf.free()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
