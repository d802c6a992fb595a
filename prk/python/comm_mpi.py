"""The collectives the Python PRK kernels need (stencil, transpose,
synch_p2p), on MPI through mpi4py: one definition for the three
*_mpi.py programs."""
from mpi4py import MPI


class Comm:
    """The collectives the shared code needs, on MPI."""
    model = "Python MPI"

    def __init__(self):
        self.c = MPI.COMM_WORLD
        self.rank, self.size = self.c.Get_rank(), self.c.Get_size()

    def barrier(self):
        self.c.Barrier()

    def max_int(self, value):
        return self.c.allreduce(int(value), op=MPI.MAX)

    def max_double(self, value):
        return self.c.allreduce(float(value), op=MPI.MAX)

    def sum_double(self, value):
        return self.c.allreduce(float(value), op=MPI.SUM)
