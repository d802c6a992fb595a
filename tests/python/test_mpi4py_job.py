"""mpi4py and weft in one job (run under Open MPI's mpirun.openmpi, whose
PMIx server both libraries join: tests/python/run-pytest.sh N FILE mpirun).

Each process is the same rank in MPI.COMM_WORLD as its PE number in weft,
and data moved by either library is seen by the other: a ring of weft puts
checked by an MPI allgather, and an MPI exchange into a symmetric array
read back with weft.get.
"""
import numpy as np
import pytest

import weft

MPI = pytest.importorskip("mpi4py.MPI")


def test_rank_is_pe():
    comm = MPI.COMM_WORLD
    assert comm.Get_rank() == weft.my_pe()
    assert comm.Get_size() == weft.n_pes()
    # Both libraries count the same processes on this node.
    names = comm.allgather(MPI.Get_processor_name())
    assert len(names) == weft.n_pes()


def test_weft_put_seen_by_mpi(me, npes, right, left):
    dst = weft.zeros(8, dtype="int64")
    weft.barrier_all()
    weft.put(dst, np.arange(8, dtype="int64") + 100 * me, pe=right)
    weft.barrier_all()
    assert (dst == np.arange(8) + 100 * left).all()
    # What every PE received, gathered by MPI.
    got = MPI.COMM_WORLD.allgather(int(dst[0]))
    assert got == [100 * ((p - 1) % npes) for p in range(npes)]
    weft.free(dst)


def test_mpi_into_symmetric_array(me, npes, right, left):
    # An MPI exchange writes a symmetric array (a NumPy array over
    # weft's heap); a weft get from the right neighbour reads it back.
    sym = weft.zeros(16, dtype="float64")
    send = np.full(16, float(me))
    MPI.COMM_WORLD.Sendrecv(send, dest=right, recvbuf=sym, source=left)
    assert (sym == float(left)).all()
    weft.barrier_all()
    back = np.empty(16)
    weft.get(back, sym, pe=right)
    assert (back == float(me)).all()
    weft.barrier_all()
    weft.free(sym)


def test_collectives_interleave(me, npes):
    # Collectives of both libraries, one after another, many times.
    acc = weft.zeros(1, dtype="int64")
    for i in range(20):
        total = MPI.COMM_WORLD.allreduce(me + i)
        assert total == sum(range(npes)) + npes * i
        weft.barrier_all()
        acc[0] = total
    weft.barrier_all()
    weft.free(acc)
