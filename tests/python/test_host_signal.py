"""Put-with-signal and signals on host arrays (docs/python.md):
put_signal and put_signal_nbi with SIGNAL_SET and SIGNAL_ADD,
signal_fetch, signal_add, signal_set, signal_wait_until, new_signal and
del_signal."""
import numpy as np
import pytest

import weft


def test_new_signal():
    s = weft.new_signal()
    assert s.dtype == np.uint64 and s.shape == (1,) and s[0] == 0
    assert weft.signal_fetch(s) == 0
    weft.barrier_all()
    weft.del_signal(s)


@pytest.mark.parametrize("nbi", [False, True])
def test_put_signal_set(nbi, me, right, left):
    s = weft.new_signal()
    a = weft.zeros(100, "float64")
    weft.barrier_all()
    put = weft.put_signal_nbi if nbi else weft.put_signal
    put(a, np.full(100, me + 0.5), right, s, me + 1, weft.SIGNAL_SET)
    if nbi:
        weft.quiet()
    assert weft.signal_wait_until(s, weft.CMP_EQ, left + 1) == left + 1
    assert (a == left + 0.5).all()
    weft.barrier_all()
    weft.free(a)
    weft.del_signal(s)


def test_put_signal_add_from_every_pe(me, npes):
    # every PE puts its slot of PE 0's array and adds 1 to PE 0's signal
    s = weft.new_signal()
    a = weft.zeros(npes * 4, "int32")
    weft.barrier_all()
    weft.put_signal(a[4 * me:4 * me + 4], np.full(4, me, "int32"), 0, s, 1,
                    "add")
    if me == 0:
        assert weft.signal_wait_until(s, ">=", npes) == npes
        assert (a == np.repeat(np.arange(npes), 4)).all()
    weft.barrier_all()
    weft.free(a)
    weft.del_signal(s)


def test_put_signal_size(me, right, left):
    s = weft.new_signal()
    a = weft.zeros(10, "int64")
    weft.barrier_all()
    weft.put_signal(a, np.arange(10) + 1, right, s, 7, weft.SIGNAL_SET,
                    size=3)
    weft.signal_wait_until(s, "==", 7)
    assert (a[:3] == [1, 2, 3]).all() and (a[3:] == 0).all()
    weft.barrier_all()
    weft.free(a)
    weft.del_signal(s)


def test_signal_add_set_fetch(me, npes, right, left):
    s = weft.new_signal()
    weft.barrier_all()
    weft.signal_add(s, me + 1, 0)
    weft.barrier_all()
    if me == 0:
        assert weft.signal_fetch(s) == npes * (npes + 1) // 2
    weft.barrier_all()
    weft.signal_set(s, 1000 + me, right)
    assert weft.signal_wait_until(s, "ge", 1000) == 1000 + left
    # (the set above and the add below go on different contexts: nothing
    # orders them but the barrier)
    weft.barrier_all()
    with weft.Ctx.create() as ctx:
        weft.signal_add(s, 1, right, ctx=ctx)
        ctx.quiet()
    weft.barrier_all()
    assert weft.signal_fetch(s) == 1001 + left
    weft.barrier_all()
    weft.del_signal(s)


@pytest.mark.pes(2)
def test_ping_pong(me):
    # the benchmark's pattern: PE 0 and 1 exchange a word, 50 round trips
    s = weft.new_signal()
    buf = weft.zeros(1, "int64")
    one = np.zeros(1, "int64")
    weft.barrier_all()
    if me < 2:
        peer = 1 - me
        for i in range(1, 51):
            if me == 0:
                one[0] = i
                weft.put_signal(buf, one, peer, s, i, weft.SIGNAL_SET)
                weft.signal_wait_until(s, weft.CMP_EQ, i)
                assert buf[0] == -i
            else:
                weft.signal_wait_until(s, weft.CMP_EQ, i)
                assert buf[0] == i
                one[0] = -i
                weft.put_signal(buf, one, peer, s, i, weft.SIGNAL_SET)
    weft.barrier_all()
    weft.free(buf)
    weft.del_signal(s)
