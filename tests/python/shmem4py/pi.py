import numpy as np
import weft as shmem

mype = shmem.my_pe()
npes = shmem.n_pes()

n = 100000
h = 1.0 / n
x = h * (np.arange(mype, n, npes) + 0.5)
local = shmem.array(np.sum(4.0 / (1.0 + x * x)) * h)
total = shmem.zeros(1, dtype='d')
shmem.reduce(total, local, op=shmem.OP_SUM)
assert abs(total[0] - np.pi) < 1e-9, total

imax = shmem.array(mype, dtype='i')
rmax = shmem.zeros(1, dtype='i')
shmem.reduce(rmax, imax, 'max')
assert rmax[0] == npes - 1, rmax
for a in (local, total, imax, rmax):
    shmem.free(a)
