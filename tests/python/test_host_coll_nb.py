"""Nonblocking collectives on host arrays (docs/nonblocking-collectives.md):
barrier_all_nb, sync_nb, broadcast_nb, alltoall_nb, reduce_nb and the
OP_reduce_nb forms return a weft.Request; several in flight at once,
completed in reverse order by wait() and by polling test(); results that
arrive while Python makes no call; misuse raises before anything is
posted."""
import time

import numpy as np
import pytest

import weft


def test_many_in_flight_reverse_order(me, npes):
    n = 64
    src = weft.array(np.arange(n, dtype="float64") + me)
    dsum = weft.zeros(n, "float64")
    dmax = weft.zeros(n, "int32")
    smax = weft.array((np.arange(n) * (me + 1)).astype("int32"))
    bsrc = weft.array(np.arange(n, dtype="int64") + 100 * me)
    bdst = weft.zeros(n, "int64")
    asrc = weft.array(np.arange(npes * 4, dtype="int16") + 1000 * me)
    adst = weft.zeros(npes * 4, "int16")
    weft.barrier_all()
    reqs = [weft.sum_reduce_nb(dsum, src),
            weft.reduce_nb(dmax, smax, op="max"),
            weft.broadcast_nb(bdst, bsrc, npes - 1),
            weft.alltoall_nb(adst, asrc, size=4),
            weft.sync_nb(),
            weft.barrier_all_nb()]
    assert all(isinstance(r, weft.Request) for r in reqs)
    for r in reversed(reqs):
        r.wait()
        assert r.done and r.test()
    assert (dsum == np.arange(n) * npes + npes * (npes - 1) / 2).all()
    assert (dmax == np.arange(n) * npes).all()
    assert (bdst == np.arange(n) + 100 * (npes - 1)).all()
    for p in range(npes):
        assert (adst[4 * p:4 * p + 4] ==
                np.arange(4 * me, 4 * me + 4) + 1000 * p).all()
    weft.barrier_all()
    for a in (src, dsum, dmax, smax, bsrc, bdst, asrc, adst):
        weft.free(a)


def test_test_polls_and_progress_without_calls(me, npes):
    n = 1 << 14
    src = weft.array(np.full(n, me + 1, dtype="int64"))
    dst = weft.zeros(n, "int64")
    weft.barrier_all()
    r = weft.sum_reduce_nb(dst, src)
    want = npes * (npes + 1) // 2
    # No call into the library: the result arrives (the lane runs it).
    t0 = time.monotonic()
    while time.monotonic() - t0 < 20 and not (dst[-1] == want and
                                              dst[0] == want):
        pass
    assert dst[0] == want and dst[-1] == want
    while not r.test():
        pass
    assert (dst == want).all()
    weft.barrier_all()
    weft.free(dst)
    weft.free(src)


def test_on_a_split_team(me, npes):
    # the even PEs; a blocking sync on the team is ordered after the
    # reduction posted on it, so the result is there before the wait
    team = weft.TEAM_WORLD.split_strided(0, 2)
    src = weft.full(1, me, dtype="int64")
    dst = weft.zeros(1, "int64")
    if team:
        n = team.n_pes()
        r = weft.sum_reduce_nb(dst, src, team=team)
        weft.sync(team)
        assert dst[0] == n * (n - 1)
        r.wait()
        team.destroy()
    weft.barrier_all()
    weft.free(dst)
    weft.free(src)


def test_bad_arguments_raise(me, npes):
    a = weft.zeros(4, "float64")
    b = weft.zeros(4, "int32")
    with pytest.raises(TypeError, match="weft.sum_reduce_nb"):
        weft.sum_reduce_nb(a, b)
    with pytest.raises(ValueError, match="weft.broadcast_nb: argument 'root'"):
        weft.broadcast_nb(a, a, npes + 2)
    with pytest.raises(ValueError, match="argument 'size'"):
        weft.reduce_nb(a, a, size=5)
    weft.barrier_all()
    weft.free(b)
    weft.free(a)
