"""Stencil kernel: what the Python OpenSHMEM and MPI versions share
(arguments, decomposition, fields, the NumPy computation, validation and
output), as prk/stencil/stencil_core.c does for the C versions. Only the
halo exchange differs between the versions; both move the same data with
the pack/unpack helpers below.

Grid n x n, i = x (unit stride), j = y; PE id sits at (id mod px, id div
px). IN is a (h + 2R) x (w + 2R) NumPy array, indexed [j, i], with a ghost
frame of R points; OUT is h x w, the owned points only.
"""
import math

import numpy as np

import prk_py

R = 2  # stencil radius, as STENCIL_R in C
LEFT, RIGHT, DOWN, UP = range(4)
NSIDES = 4


def grid_x(npes):
    """Largest divisor of npes that is <= floor(sqrt(npes + 1))."""
    px = int(math.sqrt(npes + 1.0))
    while px * px > npes + 1:
        px -= 1
    while npes % px:
        px -= 1
    return px


class Stencil:
    """One PE's tile and fields."""

    def __init__(self, argv, npes, me):
        if len(argv) != 2:
            raise prk_py.PrkError("usage: stencil <iterations> <n>")
        self.iterations = prk_py.parse_iterations(argv[0])
        n = prk_py.parse_long(argv[1])
        if n is None or n < 1 or n > (1 << 30):
            raise prk_py.PrkError("grid size must be an integer in [1, 2^30]: %s"
                                  % argv[1])
        if n * n < npes:
            raise prk_py.PrkError("grid of %d x %d points is too small for %d PEs"
                                  % (n, n, npes))
        if 2 * R + 1 > n:
            raise prk_py.PrkError("stencil radius %d exceeds grid size %d" % (R, n))
        self.n, self.npes, self.me = n, npes, me
        self.px = grid_x(npes)
        self.py = npes // self.px
        if n // self.px < R or n // self.py < R:
            raise prk_py.PrkError(
                "tiles of %d x %d points are narrower than the stencil radius %d"
                % (n // self.px, n // self.py, R))
        self.ix, self.iy = me % self.px, me // self.px
        self.istart, self.w = prk_py.block(n, self.px, self.ix)
        self.jstart, self.h = prk_py.block(n, self.py, self.iy)
        self.ld = self.w + 2 * R
        self.wmax = prk_py.block_max(n, self.px)
        self.hmax = prk_py.block_max(n, self.py)
        self.nbr = [me - 1 if self.ix > 0 else -1,
                    me + 1 if self.ix < self.px - 1 else -1,
                    me - self.px if self.iy > 0 else -1,
                    me + self.px if self.iy < self.py - 1 else -1]
        self.nnbrs = sum(1 for p in self.nbr if p >= 0)
        self._alloc()

    def _alloc(self):
        w, h = self.w, self.h
        self.inp = np.zeros((h + 2 * R, w + 2 * R))
        self.inflat = self.inp.reshape(-1)
        self.out = np.zeros((h, w))
        jj = np.arange(self.jstart, self.jstart + h, dtype=np.float64)
        ii = np.arange(self.istart, self.istart + w, dtype=np.float64)
        self.inp[R:R + h, R:R + w] = jj[:, None] + ii[None, :]
        self.xsend = [np.zeros((h, R)), np.zeros((h, R))]
        # The points that get a star: R <= x, y <= n-R-1, in local terms.
        ilo = max(self.istart, R) - self.istart
        ihi = min(self.istart + w - 1, self.n - R - 1) - self.istart
        jlo = max(self.jstart, R) - self.jstart
        jhi = min(self.jstart + h - 1, self.n - R - 1) - self.jstart
        self.star_box = (jlo, jhi, ilo, ihi) if ilo <= ihi and jlo <= jhi else None
        if self.star_box:
            self.tmp = np.empty((jhi - jlo + 1, ihi - ilo + 1))

    def print_params(self):
        if self.me != 0:
            return
        print("Number of ranks        = %d" % self.npes)
        print("Grid size              = %d" % self.n)
        print("Radius of stencil      = %d" % R)
        print("Tiles in x/y-direction = %d/%d" % (self.px, self.py))
        print("Type of stencil        = star")
        print("Data type              = double precision")
        print("Number of iterations   = %d" % self.iterations, flush=True)

    # Halo messages, the same data as in C: x halos are the R owned columns
    # next to the side, packed row by row; y halos are one span of IN (the R
    # owned rows next to the side, ghost columns inside the span included).

    def xmsg_max(self):
        return R * self.hmax

    def ymsg_max(self):
        return R * (self.wmax + 2 * R)

    def halo_out(self, side):
        """The halo sent towards side: a contiguous 1-D array."""
        w, h = self.w, self.h
        if side < DOWN:
            i0 = R if side == LEFT else w
            np.copyto(self.xsend[side], self.inp[R:R + h, i0:i0 + R])
            return self.xsend[side].reshape(-1)
        j0 = R if side == DOWN else h
        off = R + j0 * self.ld
        return self.inflat[off:off + (R - 1) * self.ld + w]

    def halo_count(self, side):
        return R * self.h if side < DOWN else (R - 1) * self.ld + self.w

    def unpack(self, side, buf):
        """Writes a received halo (a 1-D array) into the ghost at side."""
        w, h = self.w, self.h
        if side < DOWN:
            i0 = 0 if side == LEFT else R + w
            self.inp[R:R + h, i0:i0 + R] = buf[:R * h].reshape(h, R)
            return
        j0 = 0 if side == DOWN else R + h
        for r in range(R):
            self.inp[j0 + r, R:R + w] = buf[r * self.ld:r * self.ld + w]

    def compute(self):
        """OUT += star(IN) on the interior points, then IN += 1 on every
        owned point (the ghosts are filled)."""
        if self.star_box:
            jlo, jhi, ilo, ihi = self.star_box
            inp, t = self.inp, self.tmp
            j0, j1, i0, i1 = jlo + R, jhi + R + 1, ilo + R, ihi + R + 1
            o = self.out[jlo:jhi + 1, ilo:ihi + 1]
            for k in range(1, R + 1):
                np.subtract(inp[j0:j1, i0 + k:i1 + k], inp[j0:j1, i0 - k:i1 - k], out=t)
                t += inp[j0 + k:j1 + k, i0:i1]
                t -= inp[j0 - k:j1 - k, i0:i1]
                t *= 1.0 / (2.0 * k * R)
                o += t
        self.inp[R:R + self.h, R:R + self.w] += 1.0

    def finish(self, comm, local_elapsed):
        """Validates (collectively), prints on PE 0; returns the exit status."""
        avg = prk_py.avgtime(comm, local_elapsed, self.iterations)
        interior = float(self.n - 2 * R) * float(self.n - 2 * R)
        norm = comm.sum_double(float(np.abs(self.out).sum())) / interior
        reference = 2.0 * (self.iterations + 1)
        if abs(norm - reference) > 1e-8:
            if self.me == 0:
                print("ERROR: L1 norm = %f, Reference L1 norm = %f"
                      % (norm, reference), flush=True)
            comm.barrier()
            return 1
        flops = (8 * R + 3) * interior
        if self.me == 0:
            print("Solution validates")
            print("Rate (MFlops/s): %f  Avg time (s): %f"
                  % (1e-6 * flops / avg, avg), flush=True)
        return 0
