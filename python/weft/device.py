"""GPU arrays: symmetric arrays in Weft's device heap, and streams.

    import weft, weft.device as wd
    x = wd.zeros(1024, dtype="float64")      # collective, like weft.zeros
    weft.put(x, y, pe=1)                     # y: NumPy, CuPy, torch, ... array
    c = wd.as_cupy(x)                        # zero-copy (cuda/hip back ends)
    with weft.Stream() as s:
        weft.put(x, y, pe=1, stream=s)       # shmemx_putmem_on_stream
    host = wd.to_numpy(x)                    # a copy through the library

A DeviceArray is device memory: it has no buffer protocol and NumPy cannot
read it (on the mock back end a host load faults).  Data moves through the
library (to_numpy, copy_from_host, every RMA and collective routine) or
through a GPU framework that takes it zero-copy by __cuda_array_interface__
(cuda and hip back ends) or DLPack (every back end).  The frameworks are
imported only by their adapter (as_cupy, as_torch, as_numba, as_jax).
Which back end serves the heap is set by SHMEM_DEVICE_BACKEND (docs/gpu.md);
docs/python-gpu.md is the user's guide.
"""
import operator as _operator

import numpy as _np

from . import _core
from ._core import (Stream, host_func_on_stream, memcpy_on_stream,  # noqa: F401
                    stream_create, stream_destroy, stream_synchronize)

__all__ = ["DeviceArray", "Stream", "available", "info", "empty", "zeros",
           "ones", "full", "array", "from_numpy", "to_numpy", "copy_to_host",
           "copy_from_host", "free", "ptr", "interface", "as_cupy",
           "as_torch", "as_numba", "as_jax", "stream_create",
           "stream_destroy", "stream_synchronize", "memcpy_on_stream",
           "host_func_on_stream"]


class DeviceArray(_core._DeviceArray):
    """An array in device memory: shape, strides and dtype over a device
    block (its .block), in this PE's heap or, for views made by ptr(),
    in the IPC mapping of a peer's heap (.peer).

    Routines take it wherever they take an array; basic indexing and
    reshape give views; to_numpy/get() copy it to the host."""

    __slots__ = ()

    @property
    def dtype(self):
        return _np.dtype(self.typestr)

    @property
    def T(self):
        return self.transpose()

    def __repr__(self):
        if self.freed:
            return "<weft.device.DeviceArray (freed)>"
        where = "" if self.peer is None else f", peer={self.peer}"
        return (f"<weft.device.DeviceArray shape={self.shape} "
                f"dtype={self.dtype}{where} at 0x{self.ptr:x}>")

    def __len__(self):
        if not self.ndim:
            raise TypeError("len() of a 0-d device array")
        return self.shape[0]

    def __array__(self, *args, **kwargs):
        raise TypeError("weft.device.DeviceArray is device memory: copy it "
                        "with weft.device.to_numpy(a) (or a.get())")

    def _view(self, offset, shape, strides, typestr=None):
        return DeviceArray(self.block, offset, tuple(shape), tuple(strides),
                           typestr or self.typestr, self.peer)

    def __getitem__(self, key):
        """Basic indexing (ints, slices, None, ...): a view, never a copy."""
        key = key if isinstance(key, tuple) else (key,)
        for k in key:
            if not (k is None or k is Ellipsis or isinstance(k, slice)):
                try:
                    _operator.index(k)
                except TypeError:
                    raise TypeError(
                        f"weft.device.DeviceArray: index {k!r}: only ints, "
                        "slices, None and ... give views of device memory"
                    ) from None
        if Ellipsis not in key:
            key = key + (Ellipsis,)   # a 0-d view, never a scalar read
        layout = _layout(self)
        v = layout[key]
        delta = (v.__array_interface__["data"][0]
                 - layout.__array_interface__["data"][0])
        return self._view(self.offset + delta, v.shape, v.strides)

    def reshape(self, *shape, order="C"):
        """A view of another shape (the array must be contiguous in order)."""
        if len(shape) == 1 and _np.iterable(shape[0]):
            shape = tuple(shape[0])
        shape = _fill_shape(tuple(int(s) for s in shape), self.size)
        if order not in ("C", "F"):
            raise ValueError(f"reshape: order {order!r} is not 'C' or 'F'")
        if not (self.c_contiguous if order == "C" else self.f_contiguous):
            raise ValueError(f"reshape: the device array is not "
                             f"{order}-contiguous; no view has that shape")
        return self._view(self.offset, shape,
                          _contig_strides(shape, self.itemsize, order))

    def ravel(self):
        return self.reshape(-1)

    def transpose(self, *axes):
        if len(axes) == 1 and _np.iterable(axes[0]):
            axes = tuple(axes[0])
        axes = axes or tuple(reversed(range(self.ndim)))
        if sorted(axes) != list(range(self.ndim)):
            raise ValueError(f"transpose: axes {axes} are not a permutation "
                             f"of 0..{self.ndim - 1}")
        return self._view(self.offset, [self.shape[a] for a in axes],
                          [self.strides[a] for a in axes])

    def get(self):
        """A NumPy copy (as CuPy's get)."""
        return to_numpy(self)

    def set(self, host):
        """Copies host data in (as CuPy's set)."""
        copy_from_host(self, host)


def _layout(a):
    """A NumPy array with a's shape and strides over no memory anyone
    reads: NumPy's indexing computes the view, then only its address,
    shape and strides are used."""
    return _np.lib.stride_tricks.as_strided(
        _np.zeros(1, dtype=a.dtype), shape=a.shape, strides=a.strides)


def _fill_shape(shape, size):
    if shape.count(-1) > 1:
        raise ValueError(f"reshape: shape {shape} has more than one -1")
    if -1 in shape:
        rest = int(_np.prod([s for s in shape if s != -1], dtype=_np.intp))
        if rest == 0 or size % rest:
            raise ValueError(f"reshape: cannot make {size} elements into "
                             f"shape {shape}")
        shape = tuple(size // rest if s == -1 else s for s in shape)
    if any(s < 0 for s in shape) or \
            int(_np.prod(shape, dtype=_np.intp)) != size:
        raise ValueError(f"reshape: cannot make {size} elements into shape "
                         f"{shape}")
    return shape


def _contig_strides(shape, itemsize, order):
    strides = [0] * len(shape)
    step = itemsize
    dims = range(len(shape)) if order == "F" else reversed(range(len(shape)))
    for d in dims:
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def _shape_of(shape, routine):
    shape = tuple(int(s) for s in shape) if _np.iterable(shape) \
        else (int(shape),)
    if any(s < 0 for s in shape):
        raise ValueError(f"{routine}: argument 'shape' = {shape} has a "
                         "negative dimension")
    return shape


def _dtype_of(dtype, routine):
    dtype = _np.dtype(dtype)
    if dtype.hasobject:
        raise TypeError(f"{routine}: argument 'dtype' = {dtype} holds Python "
                        "objects, which cannot live in device memory")
    if dtype.byteorder == ">":
        raise TypeError(f"{routine}: argument 'dtype' = {dtype} is not in "
                        "native byte order")
    return dtype


# ---- the device heap ------------------------------------------------------

def info():
    """{'backend': 'cuda'|'hip'|'mock', 'device': ordinal,
    'dlpack_device': (type, id)} of this PE's device heap, or None."""
    got = _core._device_info()
    if got is None:
        return None
    name, device, dltype = got
    return {"backend": name, "device": device,
            "dlpack_device": (dltype, device)}


def available():
    """Whether this PE has a device heap (SHMEM_DEVICE_BACKEND)."""
    return _core.initialized() and _core._device_info() is not None


def _new(shape, dtype, order, align, clear, routine):
    dtype = _dtype_of(dtype, routine)
    shape = _shape_of(shape, routine)
    if order not in ("C", "F"):
        raise ValueError(f"{routine}: argument 'order' = {order!r} is not "
                         "'C' or 'F'")
    count = int(_np.prod(shape, dtype=_np.intp))
    block = _core._device_alloc(count * dtype.itemsize, int(align or 0),
                                bool(clear), routine)
    return DeviceArray(block, 0, shape,
                       _contig_strides(shape, dtype.itemsize, order),
                       dtype.str)


def empty(shape, dtype=float, order="C", align=None):
    """A symmetric device array (collective, as shmemx_malloc_device).  Its
    contents are zeros too: Weft clears freed device memory."""
    return _new(shape, dtype, order, align, False, "weft.device.empty")


def zeros(shape, dtype=float, order="C", align=None):
    """A symmetric device array of zeros (collective)."""
    return _new(shape, dtype, order, align, True, "weft.device.zeros")


def full(shape, fill_value, dtype=None, order="C", align=None):
    """A symmetric device array filled with fill_value (collective)."""
    if dtype is None:
        dtype = _np.array(fill_value).dtype
    a = _new(shape, dtype, order, align, False, "weft.device.full")
    host = _np.full(a.shape, fill_value, dtype=a.dtype, order=order)
    _core._device_copy(a, host, "weft.device.full")
    _core.sync_all()
    return a


def ones(shape, dtype=float, order="C", align=None):
    """A symmetric device array of ones (collective)."""
    return full(shape, 1, dtype, order, align)


def array(obj, dtype=None, order="K", align=None):
    """A symmetric device copy of host data (collective: the same shape and
    dtype on every PE)."""
    host = _np.asarray(obj, dtype=dtype)
    order = "F" if (order in ("F", "K", "A") and host.flags.f_contiguous
                    and not host.flags.c_contiguous) else "C"
    a = _new(host.shape, host.dtype, order, align, False, "weft.device.array")
    _core._device_copy(a, _np.asarray(host, order=order), "weft.device.array")
    _core.sync_all()
    return a


def from_numpy(host, align=None):
    """A symmetric device copy of a NumPy array (collective)."""
    return array(host, align=align)


def free(a):
    """Frees a device array's block (collective, as shmem_free); weft.free
    does the same."""
    _core._device_free(a, "weft.device.free")


def interface(a):
    """a's __cuda_array_interface__ dictionary (version 3), on every back
    end (the attribute itself exists on cuda and hip only)."""
    return _core._device_interface(a)


def ptr(a, pe):
    """A view of PE pe's instance of the symmetric device array a, through
    the IPC mapping of its device heap (shmem_ptr on a device address), or
    None where pe's heap is not mapped here.  The view's memory is device
    memory of this PE's device: frameworks and local buffers of routines
    take it; it is not symmetric."""
    if not isinstance(a, _core._DeviceArray):
        raise TypeError(f"weft.device.ptr: argument 'a' is a "
                        f"{type(a).__name__}, not a device array")
    pe = _operator.index(pe)
    if not _core._device_mapped(a, pe):
        return None
    if pe == _core.my_pe() and a.peer is None:
        return a._view(a.offset, a.shape, a.strides)
    return DeviceArray(a.block, a.offset, a.shape, a.strides, a.typestr, pe)


# ---- copies through the library ------------------------------------------

def _span(a):
    """(first byte offset, byte count) of the range a's elements cover."""
    lo = hi = 0
    if a.size == 0:
        return a.offset, 0
    for n, s in zip(a.shape, a.strides):
        if s < 0:
            lo += (n - 1) * s
        else:
            hi += (n - 1) * s
    return a.offset + lo, hi - lo + a.itemsize


def _span_view(a):
    start, length = _span(a)
    return start, DeviceArray(a.block, start, (length,), None, "|u1", a.peer)


def copy_to_host(a, out=None):
    """Copies the device array a into a NumPy array (out, or a new one of
    a's shape and dtype).  Blocking; work enqueued on streams that writes a
    must be synchronized first."""
    if not isinstance(a, _core._DeviceArray):
        raise TypeError(f"weft.device.copy_to_host: argument 'a' is a "
                        f"{type(a).__name__}, not a device array")
    if out is None:
        out = _np.empty(a.shape, dtype=a.dtype,
                        order="F" if a.f_contiguous and not a.c_contiguous
                        else "C")
    elif out.shape != a.shape or out.dtype != a.dtype:
        raise ValueError(f"weft.device.copy_to_host: argument 'out' has "
                         f"shape {out.shape} and dtype {out.dtype}, the "
                         f"device array {a.shape} and {a.dtype}")
    routine = "weft.device.copy_to_host"
    if (a.c_contiguous and out.flags.c_contiguous) or \
            (a.f_contiguous and out.flags.f_contiguous):
        _core._device_copy(out, a, routine)
        return out
    start, span = _span_view(a)
    raw = _np.empty(span.size, dtype=_np.uint8)
    _core._device_copy(raw, span, routine)
    out[...] = _np.ndarray(a.shape, a.dtype, buffer=raw,
                           offset=a.offset - start, strides=a.strides)
    return out


def to_numpy(a):
    """A NumPy copy of the device array a (copy_to_host)."""
    return copy_to_host(a)


def copy_from_host(a, host):
    """Copies host data (anything NumPy reads, broadcast to a's shape) into
    the device array a.  Blocking.  Into a view that is not contiguous it
    reads and writes back the whole range the view spans."""
    routine = "weft.device.copy_from_host"
    if not isinstance(a, _core._DeviceArray):
        raise TypeError(f"{routine}: argument 'a' is a {type(a).__name__}, "
                        "not a device array")
    src = _np.broadcast_to(_np.asarray(host, dtype=a.dtype), a.shape)
    if a.c_contiguous or a.f_contiguous:
        order = "C" if a.c_contiguous else "F"
        _core._device_copy(a, _np.asarray(src, order=order).copy(order),
                           routine)
        return
    start, span = _span_view(a)
    raw = _np.empty(span.size, dtype=_np.uint8)
    _core._device_copy(raw, span, routine)
    _np.ndarray(a.shape, a.dtype, buffer=raw, offset=a.offset - start,
                strides=a.strides)[...] = src
    _core._device_copy(span, raw, routine)


# ---- zero-copy adapters (imported only when called) -----------------------

def _need(a, routine, backends, framework):
    if not isinstance(a, _core._DeviceArray):
        raise TypeError(f"{routine}: argument 'a' is a {type(a).__name__}, "
                        "not a device array")
    if a.freed:
        raise ValueError(f"{routine}: argument 'a' was freed (weft.free)")
    got = info()
    name = got["backend"] if got else "none"
    if name not in backends:
        raise TypeError(f"{routine}: the device back end is {name}; "
                        f"{framework} takes device memory of "
                        f"{' or '.join(backends)} only")


def as_cupy(a):
    """a as a cupy.ndarray on the same memory (__cuda_array_interface__)."""
    _need(a, "weft.device.as_cupy", ("cuda", "hip"), "CuPy")
    import cupy
    return cupy.asarray(a)


def as_torch(a):
    """a as a torch.Tensor on the same memory (DLPack)."""
    _need(a, "weft.device.as_torch", ("cuda", "hip"), "PyTorch")
    import torch
    return torch.from_dlpack(a)


def as_numba(a):
    """a as a Numba device array on the same memory (CUDA array interface)."""
    _need(a, "weft.device.as_numba", ("cuda",), "Numba")
    from numba import cuda
    return cuda.as_cuda_array(a)


def as_jax(a):
    """a as a jax.Array on the same memory (DLPack)."""
    _need(a, "weft.device.as_jax", ("cuda", "hip"), "JAX")
    import jax.dlpack
    try:
        return jax.dlpack.from_dlpack(a)
    except TypeError:   # JAX before 0.4.14 takes the capsule only
        return jax.dlpack.from_dlpack(a.__dlpack__())
