"""Transpose kernel: what the Python OpenSHMEM and MPI versions share
(arguments, decomposition, fields, the NumPy transposes, validation and
output), as prk/transpose/transpose_core.c does for the C versions.

Column-major: PE p owns columns [p*b, (p+1)*b) of A and B, b = order / P.
A local matrix is a NumPy array indexed [c, r] (c: the owned column, r:
the row; rows are the unit stride), so A[c, r] = A(r, p*b + c). B += A^T
reads, for this PE's column c and row r, A(p*b + c, r), held by the owner
of column r. The rows are order + 8 long (the C kernels' padding: with an
order that is a multiple of a large power of 2 the columns would share
cache sets); the arrays are views of their first order rows.

The C kernels transpose in 32 x 32 tiles; NumPy transposes whole b x b
blocks (its own loop order), so the tile argument is checked and printed
as in C but does not change the computation.
"""
import numpy as np

import prk_py

PAD = 8


class Transpose:
    """One PE's columns of A and B."""

    def __init__(self, argv, npes, me):
        if len(argv) not in (2, 3):
            raise prk_py.PrkError("usage: transpose <iterations> <order> [tile]")
        self.iterations = prk_py.parse_iterations(argv[0])
        order = prk_py.parse_long(argv[1])
        if order is None or order < 1 or order > (1 << 30):
            raise prk_py.PrkError("matrix order must be an integer in [1, 2^30]: %s"
                                  % argv[1])
        tile = 32
        if len(argv) == 3:
            tile = prk_py.parse_long(argv[2])
            if tile is None:
                raise prk_py.PrkError("tile size must be an integer: %s" % argv[2])
        self.tile = tile if 0 < tile < order else order
        if order < npes or order % npes:
            raise prk_py.PrkError("matrix order %d must be a multiple of the "
                                  "number of PEs %d" % (order, npes))
        self.order, self.npes, self.me = order, npes, me
        self.b = order // npes
        self.a = None
        self.bmat = None

    def padded_shape(self):
        return (self.b, self.order + PAD)

    def init_fields(self, a_padded):
        """Sets A (a padded array the version allocated, maybe symmetric)
        and a private B."""
        b, order = self.b, self.order
        self.a = a_padded[:, :order]
        cols = np.arange(self.me * b, self.me * b + b, dtype=np.float64)
        self.a[...] = order * cols[:, None] + np.arange(order, dtype=np.float64)[None, :]
        self.bmat = np.zeros(self.padded_shape())[:, :order]

    def cols(self, p):
        """The slice of rows (unit stride) that PE p's columns transpose to."""
        return slice(p * self.b, (p + 1) * self.b)

    def transpose_local(self):
        """The diagonal block: B += A^T, then A += 1 on it."""
        mine = self.cols(self.me)
        blk = self.a[:, mine]
        self.bmat[:, mine] += blk.T
        blk += 1.0

    def transpose_from(self, a_peer, p):
        """B's rows of PE p's columns += the transposed block of a_peer (PE
        p's A, or a view of it) that belongs to this PE, then that block
        += 1 (the owner never touches it)."""
        blk = a_peer[:, self.cols(self.me)]
        self.bmat[:, self.cols(p)] += blk.T
        blk += 1.0

    def pack(self, to, buf):
        """buf (b x b) = the block of A for PE to, transposed; A += 1 on it."""
        blk = self.a[:, self.cols(to)]
        np.copyto(buf, blk.T)
        blk += 1.0

    def add(self, p, buf):
        """B's rows of PE p's columns += buf (a packed, transposed block)."""
        self.bmat[:, self.cols(p)] += buf

    def print_params(self):
        if self.me != 0:
            return
        print("Number of ranks      = %d" % self.npes)
        print("Matrix order         = %d" % self.order)
        if self.tile < self.order:
            print("Tile size            = %d" % self.tile)
        else:
            print("Untiled")
        print("Number of iterations = %d" % self.iterations, flush=True)

    def finish(self, comm, local_elapsed):
        avg = prk_py.avgtime(comm, local_elapsed, self.iterations)
        iters, order = float(self.iterations), float(self.order)
        gc = np.arange(self.me * self.b, (self.me + 1) * self.b, dtype=np.float64)
        r = np.arange(self.order, dtype=np.float64)
        expect = (order * r[None, :] + gc[:, None]) * (iters + 1.0) + \
            iters * (iters + 1.0) / 2.0
        abserr = comm.sum_double(float(np.abs(self.bmat - expect).sum()))
        if abserr >= 1e-8:
            if self.me == 0:
                print("ERROR: Aggregate squared error %f exceeds threshold %e"
                      % (abserr, 1e-8), flush=True)
            comm.barrier()
            return 1
        if self.me == 0:
            print("Solution validates")
            print("Rate (MB/s): %f Avg time (s): %f"
                  % (1e-6 * 16.0 * order * order / avg, avg), flush=True)
        return 0
