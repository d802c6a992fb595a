"""Bad input (docs/python.md, "Errors"): each raises a Python exception
whose message names the routine, the argument and the value, before any
data moves: arrays that are not symmetric, PEs out of range, dtype, shape
and size mismatches, destroyed teams and contexts, bad comparison and
operator names, values that do not fit the dtype.  The collectives' cases
are wrong alike on every PE, so every PE raises and none waits."""
import numpy as np
import pytest

import weft


def check(exc, fn, *args, routine, arg, value=None, **kwargs):
    """fn(*args, **kwargs) raises exc naming routine, arg and value."""
    with pytest.raises(exc) as info:
        fn(*args, **kwargs)
    msg = str(info.value)
    assert msg.startswith(routine + ":"), msg
    assert f"'{arg}'" in msg, msg
    if value is not None:
        assert str(value) in msg, msg
    return msg


@pytest.fixture
def sym():
    a = weft.zeros(4, "int64")
    yield a
    weft.barrier_all()
    weft.free(a)


def test_not_symmetric(sym, right):
    local = np.zeros(4, "int64")
    msg = check(ValueError, weft.put, local, sym, right, routine="weft.put",
                arg="target", value="array([0, 0, 0, 0])")
    assert "not symmetric" in msg
    check(ValueError, weft.get, local, local, right, routine="weft.get",
          arg="source")
    check(ValueError, weft.atomic_add, np.zeros(1, "int64"), 1, right,
          routine="weft.atomic_add", arg="target")
    check(ValueError, weft.wait_until, np.zeros(1, "int64"), "==", 0,
          routine="weft.wait_until", arg="ivar")
    check(ValueError, weft.reduce, sym, local, routine="weft.reduce",
          arg="source")


def test_freed_array(right):
    a = weft.zeros(2, "int32")
    weft.free(a)
    check(ValueError, weft.put, a, np.zeros(2, "int32"), right,
          routine="weft.put", arg="target")
    check(ValueError, weft.free, a, routine="weft.free", arg="a")


def test_pe_out_of_range(sym, npes):
    src = np.ones(4, "int64")
    msg = check(ValueError, weft.put, sym, src, npes, routine="weft.put",
                arg="pe", value=f"= {npes}")
    assert f"0 to {npes - 1}" in msg
    check(ValueError, weft.get, src, sym, -1, routine="weft.get", arg="pe",
          value="-1")
    check(ValueError, weft.p, sym[:1], 1, npes + 3, routine="weft.p",
          arg="pe", value=npes + 3)
    check(ValueError, weft.atomic_fetch_inc, sym[:1], npes,
          routine="weft.atomic_fetch_inc", arg="pe", value=npes)
    check(ValueError, weft.signal_set, weft.zeros(1, "uint64"), 1, npes,
          routine="weft.signal_set", arg="pe", value=npes)
    check(ValueError, weft.pe_quiet, [0, npes], routine="weft.pe_quiet",
          arg="pes", value=npes)
    check(ValueError, weft.ptr, sym, npes, routine="weft.ptr", arg="pe")
    check(TypeError, weft.put, sym, src, "1", routine="weft.put", arg="pe",
          value="'1'")


def test_nothing_moves(sym, me, right, left):
    # a put refused for its size leaves the target as it was
    weft.barrier_all()
    check(ValueError, weft.put, sym, np.full(8, 7, "int64"), right, size=8,
          routine="weft.put", arg="size", value="8")
    check(TypeError, weft.put, sym, np.full(4, 7, "int32"), right,
          routine="weft.put", arg="source", value="int32")
    weft.barrier_all()
    assert (sym == 0).all()


def test_dtype_shape_size(sym, right):
    msg = check(TypeError, weft.put, sym, np.zeros(4, "float64"), right,
                routine="weft.put", arg="source", value="float64")
    assert "'target' int64" in msg
    check(ValueError, weft.put, sym, np.zeros(2, "int64"), right, size=3,
          routine="weft.put", arg="size", value="3")
    check(ValueError, weft.atomic_inc, sym, right,
          routine="weft.atomic_inc", arg="target", value="4 elements")
    check(ValueError, weft.put, sym, np.zeros((4, 4), "int64")[:, 0], right,
          routine="weft.put", arg="source", value="not contiguous")
    check(TypeError, weft.put, sym, [1, 2], right, routine="weft.put",
          arg="source", value="[1, 2]")
    ro = np.zeros(4, "int64")
    ro.flags.writeable = False
    check(ValueError, weft.get, ro, sym, right, routine="weft.get",
          arg="target", value="read-only")
    check(ValueError, weft.iput, sym, np.zeros(4, "int64"), right, tst=0,
          routine="weft.iput", arg="tst", value="0")
    check(ValueError, weft.ibput, sym, np.zeros(4, "int64"), right, bsize=3,
          tst=2, size=2, routine="weft.ibput", arg="size", value="2")
    check(TypeError, weft.put, sym, sym, right, bogus=1, routine="weft.put",
          arg="bogus")


def test_amo_types_and_values(right):
    f = weft.zeros(1, "float64")
    msg = check(TypeError, weft.atomic_fetch_add, f, 1.0, right,
                routine="weft.atomic_fetch_add", arg="target",
                value="float64")
    assert "shmem_atomic_fetch_add" in msg and "int64" in msg
    check(TypeError, weft.atomic_xor, f, 1, right,
          routine="weft.atomic_xor", arg="target", value="float64")
    i16 = weft.zeros(1, "int16")
    check(TypeError, weft.atomic_set, i16, 1, right,
          routine="weft.atomic_set", arg="target", value="int16")
    i32 = weft.zeros(1, "int32")
    check(OverflowError, weft.atomic_add, i32, 2**40, right,
          routine="weft.atomic_add", arg="value", value=2**40)
    u64 = weft.zeros(1, "uint64")
    check(OverflowError, weft.atomic_set, u64, -1, right,
          routine="weft.atomic_set", arg="value", value="-1")
    check(TypeError, weft.atomic_add, i32, 1.5, right,
          routine="weft.atomic_add", arg="value", value="1.5")
    check(TypeError, weft.atomic_compare_swap, i32, "x", 1, right,
          routine="weft.atomic_compare_swap", arg="cond", value="'x'")
    check(ValueError, weft.atomic_op, i32, "mul", 1, right,
          routine="weft.atomic_op", arg="op", value="'mul'")
    check(TypeError, weft.atomic_fetch_add_nbi, np.zeros(1, "int64"), i32,
          1, right, routine="weft.atomic_fetch_add_nbi", arg="fetch",
          value="int64")
    check(TypeError, weft.p, weft.zeros(1, "complex128"), 1j, right,
          routine="weft.p", arg="target", value="complex128")
    weft.barrier_all()
    for a in (u64, i32, i16, f):
        weft.free(a)


def test_sync_and_signal(right):
    x = weft.zeros(1, "int64")
    check(ValueError, weft.wait_until, x, "approx", 0,
          routine="weft.wait_until", arg="cmp", value="'approx'")
    check(ValueError, weft.test, x, 0, 0, routine="weft.test", arg="cmp",
          value="0")
    check(TypeError, weft.test, x, None, 0, routine="weft.test", arg="cmp",
          value="None")
    v = weft.zeros(3, "int64")
    check(ValueError, weft.test_all, v, "==", 0, status=[0],
          routine="weft.test_all", arg="status", value="1 elements")
    check(TypeError, weft.test_any, v, "==", 0,
          status=np.zeros(3, "int64"), routine="weft.test_any",
          arg="status", value="int64")
    check(TypeError, weft.test_all_vector, v, "==",
          np.zeros(3, "int32"), routine="weft.test_all_vector",
          arg="values", value="int32")
    s16 = weft.zeros(1, "int16")
    check(TypeError, weft.test, s16, "==", 0, routine="weft.test",
          arg="ivar", value="int16")
    check(TypeError, weft.signal_fetch, x, routine="weft.signal_fetch",
          arg="sig_addr", value="int64")
    sig = weft.new_signal()
    check(ValueError, weft.put_signal, x, np.zeros(1, "int64"), right, sig,
          1, 5, routine="weft.put_signal", arg="sig_op", value="5")
    check(OverflowError, weft.signal_add, sig, -2, right,
          routine="weft.signal_add", arg="signal", value="-2")
    check(ValueError, weft.signal_wait_until, sig, "~", 0,
          routine="weft.signal_wait_until", arg="cmp", value="'~'")
    weft.barrier_all()
    weft.del_signal(sig)
    for a in (s16, v, x):
        weft.free(a)


def test_collectives(npes):
    src = weft.zeros(4, "float64")
    dst = weft.zeros(4, "float64")
    check(ValueError, weft.reduce, dst, src, "mean", routine="weft.reduce",
          arg="op", value="'mean'")
    msg = check(TypeError, weft.reduce, dst, src, weft.OP_AND,
                routine="weft.reduce", arg="target", value="float64")
    assert "shmem_and_reduce" in msg
    check(ValueError, weft.broadcast, dst, src, npes,
          routine="weft.broadcast", arg="root", value=npes)
    check(ValueError, weft.fcollect, dst, src, size=5,
          routine="weft.fcollect", arg="size", value="5")
    if npes > 1:
        check(ValueError, weft.fcollect, dst, src,
              routine="weft.fcollect", arg="size", value="4")
    check(TypeError, weft.broadcast, dst, weft.zeros(4, "float32"), 0,
          routine="weft.broadcast", arg="source", value="float32")
    check(ValueError, weft.inscan, dst, src, "max", routine="weft.inscan",
          arg="op", value="'max'")
    check(ValueError, weft.alltoalls, dst, src, tst=-1,
          routine="weft.alltoalls", arg="tst", value="-1")
    weft.barrier_all()
    weft.free(dst)
    weft.free(src)


def test_destroyed_team_and_ctx(npes):
    t = weft.TEAM_WORLD.split_strided(0, 1, npes)
    t.destroy()
    src = weft.zeros(2, "int32")
    dst = weft.zeros(2, "int32")
    check(ValueError, weft.reduce, dst, src, team=t, routine="weft.reduce",
          arg="team", value="was destroyed")
    check(ValueError, weft.sync, t, routine="weft.sync", arg="team",
          value="destroyed")
    check(ValueError, t.split_strided, 0, 1, 1,
          routine="weft.Team.split_strided", arg="team", value="destroyed")
    check(TypeError, weft.sync, "world", routine="weft.sync", arg="team",
          value="str")
    ctx = weft.Ctx.create()
    ctx.destroy()
    check(ValueError, weft.get, np.zeros(2, "int32"), src, 0, ctx=ctx,
          routine="weft.get", arg="ctx", value="destroyed")
    check(ValueError, weft.Ctx.create, 1 << 20, routine="weft.Ctx.create",
          arg="options", value=str(1 << 20))
    check(ValueError, weft.TEAM_WORLD.split_strided, 0, 1, npes + 1,
          routine="weft.Team.split_strided", arg="size", value=npes + 1)
    check(ValueError, weft.TEAM_WORLD.split_strided, npes, 1, 1,
          routine="weft.Team.split_strided", arg="start", value=npes)
    weft.barrier_all()
    weft.free(dst)
    weft.free(src)
