"""Device arrays with the GPU frameworks (docs/python-gpu.md): CuPy,
PyTorch and Numba take weft device arrays zero-copy, their arrays and
streams go to weft's routines, and stream order holds between a
framework's work and weft's.  Needs a real GPU (the cuda or hip back end)
and the frameworks; elsewhere (the mock, which the cases use) every test
is skipped.  python/gpu/run-gpu-checks.sh runs this file on a GPU."""
import numpy as np
import pytest

import weft
import weft.device as wd

BACKEND = wd.info()["backend"] if wd.available() else None
pytestmark = pytest.mark.skipif(BACKEND not in ("cuda", "hip"),
                                reason="needs the cuda or hip back end "
                                       f"(this PE's: {BACKEND})")


def need(name):
    """The framework module, or a skip (on every PE alike: the machines
    of one job have the same packages)."""
    try:
        return __import__(name)
    except ImportError as e:
        pytest.skip(f"{name} is not installed: {e}")


def expected(pe, n):
    return np.arange(n, dtype=np.float64) + 1000.0 * (pe + 1)


# ---- CuPy ---------------------------------------------------------------

def test_cupy_zero_copy(me):
    cupy = need("cupy")
    a = wd.zeros(1000, dtype="float64")
    try:
        c = wd.as_cupy(a)
        assert c.data.ptr == a.ptr and c.shape == (1000,)
        c[...] = cupy.asarray(expected(me, 1000))
        cupy.cuda.get_current_stream().synchronize()
        assert (wd.to_numpy(a) == expected(me, 1000)).all()
        wd.copy_from_host(a, expected(me + 1, 1000))
        assert (c.get() == expected(me + 1, 1000)).all()
        d = cupy.from_dlpack(a)            # DLPack too
        assert d.data.ptr == a.ptr
    finally:
        wd.free(a)


def test_cupy_arrays_as_arguments(me, left, right):
    cupy = need("cupy")
    n = 1 << 16
    dst = wd.zeros(n, dtype="float64")
    try:
        src = cupy.asarray(expected(me, n))   # CuPy's memory, not symmetric
        weft.put(dst, src, right)
        weft.barrier_all()
        assert (wd.to_numpy(dst) == expected(left, n)).all()
        local = cupy.zeros(n)
        weft.get(local, dst, right)
        assert (local.get() == expected(me, n)).all()
        with pytest.raises(ValueError, match="weft.put: argument 'target' "
                                             ".* is not symmetric"):
            weft.put(local, src, right)
    finally:
        wd.free(dst)


def test_cupy_stream_orders_kernel_then_put(me, left, right):
    cupy = need("cupy")
    n = 1 << 20
    src = wd.zeros(n, dtype="float64")
    dst = wd.zeros(n, dtype="float64")
    try:
        s = cupy.cuda.Stream(non_blocking=True)
        with s:
            cs = wd.as_cupy(src)
            cs[...] = cupy.arange(n, dtype=cupy.float64) + 1000.0 * (me + 1)
        # the put runs after the kernel above, on the same stream
        weft.put(dst, src, right, stream=s)
        s.synchronize()
        weft.barrier_all()
        assert (wd.to_numpy(dst) == expected(left, n)).all()
    finally:
        wd.free(dst)
        wd.free(src)


def test_cupy_peer_view(me, right):
    need("cupy")
    a = wd.array(expected(me, 4096))
    try:
        peer = wd.ptr(a, right)
        assert peer is not None
        assert (wd.as_cupy(peer).get() == expected(right, 4096)).all()
    finally:
        weft.barrier_all()
        wd.free(a)


# ---- PyTorch ------------------------------------------------------------

def test_torch_zero_copy_and_arguments(me, left, right):
    torch = need("torch")
    n = 1 << 16
    a = wd.zeros(n, dtype="float64")
    try:
        t = wd.as_torch(a)
        assert t.data_ptr() == a.ptr and t.is_cuda and t.shape == (n,)
        t.copy_(torch.as_tensor(expected(me, n)))
        torch.cuda.synchronize()
        assert (wd.to_numpy(a) == expected(me, n)).all()
        dst = wd.zeros(n, dtype="float64")
        try:
            weft.put(dst, t, right)        # a torch CUDA tensor as source
            weft.barrier_all()
            assert (wd.to_numpy(dst) == expected(left, n)).all()
        finally:
            wd.free(dst)
    finally:
        wd.free(a)


def test_torch_stream(me, left, right):
    torch = need("torch")
    n = 1 << 18
    src = wd.zeros(n, dtype="float32")
    dst = wd.zeros(n, dtype="float32")
    try:
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            wd.as_torch(src).fill_(float(me + 1))
        weft.put(dst, src, right, stream=s)
        s.synchronize()
        weft.barrier_all()
        assert (wd.to_numpy(dst) == left + 1).all()
    finally:
        wd.free(dst)
        wd.free(src)


# ---- Numba --------------------------------------------------------------

def test_numba_zero_copy_and_stream(me, left, right):
    need("numba")
    from numba import cuda
    if BACKEND != "cuda" or not cuda.is_available():
        pytest.skip("Numba runs on CUDA only, with a driver")
    a = wd.array(expected(me, 512))
    dst = wd.zeros(512, dtype="float64")
    try:
        d = wd.as_numba(a)
        assert d.device_ctypes_pointer.value == a.ptr
        assert (d.copy_to_host() == expected(me, 512)).all()
        s = cuda.stream()
        weft.put(dst, d, right, stream=s)
        s.synchronize()
        weft.barrier_all()
        assert (wd.to_numpy(dst) == expected(left, 512)).all()
    finally:
        wd.free(dst)
        wd.free(a)
