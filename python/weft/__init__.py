"""Weft's OpenSHMEM 1.6 for Python.

    import weft
    a = weft.zeros(10, dtype="int64")      # symmetric, a NumPy array
    weft.put(a, src, pe=(weft.my_pe() + 1) % weft.n_pes())
    weft.barrier_all()

Names and argument order follow shmem4py, so a shmem4py program ports by
changing its import (`import weft as shmem`); docs/python.md lists where
and why Weft differs.  Importing initialises Weft (set WEFT_INIT=0 in the
environment to call weft.init() or weft.init_thread() yourself), and Weft
is finalised when the interpreter exits.
"""
import atexit as _atexit
import os as _os

from . import _core
from ._core import *  # noqa: F401,F403  (the routines and constants)
from . import device  # noqa: F401  (device arrays; frameworks load lazily)
from .array import (alloc, array, empty, free, full, ones, zeros,  # noqa: F401
                    new_array, del_array, fromblock)


def _finalize_at_exit():
    if _core.initialized():
        _core.finalize()


def _initialize():
    if _os.environ.get("WEFT_INIT", "1") not in ("0", "no", "off", "false"):
        _core.init()
    _atexit.register(_finalize_at_exit)


_initialize()
