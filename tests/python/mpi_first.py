"""MPI initialised before Weft under oshrun (mpi4py imported first): Open
MPI makes itself a singleton job, and Weft must refuse to start as PE 0 of
1 beside its job's other PEs (tests/python/mpi_first.sh)."""
from mpi4py import MPI  # noqa: F401  (MPI_Init at import)
import weft

print(f"started as PE {weft.my_pe()} of {weft.n_pes()}", flush=True)
