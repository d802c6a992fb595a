#!/usr/bin/env bash
# PEs that return from main without shmem_finalize (tests/compat/no_finalize.c):
# when every PE does, the job is finalized at exit, with one warning from
# PE 0 and status 0, as with Sandia OpenSHMEM; when one PE leaves while the
# others wait for it, the job still ends with the message that names it.
# Run from the build directory; S, B and OSHRUN come from tests/run-tests.
#
#   finalize_at_exit.sh all N [thread]  every PE returns after a put
#                                       without quiet: status 0, the warning
#                                       once, every block arrived
#   finalize_at_exit.sh late N          PE 0 computes a second longer: the
#                                       others wait for it at exit
#   finalize_at_exit.sh waiting N       PE 1 returns while PE 0 waits for
#                                       PE 2, which computes: nobody waits
#                                       for PE 1, so status 0
#   finalize_at_exit.sh leave N PE [wait]  PE leaves while the others wait
#                                       in a barrier (or wait_until): the
#                                       job ends within LEAVE_LIMIT s (20;
#                                       start-up included), status 1,
#                                       naming PE
#   finalize_at_exit.sh mpirun N        all and leave under Open MPI's
#                                       mpirun.openmpi
set -u
S=${S:-..}; B=${B:-.}
OSHRUN=${OSHRUN:-$B/tools/oshrun}
prog=$B/tests/compat/no_finalize
export FI_TCP_IFACE=${FI_TCP_IFACE:-lo} FI_SOCKETS_IFACE=${FI_SOCKETS_IFACE:-lo}
out=$(mktemp -d "${TMPDIR:-/tmp}/weft-no-finalize.XXXXXX")
trap 'rm -rf "$out"' EXIT
WARNING="weft\\[pe 0\\] init warning: the program ended without calling shmem_finalize"

fail() {
    echo "FAIL: $*"
    [ -s "$out/stdout" ] && sed 's/^/  stdout| /' "$out/stdout" | head -n 40
    [ -s "$out/stderr" ] && sed 's/^/  stderr| /' "$out/stderr" | head -n 40
    exit 1
}
skip() { echo "skipped: $*"; exit 77; }
[ -x "$prog" ] || fail "$prog is missing (make check builds it)"

LAUNCH=("$OSHRUN")
# run N ARGS...: output in $out/stdout and $out/stderr, status in $rc,
# seconds in $secs.
run() {
    local n=$1 t0=$EPOCHREALTIME
    shift
    timeout 60 "${LAUNCH[@]}" -n "$n" "$prog" "$@" >"$out/stdout" 2>"$out/stderr" </dev/null
    rc=$?
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
}

# Status 0, PE 0's warning once, no error and no FAIL.
check_finalized() {
    [ "$rc" = 0 ] || fail "exit status $rc, expected 0"
    [ "$(grep -c "$WARNING" "$out/stderr")" = 1 ] || fail "not exactly one warning from PE 0"
    grep -q "error\|exits (status\|exited with\|FAIL" "$out/stdout" "$out/stderr" &&
        fail "an error was reported"
    return 0
}

case_all() {
    local n=$1 mode=${2:-all} p
    : >"$out/result"
    run "$n" "$mode" "$out/result"
    check_finalized
    for ((p = 0; p < n; p++)); do
        grep -q -x "ok $p" "$out/result" || fail "PE $p did not find its neighbour's block after the finalize at exit"
    done
    echo "ok: $n PEs ($mode) returned without shmem_finalize: finalized at exit, status 0, one warning, every put arrived (${secs}s)"
}

case_leave() {
    local n=$1 pe=$2 mode=leave
    [ "${3:-}" = wait ] && mode=leave_wait
    run "$n" "$mode" "$pe"
    [ "$rc" = 1 ] || fail "exit status $rc, expected 1"
    grep -q "FAIL" "$out/stdout" && fail "a PE got past its wait"
    grep -q -E "PE $pe (\\(pid [0-9]+\\) exited with status 0|exits \\(status 0\\)) without calling shmem_finalize" "$out/stderr" ||
        fail "no message naming PE $pe"
    grep -q "$WARNING" "$out/stderr" && fail "the job was said to be finalized"
    awk -v s="$secs" -v l="${LEAVE_LIMIT:-20}" 'BEGIN { exit !(s < l) }' ||
        fail "the job took ${secs}s to end (start-up included), more than ${LEAVE_LIMIT:-20}"
    echo "ok: PE $pe of $n left while the others waited ($mode): the job ended in ${secs}s, status 1, naming it"
}

what=${1:-}
shift
case $what in
all) case_all "$1" ${2:+"$2"} ;;
late)
    run "$1" late
    check_finalized
    [ "$(grep -c ' returns$' "$out/stdout")" = "$1" ] || fail "not every PE returned"
    echo "ok: the PEs at exit waited for PE 0, which computed a second longer: status 0 (${secs}s)"
    ;;
waiting)
    run "$1" waiting
    check_finalized
    [ "$(grep -c ' returns$' "$out/stdout")" = "$1" ] || fail "not every PE returned"
    echo "ok: PE 1 at exit while PE 0 waited for PE 2 (computing): status 0 (${secs}s)"
    ;;
leave) case_leave "$@" ;;
mpirun)
    command -v mpirun.openmpi >/dev/null || skip "Open MPI's mpirun.openmpi is not installed (Debian: openmpi-bin)"
    LAUNCH=(mpirun.openmpi --allow-run-as-root --oversubscribe)
    case_all "$1"
    case_leave "$1" 1
    echo "ok: under mpirun.openmpi"
    ;;
*) echo "usage: finalize_at_exit.sh all|late|waiting|leave|mpirun N ..."; exit 2 ;;
esac
