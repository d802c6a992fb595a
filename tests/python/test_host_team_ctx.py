"""Teams and contexts (docs/python.md): TEAM_WORLD and TEAM_SHARED,
split_strided (with a configuration), split_2d, translate_pe, get_config,
create_ctx, destroy, contexts in a `with` block and on a team, and their
comparisons."""
import numpy as np
import pytest

import weft


def test_predefined(me, npes):
    w = weft.TEAM_WORLD
    assert w.my_pe() == me and w.n_pes() == npes
    assert bool(w) and not bool(weft.TEAM_INVALID)
    s = weft.TEAM_SHARED
    assert 1 <= s.n_pes() <= npes
    assert s.translate_pe() == me
    assert w == weft.TEAM_WORLD and w != s
    assert len({w, weft.TEAM_WORLD, s}) == 2
    w.destroy()  # predefined: left alone
    assert w.n_pes() == npes


@pytest.mark.pes(2)
def test_split_strided(me, npes):
    odd = weft.TEAM_WORLD.split_strided(1, 2, config={"num_contexts": 2})
    if me % 2:
        assert odd and odd.n_pes() == npes // 2 and odd.my_pe() == me // 2
        assert odd.get_config() == {"num_contexts": 2}
        assert odd.translate_pe(0) == 1
        assert weft.TEAM_WORLD.translate_pe(me, odd) == me // 2
    else:
        assert not odd
        assert weft.TEAM_WORLD.translate_pe(me, odd if odd else
                                            weft.TEAM_WORLD) == me
    with weft.TEAM_WORLD.split_strided(start=npes - 1, stride=-1,
                                       num_contexts=1) as rev:
        assert rev.n_pes() == npes and rev.my_pe() == npes - 1 - me
        assert rev.translate_pe(0) == npes - 1
        assert not rev.destroy()  # first destroy, then __exit__'s: no-op
    odd.destroy()


def test_split_size(me, npes):
    t = weft.TEAM_WORLD.split_strided(0, 1, 1)
    assert bool(t) == (me == 0)
    t.destroy()
    assert not t
    with pytest.raises(ValueError, match="weft.Team.n_pes: argument 'team'"
                       " = .* (was destroyed|is TEAM_INVALID)"):
        t.n_pes()


@pytest.mark.pes(2)
def test_split_2d(me, npes):
    x, y = weft.TEAM_WORLD.split_2d(2)
    assert x.n_pes() == min(2, npes - (me // 2) * 2) and x.my_pe() == me % 2
    assert y.my_pe() == me // 2 and y.n_pes() == (npes + 1 - me % 2) // 2
    assert x.translate_pe(x.my_pe()) == me
    # a reduction over the row
    src = weft.full(1, me, dtype="int32")
    dst = weft.zeros(1, "int32")
    weft.reduce(dst, src, "sum", team=x)
    assert dst[0] == sum(range(me - me % 2, me - me % 2 + x.n_pes()))
    weft.barrier_all()
    weft.free(dst)
    weft.free(src)
    x.destroy()
    y.destroy()


def test_ctx_with_and_compare(me, right, left):
    a = weft.zeros(4, "int32")
    with weft.Ctx.create(weft.CTX_PRIVATE) as ctx:
        assert bool(ctx) and ctx == ctx and ctx != weft.CTX_DEFAULT
        assert ctx.get_team() == weft.TEAM_WORLD
        weft.put(a, np.full(4, me, "int32"), right, ctx=ctx)
        ctx.fence()
        ctx.quiet()
    assert not ctx
    with pytest.raises(ValueError, match="weft.put: argument 'ctx'.*destroyed"):
        weft.put(a, np.zeros(4, "int32"), right, ctx=ctx)
    weft.barrier_all()
    assert (a == left).all()
    weft.fence(ctx=weft.CTX_DEFAULT)
    weft.quiet(ctx=weft.CTX_DEFAULT)
    weft.barrier_all()
    weft.free(a)


@pytest.mark.pes(2)
def test_team_ctx(me, npes):
    # PE numbers on a team's context are the team's
    even = weft.TEAM_WORLD.split_strided(0, 2)
    a = weft.zeros(1, "int64")
    if even:
        n = even.n_pes()
        ctx = even.create_ctx()
        assert ctx.get_team() == even
        weft.p(a, me, (even.my_pe() + 1) % n, ctx=ctx)
        ctx.quiet()
        even.sync()
        assert a[0] == 2 * ((even.my_pe() - 1) % n)
        with pytest.raises(ValueError, match="argument 'pe'"):
            weft.p(a, 0, n, ctx=ctx)
        ctx.destroy()
        c2 = weft.Ctx.create(team=even)
        even.destroy()
        with pytest.raises(ValueError, match="its team was destroyed"):
            weft.quiet(ctx=c2)
        c2.destroy()
    weft.barrier_all()
    weft.free(a)
