"""Distributed locks (docs/python.md): new_lock, set_lock, test_lock,
clear_lock, del_lock, and the Lock class (acquire, release, `with`,
destroy).  Every PE increments a counter on PE 0 under the lock with a
get and a put, which only mutual exclusion keeps exact."""
import numpy as np

import weft

ROUNDS = 20


def test_lock_functions(me, npes):
    lock = weft.new_lock()
    counter = weft.zeros(1, "int64")
    one = np.zeros(1, "int64")
    weft.barrier_all()
    for _ in range(ROUNDS):
        weft.set_lock(lock)
        weft.get(one, counter, 0)
        one += 1
        weft.put(counter, one, 0)
        weft.quiet()
        weft.clear_lock(lock)
    weft.barrier_all()
    assert weft.g(counter, 0) == ROUNDS * npes
    weft.barrier_all()
    weft.free(counter)
    weft.del_lock(lock)


def test_test_lock(me, npes):
    lock = weft.new_lock()
    weft.barrier_all()
    if me == 0:
        assert weft.test_lock(lock) is False   # taken now
        assert weft.test_lock(lock) is True    # already held
        weft.clear_lock(lock)
    weft.barrier_all()
    weft.del_lock(lock)


def test_lock_class(me, npes):
    lock = weft.Lock()
    counter = weft.zeros(1, "int64")
    one = np.zeros(1, "int64")
    weft.barrier_all()
    for i in range(ROUNDS):
        if i % 2:
            with lock:
                weft.get(one, counter, 0)
                one += 1
                weft.put(counter, one, 0)
                weft.quiet()
        else:
            while not lock.acquire(blocking=False):
                pass
            weft.get(one, counter, 0)
            one += 1
            weft.put(counter, one, 0)
            weft.quiet()
            lock.release()
    weft.barrier_all()
    assert weft.g(counter, 0) == ROUNDS * npes
    assert lock.array.dtype == np.int64
    weft.barrier_all()
    weft.free(counter)
    lock.destroy()
    assert lock.array is None
    lock.destroy()  # a second destroy does nothing
