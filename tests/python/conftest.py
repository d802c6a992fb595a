"""What every pytest file of tests/python shares.

The files run on every PE of a job (tests/python/run-pytest.sh: 1, 2 and
4 PEs under oshrun), each PE running the same tests in the same order, so
that the collectives inside them match. Importing weft here initialises
it once for the whole session; it is finalised at exit.

Fixtures and marks:
  me, npes         this PE's number and the number of PEs
  right, left      the neighbours in the ring (me + 1, me - 1, mod npes)
  @pytest.mark.pes(2)   the test needs at least 2 PEs; skipped on fewer
                        (on every PE alike, since npes is the same on all)
Each test starts and ends with barrier_all (an autouse fixture), so that
one test's puts and atomics land before the next test reads its arrays.
"""
import os

import pytest

import weft


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "pes(n): the test needs at least n PEs (skipped on fewer)")


def pytest_report_header(config):
    # Which package the run imports: the build tree's, not an installed one.
    return (f"weft: PE {weft.my_pe()} of {weft.n_pes()}, "
            f"{os.path.dirname(weft.__file__)}")


def pytest_runtest_setup(item):
    for mark in item.iter_markers(name="pes"):
        need = mark.args[0] if mark.args else 2
        if weft.n_pes() < need:
            pytest.skip(f"needs {need} PEs, the job has {weft.n_pes()}")


@pytest.fixture(autouse=True)
def _together():
    # (not around a test that finalises weft itself)
    if weft.initialized():
        weft.barrier_all()
    yield
    if weft.initialized():
        weft.barrier_all()


@pytest.fixture
def me():
    return weft.my_pe()


@pytest.fixture
def npes():
    return weft.n_pes()


@pytest.fixture
def right():
    return (weft.my_pe() + 1) % weft.n_pes()


@pytest.fixture
def left():
    return (weft.my_pe() - 1) % weft.n_pes()
