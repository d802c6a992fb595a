"""Remote memory access on host arrays (docs/python.md): put, get, their
_nbi forms, p and g, the strided iput/iget and blocked ibput/ibget, with
size=, ctx= and arrays of several dtypes and shapes.  Every PE checks what
it received from its neighbour."""
import numpy as np
import pytest

import weft

DTYPES = ["int8", "uint16", "int32", "int64", "float32", "float64",
          "complex128", "longdouble"]


def payload(pe, n, dtype):
    """What PE pe sends: values that differ by PE and element."""
    return (np.arange(n) + 1000 * pe).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_put_ring(dtype, me, right, left):
    a = weft.zeros(16, dtype)
    weft.barrier_all()
    weft.put(a, payload(me, 16, dtype), right)
    weft.barrier_all()
    assert (a == payload(left, 16, dtype)).all()
    weft.free(a)


@pytest.mark.parametrize("dtype", DTYPES)
def test_get_ring(dtype, me, right):
    a = weft.array(payload(me, 10, dtype))
    out = np.zeros(10, dtype)
    weft.get(out, a, right)
    assert (out == payload(right, 10, dtype)).all()
    weft.barrier_all()
    weft.free(a)


def test_put_size_and_2d(me, right, left):
    a = weft.full((3, 4), -1, dtype="int32")
    src = np.arange(12, dtype="int32").reshape(3, 4) + me * 100
    weft.put(a, src, right, size=5)
    weft.barrier_all()
    flat = a.ravel()
    assert (flat[:5] == np.arange(5) + left * 100).all()
    assert (flat[5:] == -1).all()
    weft.barrier_all()
    weft.put(a, src, right)
    weft.barrier_all()
    assert (a == src - me * 100 + left * 100).all()
    weft.free(a)


def test_nbi_and_quiet(me, right, left):
    a = weft.zeros(1000, "float64")
    b = weft.zeros(1000, "float64")
    weft.barrier_all()
    weft.put_nbi(a, np.full(1000, me, "float64"), right)
    weft.quiet()
    weft.barrier_all()
    assert (a == left).all()
    weft.get_nbi(b, a, right)
    weft.quiet()
    assert (b == me).all()
    weft.barrier_all()
    weft.free(b)
    weft.free(a)


def test_large_put(me, right, left):
    # Over the size the calls run with the GIL held.
    n = 1 << 17
    a = weft.zeros(n, "int64")
    weft.barrier_all()
    weft.put(a, np.arange(n, dtype="int64") * (me + 1), right)
    weft.barrier_all()
    assert (a == np.arange(n) * (left + 1)).all()
    weft.free(a)


def test_ctx(me, right, left):
    a = weft.zeros(8, "int64")
    with weft.Ctx.create() as ctx:
        weft.put(a, np.full(8, me, "int64"), right, ctx=ctx)
        ctx.quiet()
    weft.barrier_all()
    assert (a == left).all()
    weft.free(a)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64",
                                   "uint32", "uint64", "float32",
                                   "float64"])
def test_p_g(dtype, me, right, left):
    a = weft.zeros(1, dtype)
    weft.barrier_all()
    weft.p(a, me + 7, right)
    weft.barrier_all()
    assert a[0] == left + 7
    assert weft.g(a, right) == me + 7
    weft.barrier_all()
    weft.free(a)


def test_p_g_element_of_larger_array(me, right, left):
    a = weft.zeros(8, "float64")
    weft.barrier_all()
    weft.p(a[3:4], 0.5 + me, right)
    weft.barrier_all()
    assert a[3] == 0.5 + left and a.sum() == a[3]
    assert weft.g(a[3:4], right) == 0.5 + me
    weft.barrier_all()
    weft.free(a)


@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "int64",
                                   "complex128"])
def test_iput_iget(dtype, me, right, left):
    n = 6
    a = weft.zeros(3 * n, dtype)
    src = np.zeros(2 * n, dtype)
    src[::2] = payload(me, n, dtype)
    weft.barrier_all()
    weft.iput(a, src, right, tst=3, sst=2)
    weft.barrier_all()
    assert (a[::3] == payload(left, n, dtype)).all()
    assert (a[1::3] == 0).all() and (a[2::3] == 0).all()
    out = np.zeros(n * 2, dtype)
    weft.iget(out, a, right, tst=2, sst=3, size=n)
    assert (out[::2] == payload(me, n, dtype)).all()
    assert (out[1::2] == 0).all()
    weft.barrier_all()
    weft.free(a)


def test_ibput_ibget(me, right, left):
    # 3 blocks of 2 elements, block starts 5 apart in the target and 2
    # apart (packed) in the source.
    a = weft.full(15, -1, dtype="int32")
    src = np.arange(6, dtype="int32") + 10 * me
    weft.barrier_all()
    weft.ibput(a, src, right, tst=5, sst=2, bsize=2, size=3)
    weft.barrier_all()
    want = np.full(15, -1, "int32")
    for b in range(3):
        want[5 * b:5 * b + 2] = src[2 * b:2 * b + 2] - 10 * me + 10 * left
    assert (a == want).all()
    out = np.zeros(6, "int32")
    weft.ibget(out, a, right, tst=2, sst=5, bsize=2)
    assert (out == src).all()
    weft.barrier_all()
    weft.free(a)


def test_other_buffers(me, right, left):
    # any buffer-protocol object is a local argument; NumPy subclasses too
    a = weft.zeros(4, "uint8")
    weft.barrier_all()
    weft.put(a, bytearray([me, 1, 2, 3]), right)
    weft.barrier_all()
    assert a.tolist() == [left, 1, 2, 3]
    out = bytearray(4)
    weft.get(out, a, right)
    assert list(out) == [me, 1, 2, 3]
    m = np.zeros(4, "uint8").view(np.recarray)
    weft.get(m, memoryview(a), me)
    assert m.tolist() == [left, 1, 2, 3]
    weft.barrier_all()
    weft.free(a)
