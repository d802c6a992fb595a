#!/usr/bin/env bash
# Runs one pytest file of tests/python on N PEs (the cases of
# tests/python/python.cases):
#
#   run-pytest.sh N FILE [LAUNCHER]
#
# Every PE runs `PYTHON -m pytest -q -p no:cacheprovider -x FILE`, so
# every PE runs the same tests in the same order and their collectives
# match. The case fails when any PE fails: the launcher stops the others
# and exits with that PE's status. LAUNCHER is oshrun (the default: Weft's,
# $OSHRUN, with --tag-output), or for the programs that use mpi4py and
# weft in one job a launcher whose PMIx server both libraries join: mpirun
# (Open MPI's mpirun.openmpi) or srun (srun --mpi=pmix on the one-node test
# Slurm, tests/launch/slurm-test.sh); skipped where it or mpi4py is
# missing.
#
# PYTHON is the interpreter configure chose, named in python/build/python
# of the build directory, and the package is python/build/tree/lib (both
# written by make: python/python.mk); without them the case is skipped (77)
# with configure's reason. Run from the build directory with S, B and
# OSHRUN set (tests/run-tests).
set -u
S=${S:-..}; B=${B:-.}
OSHRUN=${OSHRUN:-$B/tools/oshrun}
export FI_TCP_IFACE=${FI_TCP_IFACE:-lo} FI_SOCKETS_IFACE=${FI_SOCKETS_IFACE:-lo}

skip() { echo "skipped: $*"; exit 77; }
[ $# -ge 2 ] || { echo "usage: $0 N FILE [oshrun|mpirun|srun]" >&2; exit 2; }
n=$1 file=$S/tests/python/$2 launcher=${3:-oshrun}
[ -f "$file" ] || { echo "run-pytest: $file does not exist" >&2; exit 2; }

if [ ! -s "$B/python/build/python" ]; then
    why=$(sed -n 's/^ *Python package: *not built: //p' "$B/config.log" 2>/dev/null | tail -n 1)
    [ -n "$why" ] || why="see the end of the output of configure"
    skip "the weft Python package was not built ($why)"
fi
python=$(head -n 1 "$B/python/build/python")
export PYTHONPATH="$B/python/build/tree/lib${PYTHONPATH:+:$PYTHONPATH}"
# Nothing is written into the source tree (__pycache__ of the tests).
export PYTHONDONTWRITEBYTECODE=1

pytest=("$python" -m pytest -q -p no:cacheprovider -x --rootdir "$S/tests/python" "$file")
case "$launcher" in
oshrun)
    exec "$OSHRUN" --tag-output -n "$n" "${pytest[@]}" ;;
mpirun)
    command -v mpirun.openmpi >/dev/null ||
        skip "Open MPI's mpirun.openmpi is not installed (Debian: openmpi-bin)"
    "$python" -c "import mpi4py" 2>/dev/null ||
        skip "$python has no mpi4py (Debian: python3-mpi4py)"
    # As root too (CI), and more PEs than cores. Open MPI passes this
    # environment to the processes it starts on this node.
    exec mpirun.openmpi --allow-run-as-root --oversubscribe --tag-output \
        -np "$n" "${pytest[@]}" ;;
srun)
    "$python" -c "import mpi4py" 2>/dev/null ||
        skip "$python has no mpi4py (Debian: python3-mpi4py)"
    out=$(mktemp -d "${TMPDIR:-/tmp}/weft-py-srun.XXXXXX")
    # shellcheck source=tests/launch/slurm-test.sh
    . "$S/tests/launch/slurm-test.sh"
    trap 'slurm_down; rm -rf "$out"' EXIT
    slurm_up "$out"
    timeout 120 srun --mpi=pmix -K -n "$n" "${pytest[@]}" ;;
*)
    echo "run-pytest: unknown launcher $launcher" >&2; exit 2 ;;
esac
