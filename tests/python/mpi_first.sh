#!/usr/bin/env bash
# mpi_first.sh N: runs tests/python/mpi_first.py on N PEs under oshrun and
# checks that every PE stops with the boot error naming the launcher's job
# and what to do (src/boot/pmix_boot.c, joined_the_launchers_job), instead
# of running as PE 0 of 1. Skipped (77) without the package or mpi4py.
set -u
S=${S:-..}; B=${B:-.}
OSHRUN=${OSHRUN:-$B/tools/oshrun}
[ -s "$B/python/build/python" ] || { echo "skipped: the weft Python package was not built"; exit 77; }
python=$(head -n 1 "$B/python/build/python")
"$python" -c "import mpi4py" 2>/dev/null ||
    { echo "skipped: $python has no mpi4py (Debian: python3-mpi4py)"; exit 77; }
export PYTHONPATH="$B/python/build/tree/lib${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1
exec bash "$S/tests/badinput/expect_fail.sh" --within 60 \
    -e 'weft\[pe 0\] boot error: PMIx_Init: the launcher started this PE as rank 1 of job oshrun\.' \
    -e 'another library of this process initialised PMIx first' \
    -e "mpirun or srun --mpi=pmix" \
    -- "$OSHRUN" -n "$1" "$python" "$S/tests/python/mpi_first.py"
