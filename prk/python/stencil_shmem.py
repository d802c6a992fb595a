"""Stencil kernel (PRK 2.17), Python on OpenSHMEM: stencil <iterations> <n>

    oshrun -n 2 python3 stencil_shmem.py 100 2000

Each halo goes straight into the neighbour's symmetric receive buffer with
one put_signal that adds 1 to the neighbour's arrival counter for the
sweep's parity; a PE waits once, for all its neighbours, until its counter
reaches nnbrs * (iter // 2 + 1), unpacks and computes. Two buffers per side
(by parity) let a neighbour run one sweep ahead, which is as far as the
halo dependence lets it go, so no acknowledgement and no barrier is needed
inside the loop (the pattern of prk/stencil/stencil_shmem.c).

Written against shmem4py's API: `import weft as shmem` is the only line
that names Weft.
"""
import sys

import numpy as np

import weft as shmem

import prk_py
from comm_shmem import Comm
from stencil_core import NSIDES, Stencil


class Halos:
    """The symmetric receive slots [side][parity] and arrival counters."""

    def __init__(self, s):
        self.s = s
        self.slot = max(s.xmsg_max(), s.ymsg_max())
        self.recv = shmem.zeros(2 * NSIDES * self.slot, dtype=np.float64)
        self.arrived = [shmem.new_signal(), shmem.new_signal()]

    def slot_view(self, side, parity, count):
        off = (2 * side + parity) * self.slot
        return self.recv[off:off + count]

    def sweep(self, it):
        s, parity = self.s, it & 1
        sig = self.arrived[parity]
        for side in range(NSIDES):
            if s.nbr[side] >= 0:
                src = s.halo_out(side)
                shmem.put_signal(self.slot_view(side ^ 1, parity, src.size), src,
                                 s.nbr[side], sig, 1, shmem.SIGNAL_ADD)
        shmem.signal_wait_until(sig, shmem.CMP_GE, s.nnbrs * (it // 2 + 1))
        for side in range(NSIDES):
            if s.nbr[side] >= 0:
                s.unpack(side, self.slot_view(side, parity, s.halo_count(side)))
        s.compute()

    def free(self):
        shmem.barrier_all()
        for sig in self.arrived:
            shmem.del_signal(sig)
        shmem.free(self.recv)


def main(argv):
    comm = Comm()
    prk_py.banner(comm, "stencil execution on 2D grid")
    s = prk_py.setup_or_exit(comm, lambda: Stencil(argv, comm.size, comm.rank))
    halos = Halos(s)
    s.print_params()
    status = s.finish(comm, prk_py.timed_sweeps(comm, s.iterations, halos.sweep))
    halos.free()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
