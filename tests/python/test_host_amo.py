"""Atomic memory operations on host arrays (docs/python.md): every atomic
of shmem4py, typed by the dtype of the symmetric one-element target, their
_nbi forms and atomic_op/atomic_fetch_op(_nbi) with the AMO_* names.  The
counters are updated by every PE and checked against the sums they must
reach."""
import numpy as np
import pytest

import weft

STD = ["int32", "int64", "uint32", "uint64"]  # standard and bitwise AMOs
EXT = STD + ["float32", "float64"]               # fetch, set, swap


@pytest.mark.parametrize("dtype", STD)
def test_fetch_add_from_every_pe(dtype, me, npes):
    c = weft.zeros(1, dtype)
    weft.barrier_all()
    old = weft.atomic_fetch_add(c, me + 1, 0)
    assert 0 <= old <= npes * (npes + 1) // 2
    weft.barrier_all()
    assert weft.atomic_fetch(c, 0) == npes * (npes + 1) // 2
    weft.barrier_all()
    weft.free(c)


@pytest.mark.parametrize("dtype", STD)
def test_inc_add_fetch_inc(dtype, me, npes):
    c = weft.zeros(1, dtype)
    weft.barrier_all()
    weft.atomic_inc(c, 0)
    weft.atomic_add(c, 2, 0)
    olds = weft.atomic_fetch_inc(c, 0)
    weft.barrier_all()
    if me == 0:
        assert c[0] == 4 * npes
    # the fetch_inc results are distinct across PEs: gather them
    got = weft.zeros(npes, "int64")
    mine = weft.array([olds], dtype="int64")
    weft.fcollect(got, mine)
    assert len(set(got.tolist())) == npes
    weft.barrier_all()
    for x in (mine, got, c):
        weft.free(x)


@pytest.mark.parametrize("dtype", EXT)
def test_set_fetch_swap(dtype, me, right, left):
    x = weft.zeros(1, dtype)
    weft.barrier_all()
    weft.atomic_set(x, me + 3, right)
    weft.barrier_all()
    assert x[0] == left + 3
    assert weft.atomic_fetch(x, right) == me + 3
    weft.barrier_all()
    old = weft.atomic_swap(x, 100 + me, right)
    assert old == me + 3
    weft.barrier_all()
    assert x[0] == 100 + left
    weft.free(x)


@pytest.mark.parametrize("dtype", STD)
def test_compare_swap(dtype, me, npes):
    # every PE tries to swap 0 -> its number + 1 on PE 0; exactly one wins
    x = weft.zeros(1, dtype)
    weft.barrier_all()
    old = weft.atomic_compare_swap(x, 0, me + 1, 0)
    wins = weft.zeros(1, "int32")
    won = weft.array([1 if old == 0 else 0], dtype="int32")
    weft.reduce(wins, won, "sum")
    assert wins[0] == 1
    weft.barrier_all()
    assert 1 <= weft.atomic_fetch(x, 0) <= npes
    weft.barrier_all()
    for a in (won, wins, x):
        weft.free(a)


@pytest.mark.parametrize("dtype", STD)
def test_bitwise(dtype, me, npes):
    x = weft.zeros(1, dtype)
    weft.barrier_all()
    weft.atomic_or(x, 1 << me, 0)
    weft.barrier_all()
    assert weft.atomic_fetch(x, 0) == (1 << npes) - 1
    weft.barrier_all()
    old = weft.atomic_fetch_and(x, ~(1 << me) & 0xFFFF, 0)
    assert old & (1 << me)
    weft.barrier_all()
    assert weft.atomic_fetch(x, 0) == 0
    weft.barrier_all()
    weft.atomic_xor(x, 3, 0)
    weft.barrier_all()
    assert weft.atomic_fetch(x, 0) == (3 if npes % 2 else 0)
    weft.barrier_all()
    weft.atomic_fetch_xor(x, 1, 0)
    weft.atomic_fetch_or(x, 0, 0)
    weft.atomic_and(x, 0, 0)
    weft.barrier_all()
    assert weft.atomic_fetch(x, 0) == 0
    weft.barrier_all()
    weft.free(x)


def test_nbi_forms(me, right, left):
    x = weft.zeros(1, "int64")
    f = np.zeros(1, "int64")
    weft.barrier_all()
    weft.atomic_fetch_add_nbi(f, x, 5, right)
    weft.quiet()
    assert f[0] in (0,)
    weft.barrier_all()
    weft.atomic_fetch_nbi(f, x, right)
    weft.quiet()
    assert f[0] == 5
    weft.atomic_swap_nbi(f, x, 9, right)
    weft.quiet()
    assert f[0] == 5
    weft.atomic_compare_swap_nbi(f, x, 9, 11, right)
    weft.quiet()
    assert f[0] == 9
    weft.atomic_fetch_inc_nbi(f, x, right)
    weft.quiet()
    assert f[0] == 11
    for fn, v in ((weft.atomic_fetch_and_nbi, 0xFF),
                  (weft.atomic_fetch_or_nbi, 0x100),
                  (weft.atomic_fetch_xor_nbi, 0x1)):
        fn(f, x, v, right)
        weft.quiet()
    weft.barrier_all()
    assert x[0] == ((12 & 0xFF) | 0x100) ^ 1
    weft.free(x)


def test_op_names(me, npes):
    x = weft.zeros(1, "uint64")
    weft.barrier_all()
    weft.atomic_op(x, weft.AMO_INC, None, 0)
    weft.atomic_op(x, weft.AMO_ADD, 2, 0)
    old = weft.atomic_fetch_op(x, "add", 0, 0)
    assert old >= 1
    f = np.zeros(1, "uint64")
    weft.atomic_fetch_op_nbi(f, x, weft.AMO_OR, 0, 0)
    weft.quiet()
    weft.barrier_all()
    assert weft.atomic_fetch(x, 0) == 3 * npes
    assert weft.AMO_AND == "and" and weft.AMO_XOR == "xor"
    weft.barrier_all()
    weft.free(x)


def test_ctx_and_value_types(me, right):
    x = weft.zeros(1, "int64")
    with weft.Ctx.create() as ctx:
        weft.atomic_add(x, np.int16(4), right, ctx=ctx)
        ctx.quiet()
    weft.barrier_all()
    assert x[0] == 4
    weft.barrier_all()
    weft.free(x)
    u = weft.zeros(1, "uint64")
    weft.barrier_all()
    weft.atomic_set(u, 2**64 - 1, me)
    assert u[0] == 2**64 - 1
    assert weft.atomic_fetch_add(u, 1, me) == 2**64 - 1
    assert u[0] == 0
    weft.barrier_all()
    weft.free(u)
