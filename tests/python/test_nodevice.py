"""What a program meets without a device heap (SHMEM_DEVICE_BACKEND unset
or none; docs/python-gpu.md): device allocation, streams and foreign
device arrays raise exceptions that say so, and nothing reaches the C
routines that would end the job.  Skipped where a device heap exists."""
import numpy as np
import pytest

import weft
import weft.device as wd

# (skipped, not left out: a file of no tests would fail its case)
pytestmark = pytest.mark.skipif(wd.available(),
                                reason="this PE has a device heap")


class CAIArray:
    """A foreign device array (only __cuda_array_interface__)."""
    __cuda_array_interface__ = {"shape": (4,), "typestr": "<i8",
                                "data": (1 << 40, False), "version": 3,
                                "strides": None}


def test_no_device_heap():
    assert wd.info() is None and not wd.available()
    with pytest.raises(weft.Error, match="weft.device.zeros: this PE has no "
                                         "device heap"):
        wd.zeros(4)
    with pytest.raises(weft.Error, match="weft.device.array: this PE has no "
                                         "device heap"):
        wd.array([1, 2])


def test_no_streams(right):
    a = weft.zeros(4, dtype="int64")
    try:
        with pytest.raises(weft.Error, match="weft.Stream: this PE has no "
                                             "device back end"):
            weft.Stream()
        with pytest.raises(ValueError, match="weft.put: argument 'stream' = "
                                             "1 cannot be used: this PE has "
                                             "no device back end"):
            weft.put(a, a, right, stream=1)
        with pytest.raises(weft.Error, match="weft.stream_synchronize: this "
                                             "PE has no device back end"):
            weft.stream_synchronize()
    finally:
        weft.free(a)


def test_foreign_device_array_refused(right):
    a = weft.zeros(4, dtype="int64")
    try:
        with pytest.raises(ValueError, match="weft.put: argument 'source' is "
                                             "device memory, and this PE has "
                                             "no device back end"):
            weft.put(a, CAIArray(), right)
        # host arrays are unaffected
        weft.put(a, np.arange(4), right)
    finally:
        weft.free(a)
