import weft as shmem

mype = shmem.my_pe()
npes = shmem.n_pes()

race_winner = shmem.array(-1, dtype='i')
oldval = shmem.atomic_compare_swap(race_winner, -1, mype, 0)
won = oldval == -1
shmem.barrier_all()
winner = shmem.atomic_fetch(race_winner, 0)
assert 0 <= winner < npes
assert won == (winner == mype)

counter = shmem.zeros(1, dtype='l')
shmem.atomic_fetch_add(counter, mype + 1, 0)
shmem.atomic_inc(counter, 0)
shmem.barrier_all()
if mype == 0:
    assert counter[0] == npes * (npes + 1) // 2 + npes, counter
shmem.barrier_all()
shmem.free(race_winner)
shmem.free(counter)
