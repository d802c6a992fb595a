"""ring: every PE puts a message into the next PE's memory, and checks the
one that its previous PE put into its own.

    oshrun -n 4 /usr/bin/python3 ring.py

(with a Python that has NumPy and the weft package: on Debian, Debian's
own /usr/bin/python3; the end of ./configure's output names it)

What it shows:
  - symmetric arrays: weft.zeros is a collective call that gives every PE
    a NumPy array at the same place in its symmetric heap, so a PE can
    name another PE's array by its own;
  - a one-sided put: the next PE does not take part in it;
  - weft.barrier_all: completes every PE's puts and waits for every PE, so
    each inbox is full when its owner reads it;
  - a reduction: every PE learns how many PEs found a wrong value.
"""
import sys

import numpy as np

import weft

COUNT = 1000  # int64 values in one message

me, npes = weft.my_pe(), weft.n_pes()
nxt, prev = (me + 1) % npes, (me - 1) % npes

inbox = weft.zeros(COUNT, dtype=np.int64)    # symmetric
outbox = 1000000 * me + np.arange(COUNT, dtype=np.int64)  # any array

# The target (inbox) must be symmetric; the source may be any array. The
# put returns once outbox may be reused.
weft.put(inbox, outbox, nxt)

weft.barrier_all()  # every put has arrived

errors = weft.zeros(1, dtype=np.int32)
errors[0] = np.count_nonzero(inbox != 1000000 * prev + np.arange(COUNT))
print(f"PE {me} got {COUNT} longs from PE {prev}: "
      f"{'WRONG' if errors[0] else 'ok'}")

# Every PE's error count, summed on every PE.
total = weft.zeros(1, dtype=np.int32)
weft.reduce(total, errors, op="sum")
if me == 0:
    print(f"ring of {npes} PEs: "
          f"{'FAILED' if total[0] else 'every message arrived intact'}")
failed = bool(total[0])

for a in (inbox, errors, total):
    weft.free(a)  # collective, like weft.zeros
sys.exit(1 if failed else 0)
