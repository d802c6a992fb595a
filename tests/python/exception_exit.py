"""A PE whose program raises leaves unfinalized (tests/python/exception_exit.sh):
its exit must not make shmem_finalize's barrier, which would let PE 0 pass a
barrier_all that PE 1 never reached."""
import weft

if weft.my_pe() == 1:
    raise RuntimeError("PE 1 fails before the barrier")
weft.barrier_all()
print("PE 0 passed a barrier that PE 1 never reached", flush=True)
