"""Programs written for shmem4py run on weft with only their import changed.

Each program of tests/python/shmem4py/ is a shmem4py program whose import
line reads `import weft as shmem`; this file checks that no other line
names weft, then runs the program on every PE (in this process, in the
same order on every PE, so its collectives match).  The programs assert
their own results.
"""
import os
import re
import runpy

import pytest

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shmem4py")
PROGRAMS = sorted(f for f in os.listdir(HERE) if f.endswith(".py"))


def test_programs_are_there():
    assert len(PROGRAMS) >= 8, PROGRAMS


@pytest.mark.parametrize("name", PROGRAMS)
def test_only_the_import_differs(name):
    with open(os.path.join(HERE, name)) as f:
        lines = f.read().splitlines()
    weft_lines = [l for l in lines if re.search(r"\bweft\b", l)]
    assert weft_lines == ["import weft as shmem"], weft_lines
    # What the line replaces is shmem4py's import; the rest is shmem4py's
    # API, so the program is unchanged but for that line.
    assert not any("shmem4py" in l for l in lines)


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_runs(name):
    runpy.run_path(os.path.join(HERE, name), run_name="__main__")
