"""Collectives on host arrays (docs/python.md): barrier_all, sync_all,
sync, barrier, broadcast from every root, collect with sizes that differ by
PE, fcollect, alltoall, alltoalls, reduce with every operator on several
dtypes (and the OP_reduce forms), inscan and exscan, on the world team and
on a team split from it."""
import numpy as np
import pytest

import weft


def test_barriers(me, npes, right):
    x = weft.zeros(1, "int64")
    weft.barrier_all()
    weft.p(x, 1, right)
    weft.barrier_all()  # quiet included
    assert x[0] == 1
    weft.sync_all()
    weft.sync()
    weft.sync(weft.TEAM_WORLD)
    weft.barrier()
    weft.barrier(team=weft.TEAM_WORLD)
    weft.free(x)


@pytest.mark.parametrize("dtype", ["int8", "float64", "complex64"])
def test_broadcast_every_root(dtype, me, npes):
    src = weft.array((np.arange(5) + 10 * me).astype(dtype))
    dst = weft.zeros(5, dtype)
    for root in range(npes):
        weft.broadcast(dst, src, root)
        assert (dst == (np.arange(5) + 10 * root).astype(dtype)).all()
    weft.broadcast(dst, src, 0, size=2)
    assert (dst[:2] == np.arange(2)).all()
    weft.barrier_all()
    weft.free(dst)
    weft.free(src)


def test_collect_sizes_differ(me, npes):
    # PE i contributes i + 1 elements of value i
    src = weft.full(npes, me, dtype="int32")
    total = npes * (npes + 1) // 2
    dst = weft.zeros(total, "int32")
    weft.collect(dst, src, size=me + 1)
    want = np.concatenate([np.full(i + 1, i) for i in range(npes)])
    assert (dst == want).all()
    weft.barrier_all()
    weft.free(dst)
    weft.free(src)


def test_fcollect(me, npes):
    src = weft.array(np.array([me, -me], "int64"))
    dst = weft.zeros(2 * npes, "int64")
    weft.fcollect(dst, src)
    assert (dst.reshape(npes, 2) == [[i, -i] for i in range(npes)]).all()
    weft.barrier_all()
    weft.free(dst)
    weft.free(src)


def test_alltoall(me, npes):
    # block j of PE i holds 100 * i + j
    src = weft.array(np.repeat(100 * me + np.arange(npes), 3).astype("f8"))
    dst = weft.zeros(3 * npes, "f8")
    weft.alltoall(dst, src)
    want = np.repeat(100 * np.arange(npes) + me, 3)
    assert (dst == want).all()
    weft.barrier_all()
    weft.free(dst)
    weft.free(src)


def test_alltoalls(me, npes):
    # one element per PE pair, source stride 2, target stride 3
    src = weft.zeros(2 * npes, "int16")
    src[::2] = 10 * me + np.arange(npes)
    weft.barrier_all()
    dst = weft.full(3 * npes, -1, dtype="int16")
    weft.alltoalls(dst, src, tst=3, sst=2, size=1)
    assert (dst[::3] == 10 * np.arange(npes) + me).all()
    assert (dst[1::3] == -1).all()
    weft.barrier_all()
    weft.free(dst)
    weft.free(src)


REDUCE_CASES = [
    ("sum", "int32"), ("sum", "float64"), ("sum", "complex128"),
    ("prod", "int64"), ("prod", "float32"), ("max", "float64"),
    ("min", "int16"), ("max", "uint8"), ("and", "uint64"),
    ("or", "int32"), ("xor", "uint16"),
]


def expected(op, vals):
    out = vals[0].copy()
    for v in vals[1:]:
        out = {"sum": np.add, "prod": np.multiply, "max": np.maximum,
               "min": np.minimum, "and": np.bitwise_and,
               "or": np.bitwise_or, "xor": np.bitwise_xor}[op](out, v)
    return out


def contribution(pe, dtype):
    return (np.arange(1, 7) * (pe + 1) + pe).astype(dtype)


@pytest.mark.parametrize("op,dtype", REDUCE_CASES)
def test_reduce(op, dtype, me, npes):
    src = weft.array(contribution(me, dtype))
    dst = weft.zeros(6, dtype)
    want = expected(op, [contribution(i, dtype) for i in range(npes)])
    weft.reduce(dst, src, op)
    assert np.allclose(dst, want) if dtype.startswith(("f", "c")) \
        else (dst == want).all()
    # the OP_* constant and the OP_reduce form agree
    dst[...] = 0
    getattr(weft, f"{op}_reduce")(dst, src, size=4)
    assert np.allclose(dst[:4], want[:4]) and (dst[4:] == 0).all()
    assert getattr(weft, f"OP_{op.upper()}") == op
    weft.barrier_all()
    weft.free(dst)
    weft.free(src)


def test_reduce_in_place(me, npes):
    a = weft.full(3, me + 1, dtype="int64")
    weft.sum_reduce(a, a)
    assert (a == npes * (npes + 1) // 2).all()
    weft.barrier_all()
    weft.free(a)


@pytest.mark.parametrize("dtype", ["int32", "float64"])
def test_scans(dtype, me, npes):
    src = weft.full(4, me + 1, dtype=dtype)
    dst = weft.full(4, -1, dtype=dtype)
    weft.inscan(dst, src)
    assert (dst == sum(range(1, me + 2))).all()
    weft.exscan(dst, src, weft.OP_SUM)
    assert (dst == sum(range(1, me + 1))).all()
    weft.sum_inscan(dst, src, size=2)
    assert (dst[:2] == sum(range(1, me + 2))).all()
    weft.sum_exscan(dst, src)
    assert (dst == sum(range(1, me + 1))).all()
    weft.barrier_all()
    weft.free(dst)
    weft.free(src)


@pytest.mark.pes(2)
def test_on_split_team(me, npes):
    # the even PEs: broadcast, fcollect and reduce numbered in the team
    team = weft.TEAM_WORLD.split_strided(0, 2)
    src = weft.full(2, me, dtype="int64")
    dst = weft.zeros(2 * ((npes + 1) // 2), "int64")
    if team:
        n = team.n_pes()
        weft.broadcast(dst, src, n - 1, team=team)
        assert (dst[:2] == 2 * (n - 1)).all()
        weft.fcollect(dst, src, team=team)
        assert (dst[:2 * n] == np.repeat(2 * np.arange(n), 2)).all()
        weft.reduce(dst, src, "max", size=2, team=team)
        assert (dst[:2] == 2 * (n - 1)).all()
        weft.sync(team)
        team.sync()
        team.destroy()
    weft.barrier_all()
    weft.free(dst)
    weft.free(src)
