#!/usr/bin/env bash
# prk/compare end to end at tiny sizes: it must run every kernel on both
# sides, exit 0, print the table and write the CSV (and the plot when
# gnuplot is installed).
set -u
B=${B:-.}
S=${S:-..}
if [ ! -x "$B/prk/stencil_mpi" ]; then
    echo "skip: the MPI twins are not built (configure found no MPI compiler)"; exit 77
fi
out=$B/tests/prk-compare
rm -rf "$out"
python3 "$S/prk/compare" --quick -n 2 --repeat 1 --no-build --builddir "$B" --out "$out"
rc=$?
fail() { echo "FAIL: $*"; exit 1; }
[ "$rc" = 0 ] || fail "prk/compare exited with status $rc"
[ -s "$out/results.csv" ] || fail "no results.csv"
rows=$(($(wc -l <"$out/results.csv") - 1))
[ "$rows" = 5 ] || fail "results.csv has $rows rows, expected 5"
if awk -F, 'NR > 1 && ($11 != 1 || $12 != 1) { bad = 1 } END { exit !bad }' "$out/results.csv"; then
    fail "a run did not validate"
fi
if command -v gnuplot >/dev/null; then
    [ -s "$out/results.png" ] || fail "gnuplot is installed but no results.png"
fi
echo "PASS: prk/compare --quick"
