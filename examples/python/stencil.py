"""stencil: heat flowing along a rod, split between the PEs, with halo
exchange by put-with-signal; checked against the same computation done by
one process.

    oshrun -n 4 /usr/bin/python3 stencil.py [CELLS [STEPS]]

(with a Python that has NumPy and the weft package: on Debian, Debian's
own /usr/bin/python3; the end of ./configure's output names it)

The rod has CELLS cells (default 4000) whose ends are held at fixed
temperatures. Each step, every cell takes a weighted mean of itself and
its two neighbours (a 3-point Jacobi stencil). Each PE owns a slice of the
rod, plus one halo cell on each side that holds its neighbour's edge cell.
examples/stencil.c is the same program in C.

What it shows:
  - weft.put_signal: one call writes the edge value into the neighbour's
    halo and then sets a signal word there; the signal is written only
    after the data is in place, so a PE that sees it may read the halo,
    without a barrier or weft.quiet;
  - weft.signal_wait_until: wait for a neighbour's signal;
  - two halo slots, used in turn by even and odd steps: a neighbour may be
    one step ahead and must not overwrite a halo value that this PE has not
    read yet. It cannot be two steps ahead: for that it would need this
    PE's edge of the next step, which this PE sends only after it has read
    its halos.
"""
import sys

import numpy as np

import weft

LEFT_END, RIGHT_END = 1.0, 0.0  # fixed temperatures at the ends of the rod
WEIGHT = 0.25  # how much of each neighbour a cell takes per step


def initial(cells):
    """The rod's temperatures at the start."""
    return 0.5 + 0.5 * np.sin(2 * np.pi * np.arange(cells) / cells)


def step(padded):
    """One step of padded[1:-1], whose neighbours beyond both ends are
    padded[0] and padded[-1]."""
    u = padded[1:-1]
    return u + WEIGHT * (padded[:-2] - 2.0 * u + padded[2:])


def serial(cells, steps):
    """The whole rod computed by this process alone, for checking."""
    padded = np.empty(cells + 2)
    padded[0], padded[-1] = LEFT_END, RIGHT_END
    padded[1:-1] = initial(cells)
    for _ in range(steps):
        padded[1:-1] = step(padded)
    return padded[1:-1]


def main():
    cells = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    me, npes = weft.my_pe(), weft.n_pes()
    left, right = me - 1, me + 1  # -1 or npes: the end of the rod
    if cells < npes or steps < 1:
        if me == 0:
            print("usage: stencil.py [CELLS >= PEs [STEPS >= 1]]",
                  file=sys.stderr)
        return 2

    # Cells [first, first + n) of the rod belong to this PE.
    base, extra = divmod(cells, npes)
    n = base + (1 if me < extra else 0)
    first = me * base + min(me, extra)

    # Halos and signals, symmetric: [slot], slot = step % 2. halo_left
    # holds the left neighbour's last cell, halo_right the right
    # neighbour's first; a signal holds the number of the step (from 1)
    # whose value has arrived.
    halo_left = weft.zeros(2)
    halo_right = weft.zeros(2)
    sig_left = weft.zeros(2, dtype=np.uint64)
    sig_right = weft.zeros(2, dtype=np.uint64)

    padded = np.empty(n + 2)  # this PE's cells between two halo cells
    padded[0], padded[-1] = LEFT_END, RIGHT_END
    padded[1:-1] = initial(cells)[first:first + n]
    for s in range(steps):
        slot, arrived = s % 2, s + 1
        # Send my edge cells into my neighbours' halos, each followed by
        # its signal. The source may be reused as soon as the call returns.
        if left >= 0:
            weft.put_signal(halo_right[slot:slot + 1], padded[1:2], left,
                            sig_right[slot:slot + 1], arrived,
                            weft.SIGNAL_SET)
        if right < npes:
            weft.put_signal(halo_left[slot:slot + 1], padded[n:n + 1], right,
                            sig_left[slot:slot + 1], arrived,
                            weft.SIGNAL_SET)
        # Wait for theirs, then compute this step.
        if left >= 0:
            weft.signal_wait_until(sig_left[slot:slot + 1], weft.CMP_EQ,
                                   arrived)
            padded[0] = halo_left[slot]
        if right < npes:
            weft.signal_wait_until(sig_right[slot:slot + 1], weft.CMP_EQ,
                                   arrived)
            padded[-1] = halo_right[slot]
        padded[1:-1] = step(padded)

    # Check: the same steps done by one process give the same numbers,
    # bit for bit (each cell's arithmetic is the same).
    diff = weft.zeros(1)
    diff[0] = np.max(np.abs(padded[1:-1] - serial(cells, steps)[first:first + n]))
    largest = weft.zeros(1)
    weft.reduce(largest, diff, op="max")
    ok = largest[0] == 0.0
    if me == 0:
        pes = "PE" if npes == 1 else "PEs"
        print(f"stencil: {cells} cells, {steps} steps on {npes} {pes}: "
              f"largest difference from the serial result {largest[0]:g}: "
              f"{'ok' if ok else 'FAILED'}")
    for a in (halo_left, halo_right, sig_left, sig_right, diff, largest):
        weft.free(a)
    return 0 if ok else 1


sys.exit(main())
