"""Streams (docs/python-gpu.md): weft.Stream, every form stream= takes
(an int handle, weft.Stream, and objects shaped like CuPy's, PyTorch's,
Numba's and CUDA Python's streams), ordering on a stream (copies, puts,
put-with-signal, signal waits, host functions), collectives on a stream,
and bad stream arguments.

Run with a device back end (the cases set SHMEM_DEVICE_BACKEND=mock);
without a device heap every test is skipped."""
import ctypes
import threading

import numpy as np
import pytest

import weft
import weft.device as wd

# (skipped, not left out: a file of no tests would fail its case)
pytestmark = pytest.mark.skipif(not wd.available(),
                                reason="no device heap (SHMEM_DEVICE_BACKEND)")


# Objects shaped like the frameworks' streams (none is installed here).
class CupyLike:
    def __init__(self, s):
        self.ptr = s.ptr


class TorchLike:
    def __init__(self, s):
        self.cuda_stream = s.ptr


class NumbaLike:
    def __init__(self, s):
        self.handle = ctypes.c_void_p(s.ptr)


class CudaPythonLike:
    def __init__(self, s):
        self.h = s.ptr

    def __cuda_stream__(self):
        return (0, self.h)


def pattern(pe, n, dtype="int64", salt=0):
    return (np.arange(n) % 89 + 1000 * (pe + 1) + salt).astype(dtype)


def stream_kw_supported(call):
    """Runs call(); skips (on every PE alike) when the routine has no
    stream= yet."""
    try:
        return call()
    except TypeError as e:
        if "unexpected keyword argument 'stream'" in str(e):
            pytest.skip(f"no stream= yet: {e}")
        raise


def test_stream_object():
    s = weft.Stream()
    assert not s.destroyed and s.ptr == s.handle and isinstance(s.ptr, int)
    assert "weft.Stream" in repr(s)
    s.synchronize()
    weft.stream_synchronize(s)
    weft.stream_synchronize()          # the default stream
    weft.stream_destroy(s)
    assert s.destroyed and "destroyed" in repr(s)
    with weft.Stream() as t:
        assert not t.destroyed
    assert t.destroyed                 # the block synchronized and destroyed it
    u = weft.stream_create()
    u.destroy()


@pytest.mark.parametrize("form", ["stream", "int", "cupy", "torch", "numba",
                                  "cuda_python"])
def test_put_on_stream_forms(me, left, right, form):
    n = 5000
    src = wd.array(pattern(me, n))
    dst = wd.zeros(n, dtype="int64")
    s = weft.Stream()
    arg = {"stream": s, "int": s.ptr, "cupy": CupyLike(s),
           "torch": TorchLike(s), "numba": NumbaLike(s),
           "cuda_python": CudaPythonLike(s)}[form]
    try:
        weft.put(dst, src, right, stream=arg)
        s.synchronize()
        weft.barrier_all()
        assert (wd.to_numpy(dst) == pattern(left, n)).all()
        weft.get(dst, src, right, stream=arg)
        s.synchronize()
        assert (wd.to_numpy(dst) == pattern(right, n)).all()
    finally:
        s.destroy()
        wd.free(dst)
        wd.free(src)


def test_default_stream_takes_the_stream_path(me):
    """stream=0 (CuPy's null stream, torch's default stream) is the
    device's default stream, not "no stream": the routine takes its
    stream-ordered form, which refuses host memory, and moves device data
    in stream order (the default stream is synchronised at the end)."""
    n = 64
    src = wd.array(pattern(me, n))
    dst = wd.zeros(n, dtype="int64")
    host = weft.zeros(n, dtype="int64")
    try:
        with pytest.raises(ValueError, match=r"weft\.put: argument 'target'"):
            weft.put(host, src, me, stream=0)
        with pytest.raises(ValueError, match=r"weft\.broadcast: argument"):
            weft.broadcast(host, host, 0, stream=0)
        weft.put(dst, src, me, stream=0)
        weft.stream_synchronize(0)
        assert (wd.to_numpy(dst) == pattern(me, n)).all()
    finally:
        weft.barrier_all()
        weft.free(host)
        wd.free(dst)
        wd.free(src)


def test_host_functions_run_in_order():
    order = []
    seen = []
    with weft.Stream() as s:
        for i in range(20):
            weft.host_func_on_stream(s, lambda i=i: order.append(i))
        weft.host_func_on_stream(
            s, lambda: seen.append(threading.get_ident()))
        s.synchronize()
    assert order == list(range(20)) and seen
    if wd.info()["backend"] == "mock":     # its stream worker, not ours
        assert seen[0] != threading.get_ident()


# (the exception is reported as unraisable, as any callback's is)
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_host_function_that_raises_does_not_stop_the_stream():
    out = []

    def bad():
        raise RuntimeError("from a host function")
    with weft.Stream() as s:
        weft.host_func_on_stream(s, bad)
        weft.host_func_on_stream(s, lambda: out.append(1))
        s.synchronize()
    assert out == [1]


def test_copy_then_put_then_host_function(me, left, right):
    """The stream orders a host-to-device copy, the put that sends what it
    copied, and a host function that sees the put done."""
    n = 1 << 15
    src = wd.zeros(n, dtype="int64")
    dst = wd.zeros(n, dtype="int64")
    events = []
    try:
        for salt in range(3):
            with weft.Stream() as s:
                # the host array is dropped at once: the stream keeps it
                weft.memcpy_on_stream(src, pattern(me, n, salt=salt), s)
                weft.put(dst, src, right, stream=s)
                weft.host_func_on_stream(s, lambda: events.append(salt))
                back = np.zeros(n, np.int64)
                weft.memcpy_on_stream(back, src, s)
                s.synchronize()
                assert (back == pattern(me, n, salt=salt)).all()
            weft.barrier_all()
            assert (wd.to_numpy(dst) == pattern(left, n, salt=salt)).all()
            weft.barrier_all()
        assert events == [0, 1, 2]
    finally:
        wd.free(dst)
        wd.free(src)


def test_memcpy_on_stream_sizes():
    a = wd.zeros(100, dtype="uint8")
    try:
        with weft.Stream() as s:
            weft.memcpy_on_stream(a, np.full(100, 9, np.uint8), s, nbytes=40)
            weft.memcpy_on_stream(a[50:], np.full(10, 3, np.uint8), s)
        want = np.zeros(100, np.uint8)
        want[:40] = 9
        want[50:60] = 3
        assert (wd.to_numpy(a) == want).all()
        weft.memcpy_on_stream(a, np.ones(100, np.uint8))   # default stream
        weft.stream_synchronize()
        assert (wd.to_numpy(a) == 1).all()
    finally:
        wd.free(a)


def test_put_signal_and_wait_on_streams(me, left, right):
    """A put-with-signal on one stream; on the target, a signal wait on a
    stream, then a copy out on that stream: the copy sees the data."""
    if not hasattr(weft, "put_signal"):
        pytest.skip("weft has no put_signal yet")
    n = 1 << 17
    src = wd.array(pattern(me, n, "float64"))
    dst = wd.zeros(n, dtype="float64")
    sig = wd.zeros(1, dtype="uint64")
    out = np.zeros(n)
    try:
        with weft.Stream() as rx, weft.Stream() as tx:
            # (the peer's put may land before or after this PE's wait is
            # enqueued: both orders occur across PEs and runs)
            stream_kw_supported(lambda: weft.put_signal(
                dst, src, right, sig, 1, weft.SIGNAL_SET, stream=tx))
            stream_kw_supported(lambda: weft.signal_wait_until(
                sig, weft.CMP_EQ, 1, stream=rx))
            weft.memcpy_on_stream(out, dst, rx)
            tx.synchronize()
            rx.synchronize()
        assert (out == pattern(left, n, "float64")).all()
    finally:
        weft.barrier_all()
        for a in (sig, dst, src):
            wd.free(a)


def test_collectives_on_a_stream(me, npes):
    n = 64
    src = wd.array(pattern(me, n))
    bcast = wd.zeros(n, dtype="int64")
    coll = wd.zeros(n * npes, dtype="int64")
    red = wd.zeros(n, dtype="int64")
    try:
        with weft.Stream() as s:
            stream_kw_supported(lambda: weft.barrier_all(stream=s))
            stream_kw_supported(lambda: weft.broadcast(bcast, src, 0,
                                                       stream=s))
            stream_kw_supported(lambda: weft.fcollect(coll, src, stream=s))
            stream_kw_supported(lambda: weft.sum_reduce(red, src, stream=s))
            stream_kw_supported(lambda: weft.barrier_all(stream=s))
        assert (wd.to_numpy(bcast) == pattern(0, n)).all()
        assert (wd.to_numpy(coll) ==
                np.concatenate([pattern(p, n) for p in range(npes)])).all()
        assert (wd.to_numpy(red) ==
                sum(pattern(p, n) for p in range(npes))).all()
    finally:
        weft.barrier_all()
        for a in (red, coll, bcast, src):
            wd.free(a)


def test_reduce_on_a_stream_every_op(me, npes):
    if not hasattr(weft, "reduce"):
        pytest.skip("weft has no reduce yet")
    src = wd.array(np.arange(1, 9, dtype=np.int32) * (me + 1))
    dst = wd.zeros(8, dtype="int32")
    host = [np.arange(1, 9, dtype=np.int32) * (p + 1) for p in range(npes)]
    want = {"sum": sum(host), "max": host[-1], "min": host[0],
            "prod": np.prod(host, axis=0, dtype=np.int32)}
    try:
        for op, w in want.items():
            with weft.Stream() as s:
                stream_kw_supported(lambda: weft.reduce(dst, src, op,
                                                        stream=s))
            assert (wd.to_numpy(dst) == w).all(), op
            weft.barrier_all()
    finally:
        weft.barrier_all()
        wd.free(dst)
        wd.free(src)


# ---- bad stream arguments: an exception naming routine, argument, value --

def test_bad_stream_arguments(right):
    a = wd.zeros(4, dtype="int64")
    s = weft.Stream()
    s.destroy()
    try:
        with pytest.raises(ValueError, match="weft.put: argument 'stream' = "
                                             "<weft.Stream \\(destroyed\\)> "
                                             "was destroyed"):
            weft.put(a, a, right, stream=s)
        with pytest.raises(TypeError, match="weft.put: argument 'stream' = "
                                            "<object object at .*> is not a "
                                            "stream"):
            weft.put(a, a, right, stream=object())
        with pytest.raises(TypeError, match="weft.get: argument 'stream' = "
                                            "'s1' is not a stream"):
            weft.get(a, a, right, stream="s1")
        with pytest.raises(TypeError, match="argument 'stream' = True"):
            weft.put(a, a, right, stream=True)
        with pytest.raises(ValueError, match="argument 'stream' = -5 is a "
                                             "negative stream handle"):
            weft.put(a, a, right, stream=-5)

        class Odd:
            ptr = "not a handle"
        with pytest.raises(TypeError, match="weft.put: argument 'stream' = "
                                            ".*Odd.* not an integer"):
            weft.put(a, a, right, stream=Odd())
        with pytest.raises(ValueError, match="weft.Stream.synchronize: the "
                                             "stream was destroyed"):
            s.synchronize()
        with pytest.raises(ValueError, match="already destroyed"):
            weft.stream_destroy(s)
        with pytest.raises(TypeError, match="weft.stream_destroy: argument "
                                            "'stream' = 5 is not a "
                                            "weft.Stream"):
            weft.stream_destroy(5)
        with pytest.raises(ValueError, match="weft.memcpy_on_stream: neither "
                                             "'dest' nor 'source' is device "
                                             "memory"):
            weft.memcpy_on_stream(np.zeros(4), np.ones(4))
        with pytest.raises(ValueError, match="'nbytes' = 64 is more than "
                                             "'dest' holds \\(32 bytes\\)"):
            weft.memcpy_on_stream(a, np.ones(8), nbytes=64)
        with pytest.raises(TypeError, match="weft.host_func_on_stream: "
                                            "argument 'fn' = 3 is not "
                                            "callable"):
            weft.host_func_on_stream(None, 3)
    finally:
        wd.free(a)
