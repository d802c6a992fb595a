"""Symmetric arrays: NumPy arrays whose memory is a symmetric block.

Every allocating routine is collective (it calls shmem_malloc or
shmem_align on every PE, with the same arguments); free is collective too.
"""
import numpy as _np

from . import _core


def _count(shape):
    return int(_np.prod(shape, dtype=_np.intp))


def fromblock(block, shape, dtype, order="C"):
    """A NumPy array over a whole symmetric block (its .base is the block)."""
    dtype = _np.dtype(dtype)
    flat = _np.frombuffer(block, dtype=dtype, count=_count(shape))
    return flat.reshape(shape, order=order)


def alloc(nbytes, align=None, hints=None, clear=False):
    """A symmetric block of nbytes (collective)."""
    return _core.alloc(int(nbytes), align or 0, hints or 0, bool(clear))


def new_array(shape, dtype=float, order="C", align=None, hints=None,
              clear=True):
    """A symmetric array of the given shape and dtype (collective)."""
    dtype = _np.dtype(dtype)
    if dtype.hasobject:
        raise TypeError(f"weft.new_array: argument 'dtype' = {dtype} holds "
                        "Python objects, which cannot be symmetric")
    shape = tuple(shape) if _np.iterable(shape) else (int(shape),)
    if any(int(s) < 0 for s in shape):
        raise ValueError(f"weft.new_array: argument 'shape' = {shape} has a "
                         "negative dimension")
    block = alloc(_count(shape) * dtype.itemsize, align, hints, clear)
    return fromblock(block, shape, dtype, order)


def empty(shape, dtype=float, order="C", align=None, hints=None):
    """A symmetric array, uninitialised (collective)."""
    return new_array(shape, dtype, order, align, hints, clear=False)


def zeros(shape, dtype=float, order="C", align=None, hints=None):
    """A symmetric array of zeros (collective)."""
    return new_array(shape, dtype, order, align, hints, clear=True)


def ones(shape, dtype=float, order="C", align=None, hints=None):
    """A symmetric array of ones (collective)."""
    a = new_array(shape, dtype, order, align, hints, clear=False)
    a[...] = 1
    _core.sync_all()
    return a


def full(shape, fill_value, dtype=None, order="C", align=None, hints=None):
    """A symmetric array filled with fill_value (collective)."""
    if dtype is None:
        dtype = _np.array(fill_value).dtype
    a = new_array(shape, dtype, order, align, hints, clear=False)
    a[...] = fill_value
    _core.sync_all()
    return a


def array(obj, dtype=None, order="K", align=None, hints=None):
    """A symmetric copy of obj (collective: same shape on every PE)."""
    tmp = _np.asarray(obj, dtype=dtype)
    order = "F" if (order in ("F", "K", "A") and tmp.flags.f_contiguous
                    and not tmp.flags.c_contiguous) else "C"
    a = new_array(tmp.shape, tmp.dtype, order, align, hints, clear=False)
    a[...] = tmp
    _core.sync_all()
    return a


def _block_of(a):
    base = a
    while base is not None and not isinstance(base, _core.Block):
        base = getattr(base, "base", None)
        if isinstance(base, memoryview):
            base = base.obj
    return base


def free(a):
    """Frees a symmetric array, host or device (collective)."""
    if isinstance(a, _core._DeviceArray):
        return _core._device_free(a, "weft.free")
    block = _block_of(a)
    if block is None:
        raise ValueError(f"weft.free: argument 'a' = {type(a).__name__} of "
                         f"shape {getattr(a, 'shape', '?')} is not a "
                         "symmetric array")
    _core.free_block(block)


def del_array(a):
    """shmem4py's name for free."""
    free(a)


def _peer_view(mem, like):
    """A NumPy array over mem (a peer's copy of the symmetric array like,
    mapped here; weft.ptr) with like's shape, dtype and strides."""
    like = _np.asarray(like)
    return _np.ndarray(like.shape, like.dtype, buffer=mem,
                       strides=like.strides)
