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
import sys as _sys

from . import _core
from ._core import *  # noqa: F401,F403  (the routines and constants)
from . import device  # noqa: F401  (device arrays; frameworks load lazily)
from .array import (alloc, array, empty, free, full, ones, zeros,  # noqa: F401
                    new_array, del_array, fromblock)


# Set when an exception reached the top level: the PE is leaving early, and
# must not make shmem_finalize's collective call, which could pair with a
# collective the other PEs are still in (a barrier_all passed by a PE that
# never reached it).  The PE then exits with status 1 unfinalized, and the
# job ends naming it, as a C program's PE that leaves early does.
_left_on_exception = False


def _note_exception(exc_type, exc, tb, _previous=_sys.excepthook):
    global _left_on_exception
    _left_on_exception = True
    _previous(exc_type, exc, tb)


def _finalize_at_exit():
    if _core.initialized() and not _left_on_exception:
        _core.finalize()


def _initialize():
    if _os.environ.get("WEFT_INIT", "1") not in ("0", "no", "off", "false"):
        _core.init()
    _sys.excepthook = _note_exception
    _atexit.register(_finalize_at_exit)


_initialize()
