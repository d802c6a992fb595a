import numpy as np
import weft as shmem

mype = shmem.my_pe()
npes = shmem.n_pes()

source = shmem.full(2, mype, dtype='l')
dest = shmem.full(2 * npes, -1, dtype='l')
shmem.fcollect(dest, source)
assert (dest == np.repeat(np.arange(npes), 2)).all(), dest

# collect: each PE gives mype + 1 elements
counts = np.arange(1, npes + 1)
source2 = shmem.full(npes, mype, dtype='l')
dest2 = shmem.full(int(counts.sum()), -1, dtype='l')
shmem.collect(dest2, source2, mype + 1)
assert (dest2 == np.repeat(np.arange(npes), counts)).all(), dest2
for a in (source, dest, source2, dest2):
    shmem.free(a)
