"""Synch_p2p kernel: what the Python OpenSHMEM and MPI versions share
(arguments, decomposition, the array, the row update, validation and
output), as prk/p2p/p2p_core.c does for the C versions.

Grid m x n, i fastest. The i range is split into contiguous blocks; every
PE holds all j for its block plus one ghost column at i = start-1: the
NumPy array A is indexed [j, li], li 0 being the ghost column.

The row update A(i,j) = A(i-1,j) + A(i,j-1) - A(i-1,j-1) is a loop whose
every step needs the previous one, the kind of loop NumPy has no call
for: it is compiled with Numba when Numba is installed (PRK_NUMBA=0 in the
environment turns it off) and otherwise computed as a running sum of the
differences A(i,j-1) - A(i-1,j-1) with np.cumsum. The values are
integers held exactly in doubles, so both give the reference values to
the last bit.
"""
import os

import numpy as np

import prk_py


def _numpy_row(a, j, lo, w):
    """Points lo..w of row j from the ghost/left point and row j-1."""
    prev = a[j - 1]
    cur = a[j, lo:w + 1]
    np.subtract(prev[lo:w + 1], prev[lo - 1:w], out=cur)
    np.cumsum(cur, out=cur)
    cur += a[j, lo - 1]


def _compiled_row():
    if os.environ.get("PRK_NUMBA", "1") in ("0", "no", "off"):
        return None, "NumPy (cumsum)"
    try:
        import numba
    except ImportError:
        return None, "NumPy (cumsum; Numba not installed)"

    @numba.njit(cache=False, boundscheck=False)
    def row(a, j, lo, w):
        left = a[j, lo - 1]
        for li in range(lo, w + 1):
            left = left + a[j - 1, li] - a[j - 1, li - 1]
            a[j, li] = left

    return row, "Numba %s" % numba.__version__


class P2P:
    """One PE's block of columns."""

    def __init__(self, argv, npes, me):
        if len(argv) != 3:
            raise prk_py.PrkError("usage: p2p <iterations> <m> <n>")
        self.iterations = prk_py.parse_iterations(argv[0])
        m, n = prk_py.parse_long(argv[1]), prk_py.parse_long(argv[2])
        if m is None or n is None or m < 1 or n < 1 or m > (1 << 30) or n > (1 << 30):
            raise prk_py.PrkError("grid dimensions must be integers in [1, 2^30]: "
                                  "%s %s" % (argv[1], argv[2]))
        if m <= npes:
            raise prk_py.PrkError("first grid dimension %d must exceed the number "
                                  "of PEs %d" % (m, npes))
        self.m, self.n, self.npes, self.me = m, n, npes, me
        self.start, self.w = prk_py.block(m, npes, me)
        self.ld = prk_py.block_max(m, npes) + 1
        self.a = np.zeros((n, self.ld))
        w = self.w
        self.a[0, :w + 1] = np.arange(self.start - 1, self.start + w, dtype=np.float64)
        if self.start == 0:
            self.a[:, 1] = np.arange(n, dtype=np.float64)
        # The first point a row computes: PE 0's i = 0 is a boundary value.
        self.lo = 2 if self.start == 0 else 1
        row, self.row_impl = _compiled_row()
        if row is None:
            row = _numpy_row
        else:
            row(self.a.copy(), 1, self.lo, w)  # compiled here, not in sweep 0
        self.row = row

    def print_params(self):
        if self.me != 0:
            return
        print("Number of ranks                = %d" % self.npes)
        print("Grid sizes                     = %d, %d" % (self.m, self.n))
        print("Number of iterations           = %d" % self.iterations)
        print("Row update                     = %s" % self.row_impl, flush=True)

    def finish(self, comm, local_elapsed):
        avg = prk_py.avgtime(comm, local_elapsed, self.iterations)
        last = self.me == self.npes - 1
        ref = float(self.iterations + 1) * float(self.m + self.n - 2)
        corner = float(self.a[self.n - 1, self.w]) if last else 0.0
        bad = 0
        if last and abs(corner - ref) / ref >= 1e-8:
            print("ERROR: checksum %f does not match verification value %f"
                  % (corner, ref), flush=True)
            bad = 1
        if comm.max_int(bad):
            return 1
        if last:
            print("Solution validates")
            print("Rate (MFlops/s): %f Avg time (s): %f"
                  % (1e-6 * 2.0 * (self.m - 1) * (self.n - 1) / avg, avg),
                  flush=True)
        return 0
