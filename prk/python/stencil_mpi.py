"""Stencil kernel (PRK 2.17), Python on MPI (mpi4py): stencil <iterations> <n>

    mpirun.openmpi -n 2 python3 stencil_mpi.py 100 2000

Each sweep pre-posts an Irecv from every neighbour, packs and Isends the
halos, waits for everything with one Waitall, unpacks and computes (the
pattern of prk/stencil/stencil_mpi.c). The computation, checks and output
are shared with stencil_shmem.py (stencil_core.py).
"""
import sys

import numpy as np
from mpi4py import MPI

import prk_py
from comm_mpi import Comm
from stencil_core import NSIDES, Stencil


class Halos:
    """Private receive buffers, one per side."""

    def __init__(self, s, comm):
        self.s, self.c = s, comm.c
        slot = max(s.xmsg_max(), s.ymsg_max())
        self.recv = [np.zeros(slot) for _ in range(NSIDES)]

    def sweep(self, it):
        s, c = self.s, self.c
        reqs = []
        # The neighbour on my side `side` sent towards its side side ^ 1,
        # with that side as the tag.
        for side in range(NSIDES):
            if s.nbr[side] >= 0:
                reqs.append(c.Irecv(self.recv[side][:s.halo_count(side)],
                                    s.nbr[side], side ^ 1))
        for side in range(NSIDES):
            if s.nbr[side] >= 0:
                reqs.append(c.Isend(s.halo_out(side), s.nbr[side], side))
        MPI.Request.Waitall(reqs)
        for side in range(NSIDES):
            if s.nbr[side] >= 0:
                s.unpack(side, self.recv[side])
        s.compute()


def main(argv):
    comm = Comm()
    prk_py.banner(comm, "stencil execution on 2D grid")
    s = prk_py.setup_or_exit(comm, lambda: Stencil(argv, comm.size, comm.rank))
    halos = Halos(s, comm)
    s.print_params()
    return s.finish(comm, prk_py.timed_sweeps(comm, s.iterations, halos.sweep))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
