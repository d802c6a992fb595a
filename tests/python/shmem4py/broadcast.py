import numpy as np
import weft as shmem

mype = shmem.my_pe()
npes = shmem.n_pes()

source = shmem.zeros(npes, dtype="int32")
dest = shmem.full(npes, -1, dtype="int32")
if mype == 0:
    source[:] = np.arange(npes)

shmem.broadcast(dest, source, 0)
assert (dest == np.arange(npes)).all(), dest

team = shmem.TEAM_WORLD
shmem.broadcast(dest, source, npes - 1, team=team)
expect = np.arange(npes) if npes == 1 else np.zeros(npes)
assert (dest == expect).all(), dest
shmem.free(source)
shmem.free(dest)
