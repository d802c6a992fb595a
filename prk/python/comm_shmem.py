"""The collectives the Python PRK kernels need (stencil, transpose,
synch_p2p), on OpenSHMEM through the weft package: one definition for
the three *_shmem.py programs.  Written against shmem4py's API:
`import weft as shmem` is the only line that names Weft."""
import numpy as np

import weft as shmem


class Comm:
    """The collectives the shared code needs, on OpenSHMEM."""
    model = "Python OpenSHMEM"

    def __init__(self):
        self.rank, self.size = shmem.my_pe(), shmem.n_pes()
        self.ired = shmem.zeros(2, dtype=np.int32)
        self.dred = shmem.zeros(2, dtype=np.float64)

    def barrier(self):
        shmem.barrier_all()

    def _reduce(self, buf, value, op):
        buf[0] = value
        shmem.reduce(buf[1:2], buf[0:1], op)
        return buf[1].item()

    def max_int(self, value):
        return self._reduce(self.ired, value, "max")

    def max_double(self, value):
        return self._reduce(self.dred, value, "max")

    def sum_double(self, value):
        return self._reduce(self.dred, value, "sum")
