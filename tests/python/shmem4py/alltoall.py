import numpy as np
import weft as shmem

mype = shmem.my_pe()
npes = shmem.n_pes()

source = shmem.array(np.arange(npes, dtype='i') + 100 * mype)
dest = shmem.full(npes, -1, dtype='i')
shmem.alltoall(dest, source)
assert (dest == np.arange(npes) * 100 + mype).all(), dest

# strided: every other element
source_s = shmem.array(np.repeat(np.arange(npes, dtype='i') + 100 * mype, 2))
dest_s = shmem.full(2 * npes, -1, dtype='i')
shmem.alltoalls(dest_s, source_s, 2, 2)
assert (dest_s[::2] == np.arange(npes) * 100 + mype).all(), dest_s
assert (dest_s[1::2] == -1).all(), dest_s
for a in (source, dest, source_s, dest_s):
    shmem.free(a)
