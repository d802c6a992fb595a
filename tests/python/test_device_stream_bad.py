"""Host memory given to a routine with stream= (docs/python-gpu.md): the
stream-ordered C routines take device memory only and end the job on host
memory, so the Python layer refuses it first, naming the routine, the
argument and the value (wpy_stream_need_device).  Run on the mock device;
skipped without a device heap."""
import numpy as np
import pytest

import weft
import weft.device as wd

# (skipped, not left out: a file of no tests would fail its case)
pytestmark = pytest.mark.skipif(not wd.available(),
                                reason="no device heap (SHMEM_DEVICE_BACKEND)")


@pytest.fixture
def arrays():
    d = wd.zeros(16, dtype="int64")
    h = weft.zeros(16, dtype="int64")        # symmetric, host
    s = weft.Stream()
    yield d, h, s
    s.destroy()
    weft.free(h)
    wd.free(d)


def test_rma_refuses_host_memory(arrays, right):
    d, h, s = arrays
    with pytest.raises(ValueError, match="weft.put: argument 'target' = "
                                         "<numpy.ndarray object> is not in the "
                                         "device heap"):
        weft.put(h, d, right, stream=s)
    with pytest.raises(ValueError, match="weft.put: argument 'source' = "
                                         "<numpy.ndarray object> is host memory"):
        weft.put(d, np.zeros(16, np.int64), right, stream=s)
    with pytest.raises(ValueError, match="weft.get: argument 'target' = "
                                         "<numpy.ndarray object> is host memory"):
        weft.get(np.zeros(16, np.int64), d, right, stream=s)
    with pytest.raises(ValueError, match="weft.get: argument 'source' = "
                                         "<numpy.ndarray object> is not in the "
                                         "device heap"):
        weft.get(d, h, right, stream=s)


def test_signals_refuse_host_memory(arrays, right):
    d, h, s = arrays
    sig = weft.zeros(1, dtype="uint64")
    try:
        with pytest.raises(ValueError, match="weft.put_signal: argument "
                                             "'sig_addr' = <numpy.ndarray object> "
                                             "is not in the device heap"):
            weft.put_signal(d, d, right, sig, 1, weft.SIGNAL_SET, stream=s)
        with pytest.raises(ValueError, match="weft.signal_wait_until: "
                                             "argument '.*' = <numpy.ndarray "
                                             "object> is not in the device "
                                             "heap"):
            weft.signal_wait_until(sig, weft.CMP_EQ, 1, stream=s)
    finally:
        weft.free(sig)


def test_collectives_refuse_host_memory(arrays):
    d, h, s = arrays
    with pytest.raises(ValueError, match="weft.broadcast: argument 'target' "
                                         "= <numpy.ndarray object> is not in the "
                                         "device heap"):
        weft.broadcast(h, d, 0, stream=s)
    with pytest.raises(ValueError, match="weft.sum_reduce: argument 'source' "
                                         "= <numpy.ndarray object> is not in the "
                                         "device heap"):
        weft.sum_reduce(d, h, stream=s)
    with pytest.raises(ValueError, match="weft.fcollect: argument 'target' "
                                         "= <numpy.ndarray object> is not in the "
                                         "device heap"):
        weft.fcollect(h, d[:16 // weft.n_pes()], stream=s)
