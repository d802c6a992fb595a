#!/usr/bin/env bash
# bench/scale/scale end to end in seconds (--quick: 1 and 2 PEs, 20 calls
# per collective, one repetition): Weft and each MPI that is installed. It
# must exit 0 and write scale.csv with the expected columns, a row per
# library and P, and every figure positive and finite (memory parts that
# can be 0, such as RssShmem with one PE, at least 0); the plot when
# gnuplot is installed. No timing is judged.
set -u
B=${B:-.}
S=${S:-..}
py=/usr/bin/python3; [ -x "$py" ] || py=python3
libs=weft
command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null && libs=$libs,ompi
command -v mpicc.mpich >/dev/null && command -v mpiexec.hydra >/dev/null && libs=$libs,mpich
out=$B/tests/scale-results
rm -rf "$out"
fail() { echo "FAIL: $*"; exit 1; }
"$py" "$S/bench/scale/scale" --quick --libs "$libs" --no-build --builddir "$B" -o "$out" ||
    fail "bench/scale/scale exited with status $? (logs: $out/logs)"
"$py" - "$out/scale.csv" "$libs" <<'PY' || exit 1
import csv, math, sys
path, libs = sys.argv[1], sys.argv[2].split(",")
figs = ["start_wall_s", "init_s", "start_cpu_s", "end_cpu_s", "start_rss_kib",
        "start_pte_kib", "start_maps", "rss_kib", "anon_kib",
        "shmem_kib", "pss_kib", "pte_kib", "maps", "barrier_us", "allred8_us",
        "allred1k_us", "alltoall_us"]
want = ["nodes", "pes", "lib", "pinned", "reps_ok", "iters", "calls_min", "job_wall_s",
        "job_cpu_per_pe_s"] + ["%s_%s" % (f, s) for f in figs for s in ("mean", "max")]
may_be_zero = ("anon_kib", "shmem_kib", "pss_kib")
rows = list(csv.reader(open(path)))
if rows[0] != want:
    sys.exit("FAIL: scale.csv columns %s, expected %s" % (rows[0], want))
got = sorted((r[2], int(r[1])) for r in rows[1:])
if got != sorted((lib, p) for lib in libs for p in (1, 2)):
    sys.exit("FAIL: scale.csv rows %s, expected P 1 and 2 of %s" % (got, libs))
for r in rows[1:]:
    if r[4] != "1/1" or int(r[6]) < 3:
        sys.exit("FAIL: %s at P=%s: runs %s, fewest calls %s" % (r[2], r[1], r[4], r[6]))
    for name, v in zip(want[7:], r[7:]):
        x = float(v) if v else float("nan")
        low = 0 if name.startswith(may_be_zero) else 1e-12
        if not (math.isfinite(x) and x >= low):
            sys.exit("FAIL: %s at P=%s: %s = %r" % (r[2], r[1], name, v))
print("scale.csv: %d rows, columns and figures sane" % (len(rows) - 1))
PY
if command -v gnuplot >/dev/null; then
    [ -s "$out/scale.png" ] && [ -s "$out/scale.svg" ] ||
        fail "gnuplot is installed but no scale.png/svg"
fi
echo "PASS: bench/scale/scale --quick ($libs)"
