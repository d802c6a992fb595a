"""Transpose kernel (PRK 2.17), Python on MPI (mpi4py):
transpose <iterations> <order> [tile]

    mpirun.openmpi -n 2 python3 transpose_mpi.py 40 2048

Per phase: pre-post the Irecv of the b x b block from `from`, pack the
block for `to` (transposed), Isend it, wait for both and add the received
block into B (the pattern of prk/transpose/transpose_mpi.c). The
computation, checks and output are shared with transpose_shmem.py
(transpose_core.py).
"""
import sys

import numpy as np
from mpi4py import MPI

import prk_py
from comm_mpi import Comm
from transpose_core import Transpose


class Exchange:
    def __init__(self, t, comm):
        self.t, self.c = t, comm.c
        self.send = np.empty((t.b, t.b))
        self.recv = np.empty((t.b, t.b))

    def sweep(self, it):
        t, c = self.t, self.c
        t.transpose_local()
        for phase in range(1, t.npes):
            to = (t.me - phase) % t.npes
            frm = (t.me + phase) % t.npes
            rreq = c.Irecv(self.recv, frm, phase)
            t.pack(to, self.send)
            sreq = c.Isend(self.send, to, phase)
            MPI.Request.Waitall([rreq, sreq])
            t.add(frm, self.recv)


def main(argv):
    comm = Comm()
    prk_py.banner(comm, "matrix transpose: B = A^T")
    t = prk_py.setup_or_exit(comm, lambda: Transpose(argv, comm.size, comm.rank))
    t.init_fields(np.empty(t.padded_shape()))
    ex = Exchange(t, comm)
    t.print_params()
    return t.finish(comm, prk_py.timed_sweeps(comm, t.iterations, ex.sweep))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
