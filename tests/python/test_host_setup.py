"""Setup, query and accessibility (docs/python.md): my_pe, n_pes,
pe_accessible, addr_accessible, ptr (a zero-copy NumPy view of a peer's
symmetric array), pcontrol, info_get_version/name, and pe_quiet."""
import numpy as np
import pytest

import weft


def test_query(me, npes):
    assert 0 <= me < npes
    assert weft.initialized()
    assert weft.info_get_version() == (weft.MAJOR_VERSION, weft.MINOR_VERSION)
    assert weft.info_get_name() == weft.VENDOR_STRING
    assert weft.pe_accessible(me) and not weft.pe_accessible(npes)
    weft.pcontrol(1)
    weft.pcontrol()


def test_addr_accessible(me, npes, right):
    a = weft.zeros(3, "int16")
    assert weft.addr_accessible(a, right)
    assert not weft.addr_accessible(np.zeros(3), right)
    weft.barrier_all()
    weft.free(a)


@pytest.mark.parametrize("shape,order", [((5,), "C"), ((2, 3), "C"),
                                         ((3, 4), "F")])
def test_ptr_view(shape, order, me, npes, right, left):
    a = weft.zeros(shape, "float64", order=order)
    a[...] = me
    weft.barrier_all()
    v = weft.ptr(a, right)
    if v is None:  # not on this node: only RMA reaches it
        assert weft.TEAM_SHARED.n_pes() < npes
    else:
        assert v.shape == a.shape and v.dtype == a.dtype
        assert v.strides == a.strides
        assert (v == right).all()
        weft.barrier_all()
        # writes through the view land in the peer's array, no copy
        v.flat[0] = 100 + me
        weft.barrier_all()
        assert a.flat[0] == 100 + left
    weft.barrier_all()
    assert (weft.ptr(a, me) == a).all()
    weft.barrier_all()
    weft.free(a)


def test_ptr_team(me, npes):
    a = weft.full(2, me, dtype="int32")
    shared = weft.TEAM_SHARED
    peer = (shared.my_pe() + 1) % shared.n_pes()
    v = weft.ptr(a, peer, team=shared)
    assert v is not None and (v == shared.translate_pe(peer)).all()
    weft.barrier_all()
    weft.free(a)


def test_pe_quiet(me, npes, right, left):
    a = weft.zeros(2, "int64")
    weft.barrier_all()
    weft.put_nbi(a, np.array([me, me]), right)
    weft.pe_quiet([right])
    weft.pe_quiet(np.array([right, me], "int32"))
    weft.pe_quiet(right)
    weft.barrier_all()
    assert (a == left).all()
    weft.free(a)
