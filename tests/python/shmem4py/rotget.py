import numpy as np
import weft as shmem

mype = shmem.my_pe()
npes = shmem.n_pes()
nextpe = (mype + 1) % npes

src = shmem.array([mype] * 4, dtype='d')
dst = np.empty(4, dtype='d')

shmem.barrier_all()
shmem.get(dst, src, nextpe)
assert (dst == nextpe).all(), dst
shmem.barrier_all()
shmem.free(src)
