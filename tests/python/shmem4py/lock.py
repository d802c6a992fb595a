import weft as shmem

mype = shmem.my_pe()
npes = shmem.n_pes()

count = shmem.zeros(1, dtype='i')
lock = shmem.new_lock()
for _ in range(10):
    shmem.set_lock(lock)
    val = shmem.g(count, 0)
    shmem.p(count, val + 1, 0)
    shmem.quiet()
    shmem.clear_lock(lock)
shmem.barrier_all()
if mype == 0:
    assert count[0] == 10 * npes, count

mylock = shmem.Lock()
with mylock:
    shmem.atomic_add(count, 1, 0)
shmem.barrier_all()
if mype == 0:
    assert count[0] == 11 * npes, count
shmem.barrier_all()
mylock.destroy()
shmem.del_lock(lock)
shmem.free(count)
