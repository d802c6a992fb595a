#!/usr/bin/env bash
# Smoke runs of the Python side of the comparison (bench/python/,
# prk/python/): the programs run, the kernels validate, bad arguments end
# with one ERROR line. Nothing here is timed against a target: the
# figures are benchmarks (bench/python/compare), not tests.
#
#   smoke.sh prk-shmem N     the three Python kernels on weft, N PEs
#   smoke.sh prk-mpi N       the same on mpi4py (mpirun.openmpi)
#   smoke.sh prk-args        bad arguments of the weft kernels, 2 PEs
#   smoke.sh bench           the ping-pong (both forms) and call_cost.py
#                            on weft and mpi4py, 2 PEs, few iterations
#   smoke.sh compare         bench/python/compare --quick without the
#                            kernels: it builds, runs, writes its files
#
# Uses the interpreter and package that make built (python/build/python,
# python/build/tree/lib); skipped (77) without them. Run from the build
# directory with S, B and OSHRUN set (tests/run-tests).
set -u
S=${S:-..}; B=${B:-.}
OSHRUN=${OSHRUN:-$B/tools/oshrun}
export FI_TCP_IFACE=${FI_TCP_IFACE:-lo} FI_SOCKETS_IFACE=${FI_SOCKETS_IFACE:-lo}
export PYTHONDONTWRITEBYTECODE=1

skip() { echo "skipped: $*"; exit 77; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
[ -s "$B/python/build/python" ] ||
    skip "the weft Python package was not built (see the end of configure's output)"
python=$(head -n 1 "$B/python/build/python")
export PYTHONPATH="$B/python/build/tree/lib${PYTHONPATH:+:$PYTHONPATH}"
prk=$S/prk/python bench=$S/bench/python
failures=0

need_mpi4py() {
    command -v mpirun.openmpi >/dev/null ||
        skip "Open MPI's mpirun.openmpi is not installed (Debian: openmpi-bin)"
    "$python" -c "import mpi4py" 2>/dev/null ||
        skip "$python has no mpi4py (Debian: python3-mpi4py)"
    if [ "$(id -u)" = 0 ]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
}

# validates LAUNCH... -- PROGRAM ARGS: the run exits 0 and validates.
validates() {
    local out rc
    out=$("$@" 2>&1)
    rc=$?
    if [ $rc != 0 ] || ! grep -q '^Solution validates' <<<"$out" ||
        ! grep -q '^Rate (' <<<"$out"; then
        fail "$* (exit status $rc):"
        tail -n 5 <<<"$out"
    fi
}

kernels() { # LAUNCH...: the kernels at tiny sizes
    validates "$@" "$python" "$prk/stencil_$version.py" 4 40
    validates "$@" "$python" "$prk/transpose_$version.py" 3 64 16
    validates "$@" "$python" "$prk/p2p_$version.py" 3 40 30
}

# Each case: ARGS|text the ERROR line must contain (as tests/prk/bad_args.sh).
bad_args() {
    local c kernel args want out rc
    for c in "stencil|0 50|iterations" "stencil|10 4|radius" "stencil|10|usage" \
        "transpose|5 63|multiple" "transpose|5 64 abc|tile" \
        "p2p|5 2 10|exceed" "p2p|3 10 1|checksum"; do
        IFS='|' read -r kernel args want <<<"$c"
        # shellcheck disable=SC2086  # ARGS are meant to split
        out=$("$OSHRUN" -n 2 "$python" "$prk/${kernel}_shmem.py" $args 2>/dev/null)
        rc=$?
        if [ $rc = 0 ] || [ "$(grep -c '^ERROR: ' <<<"$out")" != 1 ] ||
            ! grep '^ERROR: ' <<<"$out" | grep -q "$want"; then
            fail "$kernel $args: want exit status != 0 and one ERROR line naming '$want'"
            printf '%s\n' "$out" | tail -n 4
        fi
    done
}

# rows PATTERN MIN OUTPUT: at least MIN lines "PATTERN,size,value,..." with
# a positive value.
rows() {
    local n
    n=$(awk -F, -v p="$1" '$1 == p && $3 + 0 > 0' <<<"$3" | wc -l)
    [ "$n" -ge "$2" ] || { fail "$1: $n rows with a positive value, want $2"; tail -n 5 <<<"$3"; }
}

bench_programs() {
    local few=(--csv --min 8 --max 65536 --iters 50 --warmup 5) out
    out=$("$OSHRUN" -n 2 "$python" "$bench/pingpong_shmem.py" "${few[@]}" 2>&1)
    rows py_put_signal_pingpong 14 "$out"
    out=$("$OSHRUN" -n 2 "$python" "$bench/pingpong_shmem.py" "${few[@]}" --mode put 2>&1)
    rows py_put_wait_pingpong 14 "$out"
    out=$("$OSHRUN" -n 2 "$python" "$bench/call_cost.py" --iters 20 --batches 3 2>&1)
    for f in put put_signal signal_wait_until fetch_add barrier reduce; do
        grep -Eq "^$f,[0-9.]+,[0-9.]+$" <<<"$out" || fail "call_cost.py: no line for $f"
    done
    if command -v mpirun.openmpi >/dev/null && "$python" -c "import mpi4py" 2>/dev/null; then
        need_mpi4py
        out=$(mpirun.openmpi --oversubscribe -n 2 "$python" "$bench/pingpong_mpi.py" \
            "${few[@]}" 2>&1)
        rows py_sendrecv_pingpong 14 "$out"
    fi
}

compare_quick() {
    local out
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
    out=$("$bench/compare" --builddir "$B" --python "$python" --quick \
        --only pingpong,cost --max-size 65536 --out "$dir" 2>&1)
    rc=$?
    [ $rc = 0 ] || { fail "compare exited with status $rc"; tail -n 20 <<<"$out"; }
    for f in summary.csv results.csv runs.log; do
        [ -s "$dir/$f" ] || fail "compare wrote no $f"
    done
    grep -q '^ping-pong latency 8 B' <<<"$out" || fail "compare printed no table"
    grep -q '^Targets' <<<"$out" || fail "compare printed no targets"
}

case "${1:-}" in
prk-shmem) version=shmem; kernels "$OSHRUN" -n "${2:?N}" ;;
prk-mpi) need_mpi4py; version=mpi; kernels mpirun.openmpi --oversubscribe -n "${2:?N}" ;;
prk-args) bad_args ;;
bench) bench_programs ;;
compare) compare_quick ;;
*) echo "usage: $0 prk-shmem N | prk-mpi N | prk-args | bench | compare" >&2; exit 2 ;;
esac
[ $failures = 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "ok"
