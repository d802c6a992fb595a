#!/usr/bin/env bash
# exception_exit.sh: runs tests/python/exception_exit.py on 2 PEs; PE 1
# raises before a barrier_all. The job must end within 30 s with status 1,
# Python's traceback and the PE's early exit named, and PE 0 must not pass
# the barrier (weft/__init__.py: no finalize after an uncaught exception).
# Skipped (77) without the package.
set -u
S=${S:-..}; B=${B:-.}
OSHRUN=${OSHRUN:-$B/tools/oshrun}
[ -s "$B/python/build/python" ] || { echo "skipped: the weft Python package was not built"; exit 77; }
python=$(head -n 1 "$B/python/build/python")
export PYTHONPATH="$B/python/build/tree/lib${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1 FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo
out=$(timeout -k 3 30 "$OSHRUN" -n 2 "$python" "$S/tests/python/exception_exit.py" 2>&1)
rc=$?
printf '%s\n' "$out" | tail -n 12
fail=0
[ $rc = 1 ] || { echo "FAIL: status $rc, not 1"; fail=1; }
printf '%s\n' "$out" | grep -q 'RuntimeError: PE 1 fails before the barrier' ||
    { echo "FAIL: no traceback"; fail=1; }
printf '%s\n' "$out" | grep -q 'PE 1 .*without calling shmem_finalize\|PE 1 .*before shmem_finalize' ||
    { echo "FAIL: the PE's early exit is not named"; fail=1; }
if printf '%s\n' "$out" | grep -q 'passed a barrier'; then
    echo "FAIL: PE 0 passed a barrier that PE 1 never reached"; fail=1
fi
[ $fail = 0 ] && echo "ok"
exit $fail
