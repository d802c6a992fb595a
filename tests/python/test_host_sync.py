"""Point-to-point synchronization on host arrays (docs/python.md):
wait_until and test, their _all, _any and _some forms and the _vector
forms, with status= and the comparisons as CMP_* or strings.  Each PE waits
for values its neighbour writes."""
import numpy as np
import pytest

import weft

CMPS = [(weft.CMP_EQ, "=="), (weft.CMP_NE, "!="), (weft.CMP_GT, ">"),
        (weft.CMP_GE, ">="), (weft.CMP_LT, "<"), (weft.CMP_LE, "<=")]


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint32", "uint64"])
def test_wait_until(dtype, me, right, left):
    x = weft.zeros(1, dtype)
    weft.barrier_all()
    weft.atomic_set(x, left * 0 + me + 1, right)
    weft.wait_until(x, weft.CMP_EQ, left + 1)
    assert x[0] == left + 1
    weft.barrier_all()
    weft.free(x)


def test_comparisons(me):
    x = weft.full(1, 5, dtype="int64")
    for cmp, text in CMPS:
        want = {"==": False, "!=": True, ">": True, ">=": True,
                "<": False, "<=": False}[text]
        assert weft.test(x, cmp, 4) is want
        assert weft.test(x, text, 4) is want
    assert weft.test(x, "eq", 5) and weft.test(x, "LE", 5)
    assert weft.test(x, "cmp_ge", 5)
    weft.wait_until(x, ">", 4)  # already true: returns at once
    weft.barrier_all()
    weft.free(x)


def test_all_any_some(me, right, left):
    ivars = weft.zeros(4, "int64")
    weft.barrier_all()
    assert weft.test_any(ivars, "==", 1) is None
    assert weft.test_some(ivars, "==", 1) == []
    assert not weft.test_all(ivars, "==", 1)
    weft.barrier_all()
    # the neighbour sets elements 1 and 3
    weft.p(ivars[1:2], 1, right)
    weft.p(ivars[3:4], 1, right)
    weft.quiet()
    idx = weft.wait_until_any(ivars, weft.CMP_EQ, 1)
    assert idx in (1, 3)
    weft.wait_until_all(ivars, "==", 1, status=[1, 0, 1, 0])
    assert sorted(weft.wait_until_some(ivars, "==", 1)) == [1, 3]
    assert weft.test_all(ivars, "==", 1, status=np.array([1, 0, 1, 0],
                                                          "int32"))
    assert weft.test_any(ivars, "==", 1, status=[0, 1, 0, 0]) == 3
    assert weft.test_some(ivars, "==", 0) == [0, 2]
    # every variable excluded: _any finds none
    assert weft.wait_until_any(ivars, "==", 7, status=[1, 1, 1, 1]) is None
    weft.barrier_all()
    weft.free(ivars)


def test_vector_forms(me, right):
    ivars = weft.zeros(3, "int32")
    weft.barrier_all()
    weft.put(ivars, np.array([5, 6, 7], "int32"), right)
    weft.quiet()
    weft.wait_until_all_vector(ivars, "==", np.array([5, 6, 7], "int32"))
    assert weft.test_all_vector(ivars, ">=", [5, 6, 7])
    assert not weft.test_all_vector(ivars, ">", [5, 6, 7])
    assert weft.wait_until_any_vector(ivars, "==", [0, 6, 0]) == 1
    assert weft.test_any_vector(ivars, "==", [0, 0, 0]) is None
    assert weft.wait_until_some_vector(ivars, "<", [9, 0, 9]) == [0, 2]
    assert weft.test_some_vector(ivars, "!=", [5, 0, 7],
                                 status=[0, 0, 1]) == [1]
    weft.barrier_all()
    weft.free(ivars)


@pytest.mark.pes(2)
def test_wait_releases_gil(me):
    # a thread of PE 1 runs while its main thread waits (the GIL is free)
    import threading
    x = weft.zeros(1, "int64")
    flag = []
    weft.barrier_all()
    if me == 1:
        t = threading.Thread(target=lambda: flag.append(1))
        t.start()
        weft.wait_until(x, "==", 1)
        t.join()
        assert flag == [1]
    elif me == 0:
        import time
        time.sleep(0.05)
        weft.atomic_set(x, 1, 1)
    weft.barrier_all()
    weft.free(x)
