import numpy as np
import weft as shmem

mype = shmem.my_pe()
npes = shmem.n_pes()
if npes >= 2 and mype < 2:
    peer = 1 - mype
    ivar = shmem.zeros(1, dtype='l')
    for i in range(1, 101):
        if mype == 0:
            shmem.p(ivar, i, peer)
            shmem.wait_until(ivar, shmem.CMP_EQ, i)
        else:
            shmem.wait_until(ivar, '==', i)
            shmem.p(ivar, i, peer)
    shmem.barrier_all()
    shmem.free(ivar)
else:
    ivar = shmem.zeros(1, dtype='l')
    shmem.barrier_all()
    shmem.free(ivar)
