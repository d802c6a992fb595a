import numpy as np
import weft as shmem

mype = shmem.my_pe()
npes = shmem.n_pes()
nextpe = (mype + 1) % npes

src = shmem.array(mype, dtype='i')
dst = shmem.full(1, -1, dtype='i')

shmem.put(dst, src, nextpe)
shmem.barrier_all()

assert dst[0] == (mype - 1) % npes, dst
shmem.free(src)
shmem.free(dst)
