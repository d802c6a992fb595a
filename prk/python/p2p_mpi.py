"""Synch_p2p kernel (PRK 2.17), Python on MPI (mpi4py): p2p <iterations> <m> <n>

    mpirun.openmpi -n 2 python3 p2p_mpi.py 100 1024 1024

Per row: Recv one double from the left neighbour into the ghost cell,
compute the row, Send its last point to the right neighbour; the corner
value goes back from the last rank to rank 0 with its own tag (the pattern
of prk/p2p/p2p_mpi.c). The computation, checks and output are shared with
p2p_shmem.py (p2p_core.py).
"""
import sys

import numpy as np

import prk_py
from comm_mpi import Comm
from p2p_core import P2P

ROW_TAG, CORNER_TAG = 1, 2


class Wavefront:
    def __init__(self, p, comm):
        self.p, self.c = p, comm.c
        # The 1-element views each row uses, made once.
        self.ghost_v = [p.a[j, 0:1] for j in range(p.n)]
        self.last_v = [p.a[j, p.w:p.w + 1] for j in range(p.n)]
        self.corner = np.zeros(1)

    def sweep(self, it):
        p, a, row, lo, w = self.p, self.p.a, self.p.row, self.p.lo, self.p.w
        send, recv = self.c.Send, self.c.Recv
        ghost_v, last_v = self.ghost_v, self.last_v
        left, right, last = p.me - 1, p.me + 1, p.npes - 1
        if left >= 0 and right < p.npes:
            for j in range(1, p.n):
                recv(ghost_v[j], left, ROW_TAG)
                row(a, j, lo, w)
                send(last_v[j], right, ROW_TAG)
        elif left >= 0:
            for j in range(1, p.n):
                recv(ghost_v[j], left, ROW_TAG)
                row(a, j, lo, w)
        elif right < p.npes:
            for j in range(1, p.n):
                row(a, j, lo, w)
                send(last_v[j], right, ROW_TAG)
        else:
            for j in range(1, p.n):
                row(a, j, lo, w)
        if p.npes == 1:
            a[0, 1] = -a[p.n - 1, w]
        elif p.me == last:
            self.corner[0] = -a[p.n - 1, w]
            send(self.corner, 0, CORNER_TAG)
        elif p.me == 0:
            recv(self.corner, last, CORNER_TAG)
            a[0, 1] = self.corner[0]


def main(argv):
    comm = Comm()
    prk_py.banner(comm, "pipeline execution on 2D grid")
    p = prk_py.setup_or_exit(comm, lambda: P2P(argv, comm.size, comm.rank))
    wf = Wavefront(p, comm)
    p.print_params()
    return p.finish(comm, prk_py.timed_sweeps(comm, p.iterations, wf.sweep))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
