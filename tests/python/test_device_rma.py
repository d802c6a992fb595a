"""RMA, atomics and signals on device arrays (docs/python-gpu.md): put and
get host<->device and device<->device between PEs, device arrays of other
frameworks (stood in for by objects that offer only
__cuda_array_interface__ or only __dlpack__), a peer's array through the
IPC mapping, and bad input raising before any data moves.

Run with a device back end (the cases set SHMEM_DEVICE_BACKEND=mock);
without a device heap every test is skipped.  Data is checked by copying
device memory to the host through the library."""
import numpy as np
import pytest

import weft
import weft.device as wd

# (skipped, not left out: a file of no tests would fail its case)
pytestmark = pytest.mark.skipif(not wd.available(),
                                reason="no device heap (SHMEM_DEVICE_BACKEND)")


class CAIArray:
    """A foreign device array as CuPy, PyTorch or Numba show one: only
    __cuda_array_interface__ (no buffer protocol, no DLPack)."""

    def __init__(self, d, readonly=False, **changes):
        cai = dict(wd.interface(d), **changes)
        if readonly:
            cai["data"] = (cai["data"][0], True)
        self.__cuda_array_interface__ = cai


class DLArray:
    """A foreign array that offers only DLPack (as JAX arrays do)."""

    def __init__(self, d):
        self.d = d

    def __dlpack__(self, **kw):
        return self.d.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.d.__dlpack_device__()


def pattern(pe, n, dtype):
    return (np.arange(n) % 97 + 1000 * (pe + 1)).astype(dtype)


@pytest.mark.parametrize("n", [1, 100, 70000, 1 << 17])
@pytest.mark.parametrize("dtype", ["int64", "float32", "complex128", "uint8"])
def test_put_host_to_device(me, left, right, n, dtype):
    dst = wd.zeros(n, dtype=dtype)
    try:
        weft.put(dst, pattern(me, n, dtype), right)
        weft.barrier_all()
        assert (wd.to_numpy(dst) == pattern(left, n, dtype)).all()
    finally:
        wd.free(dst)


@pytest.mark.parametrize("n", [8, 1 << 17])
def test_put_get_device_to_device(me, left, right, n):
    src = wd.array(pattern(me, n, "float64"))
    dst = wd.zeros(n, dtype="float64")
    got = wd.zeros(n, dtype="float64")
    try:
        weft.put(dst, src, right)
        weft.barrier_all()
        assert (wd.to_numpy(dst) == pattern(left, n, "float64")).all()
        weft.get(got, src, right)
        assert (wd.to_numpy(got) == pattern(right, n, "float64")).all()
        host = np.zeros(n, dtype="float64")
        weft.get(host, dst, left)           # device -> host
        assert (host == pattern((left - 1) % weft.n_pes(), n, "float64")).all()
    finally:
        for a in (got, dst, src):
            wd.free(a)


def test_size_and_nbi(me, left, right):
    src = wd.array(pattern(me, 64, "int32"))
    dst = wd.zeros(64, dtype="int32")
    try:
        weft.put_nbi(dst, src, right, size=10)
        weft.quiet()
        weft.barrier_all()
        want = np.zeros(64, np.int32)
        want[:10] = pattern(left, 10, "int32")
        assert (wd.to_numpy(dst) == want).all()
        host = np.zeros(64, np.int32)
        weft.get_nbi(host, src, right)
        weft.quiet()
        assert (host == pattern(right, 64, "int32")).all()
    finally:
        wd.free(dst)
        wd.free(src)


def test_views_as_arguments(me, left, right):
    dst = wd.zeros((4, 8), dtype="int16")
    try:
        weft.put(dst[2], pattern(me, 8, "int16"), right)   # a row: contiguous
        weft.barrier_all()
        want = np.zeros((4, 8), np.int16)
        want[2] = pattern(left, 8, "int16")
        assert (wd.to_numpy(dst) == want).all()
    finally:
        wd.free(dst)


def test_foreign_cai_arrays(me, left, right):
    src = wd.array(pattern(me, 300, "int64"))
    dst = wd.zeros(300, dtype="int64")
    try:
        weft.put(CAIArray(dst), CAIArray(src), right)
        weft.barrier_all()
        assert (wd.to_numpy(dst) == pattern(left, 300, "int64")).all()
        host = np.zeros(300, np.int64)
        weft.get(host, CAIArray(src), right)
        assert (host == pattern(right, 300, "int64")).all()
    finally:
        wd.free(dst)
        wd.free(src)


def test_foreign_dlpack_arrays(me, left, right):
    src = wd.array(pattern(me, 50, "float32"))
    dst = wd.zeros(50, dtype="float32")
    try:
        weft.put(DLArray(dst), DLArray(src), right)
        weft.barrier_all()
        assert (wd.to_numpy(dst) == pattern(left, 50, "float32")).all()
    finally:
        wd.free(dst)
        wd.free(src)


def test_peer_view_through_ipc(me, right):
    src = wd.array(pattern(me, 1000, "uint32"))
    dst = wd.zeros(1000, dtype="uint32")
    try:
        peer = wd.ptr(src, right)
        if peer is None:
            pytest.skip("the peer's device heap is not mapped here")
        assert right == me or peer.peer == right
        assert peer.shape == src.shape and peer.dtype == src.dtype
        assert (wd.to_numpy(peer) == pattern(right, 1000, "uint32")).all()
        assert (wd.to_numpy(peer[10:20]) ==
                pattern(right, 1000, "uint32")[10:20]).all()
        # a local (not symmetric) source: the peer's data into my own heap
        weft.put(dst, peer, me)
        assert (wd.to_numpy(dst) == pattern(right, 1000, "uint32")).all()
        if right != me:
            with pytest.raises(ValueError, match="weft.put: argument 'target' "
                                                 ".* is not symmetric"):
                weft.put(peer, dst, right)
    finally:
        wd.free(dst)
        wd.free(src)


def test_atomics_on_device_words(me, npes):
    if not hasattr(weft, "atomic_fetch_add"):
        pytest.skip("weft has no atomics yet")
    ctr = wd.zeros(1, dtype="int64")
    try:
        for pe in range(npes):
            weft.atomic_add(ctr, me + 1, pe)
        weft.barrier_all()
        assert wd.to_numpy(ctr)[0] == npes * (npes + 1) // 2
        weft.barrier_all()          # every PE has read its counter
        old = weft.atomic_fetch_add(ctr, 1, 0)
        assert old >= npes * (npes + 1) // 2
        weft.barrier_all()
        if me == 0:
            assert wd.to_numpy(ctr)[0] == npes * (npes + 1) // 2 + npes
    finally:
        wd.free(ctr)


def test_put_signal_device(me, left, right):
    if not hasattr(weft, "put_signal"):
        pytest.skip("weft has no put_signal yet")
    data = wd.zeros(4096, dtype="float64")
    sig = wd.zeros(1, dtype="uint64")
    try:
        weft.put_signal(data, pattern(me, 4096, "float64"), right, sig, 7,
                        weft.SIGNAL_SET)
        weft.signal_wait_until(sig, weft.CMP_EQ, 7)
        assert (wd.to_numpy(data) == pattern(left, 4096, "float64")).all()
    finally:
        wd.free(sig)
        wd.free(data)


# ---- bad input: an exception naming routine, argument and value ---------

def test_bad_dtype(right):
    dst = wd.zeros(4, dtype="int64")
    try:
        with pytest.raises(TypeError, match="weft.put: argument 'source' has "
                                            "dtype float64, argument 'target' "
                                            "int64"):
            weft.put(dst, np.zeros(4), right)
        with pytest.raises(TypeError, match="weft.get: .*dtype int64.*float32"):
            weft.get(np.zeros(4, np.float32), dst, right)
    finally:
        wd.free(dst)


def test_freed_device_array(right):
    dst = wd.zeros(4, dtype="int64")
    src = wd.zeros(4, dtype="int64")
    wd.free(dst)
    try:
        with pytest.raises(ValueError, match="weft.put: argument 'target' is "
                                             "a device array that was freed"):
            weft.put(dst, src, right)
        with pytest.raises(ValueError, match="weft.get: argument 'source' .*"
                                             "freed"):
            weft.get(src, dst, right)
    finally:
        wd.free(src)


def test_not_contiguous_and_not_symmetric(right):
    dst = wd.zeros((4, 4), dtype="int32")
    try:
        with pytest.raises(ValueError, match="weft.put: argument 'target' is "
                                             "a device array of shape \\(4, 2\\)"
                                             ".* not contiguous"):
            weft.put(dst[:, ::2], np.zeros(8, np.int32), right)
        with pytest.raises(ValueError, match="weft.put: argument 'target' "
                                             "\\(__cuda_array_interface__\\) "
                                             "describes an array that is not "
                                             "contiguous"):
            weft.put(CAIArray(dst, strides=(16, 8), shape=(4, 2)),
                     np.zeros(8, np.int32), right)
        with pytest.raises(ValueError, match="read-only"):
            weft.put(CAIArray(dst, readonly=True), np.zeros(16, np.int32),
                     right)
        with pytest.raises(TypeError, match="weft.put: argument 'target' has "
                                            "typestr '\\|O8'"):
            weft.put(CAIArray(dst, typestr="|O8"), np.zeros(16, np.int32),
                     right)
        with pytest.raises(ValueError, match="'size' = 17 is more than "
                                             "'target' holds"):
            weft.put(dst, np.zeros(17, np.int32), right, size=17)
    finally:
        wd.free(dst)
