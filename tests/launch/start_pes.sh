#!/usr/bin/env bash
# start_pes programs end without shmem_finalize (tests/launch/start_pes_exit.c).
# OpenSHMEM's start_pes: the library is finalized implicitly when the
# program exits; that finalization is collective and includes a global
# synchronization that completes all pending communication. Run from the
# build directory; S, B and OSHRUN come from tests/run-tests.
#
#   start_pes.sh lines N REPS [exit]  N PEs print lines after their last
#                                     synchronization, PE 0 late: status 0,
#                                     every line of every PE, REPS times
#   start_pes.sh collective N REPS    the exit waits for every PE and for the
#                                     traffic into each PE
#   start_pes.sh status N             every PE exits N: the job exits N
#   start_pes.sh fail N               PE 2 exits N while the others wait in a
#                                     barrier: the job exits N, nobody passes
#   start_pes.sh finalize             explicit shmem_finalize after start_pes
#   start_pes.sh global_exit N        shmem_global_exit(N) still ends the job
#   start_pes.sh fork                 a forked child's exit(0) finalizes nothing
#   start_pes.sh init                 shmem_init without shmem_finalize:
#                                     finalized at exit too, with a warning
#                                     (tests/compat/finalize_at_exit.sh has more)
#   start_pes.sh mpirun N             lines, collective, fail and init under
#                                     Open MPI's mpirun
#   start_pes.sh srun N               the same under srun --mpi=pmix on the
#                                     one-node test Slurm (tests/launch/slurm-test.sh)
set -u
S=${S:-..}; B=${B:-.}
OSHRUN=${OSHRUN:-$B/tools/oshrun}
prog=$B/tests/launch/start_pes_exit
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo
out=$(mktemp -d "${TMPDIR:-/tmp}/weft-start-pes.XXXXXX")
trap 'rm -rf "$out"' EXIT
LINES=5 # start_pes_exit.c

fail() {
    echo "FAIL: $*"
    [ -s "$out/stdout" ] && sed 's/^/  stdout| /' "$out/stdout" | head -n 40
    [ -s "$out/stderr" ] && sed 's/^/  stderr| /' "$out/stderr" | head -n 40
    [ -s "$out/order" ] && sed 's/^/  order| /' "$out/order"
    exit 1
}
skip() { echo "skipped: $*"; exit 77; }

[ -x "$prog" ] || fail "$prog is missing (make check builds it)"

# run CMD...: output in $out/stdout and $out/stderr, status in $rc.
run() {
    timeout 60 "$@" >"$out/stdout" 2>"$out/stderr" </dev/null
    rc=$?
}

# Status 0 and each of LINES lines of every PE exactly once.
check_lines() {
    local n=$1 p i c
    [ "$rc" = 0 ] || fail "exit status $rc, expected 0"
    grep -q "FAIL\|without calling shmem_finalize" "$out/stdout" "$out/stderr" &&
        fail "a PE reported a failure"
    for ((p = 0; p < n; p++)); do
        for ((i = 0; i < LINES; i++)); do
            c=$(grep -c -x "PE $p of $n line $i" "$out/stdout")
            [ "$c" = 1 ] || fail "PE $p printed line $i $c times"
        done
    done
    c=$(grep -c "^PE " "$out/stdout")
    [ "$c" = $((n * LINES)) ] || fail "$c lines for $n PEs"
}

case_lines() {
    local n=$1 reps=$2 r
    for ((r = 1; r <= reps; r++)); do
        run "${LAUNCH[@]}" -n "$n" "$prog" lines ${3:+"$3"}
        check_lines "$n"
    done
    echo "ok: $n PEs, $reps runs: status 0 and every line of every PE"
}

# Every PE wrote "exiting" (end of main) before any PE's handler that runs
# after the implicit finalize wrote "finalized", and that handler found the
# block its left neighbour put without a quiet.
check_order() {
    local n=$1 last_exit first_done
    [ "$rc" = 0 ] || fail "exit status $rc, expected 0"
    grep -q "FAIL\|without calling shmem_finalize" "$out/stderr" &&
        fail "a PE reported a failure"
    [ "$(grep -c '^exiting ' "$out/order")" = "$n" ] || fail "not every PE reached the end of main"
    [ "$(grep -c '^finalized ' "$out/order")" = "$n" ] || fail "not every PE finalized with the data complete"
    last_exit=$(grep -n '^exiting ' "$out/order" | tail -n 1 | cut -d: -f1)
    first_done=$(grep -n '^\(finalized\|incomplete\) ' "$out/order" | head -n 1 | cut -d: -f1)
    [ "$last_exit" -lt "$first_done" ] ||
        fail "a PE left its implicit finalize before every PE had reached it"
}

case_collective() {
    local n=$1 reps=$2 r
    for ((r = 1; r <= reps; r++)); do
        : >"$out/order"
        run "${LAUNCH[@]}" -n "$n" "$prog" collective "$out/order"
        check_order "$n"
    done
    echo "ok: $n PEs, $reps runs: the exit synchronized every PE and completed the puts"
}

# Under a PMIx launcher other than oshrun (LAUNCH): a nonzero status ends
# the job as it always did; shmem_init without shmem_finalize is finalized
# at exit with a warning.
case_errors_pmix() {
    run "${LAUNCH[@]}" -n "$1" "$prog" fail 3
    [ "$rc" = 3 ] || fail "fail 3: exit status $rc, expected 3"
    grep -q "PE 2 exits (status 3) without calling shmem_finalize" "$out/stderr" ||
        fail "fail 3: no message naming PE 2 and its status"
    grep -q "passed the barrier" "$out/stdout" && fail "PE 2's exit let the others through their barrier"
    run "${LAUNCH[@]}" -n "$1" "$prog" init
    check_init
}

# shmem_init, no shmem_finalize, every PE returns: status 0, PE 0's one
# warning, no error.
check_init() {
    [ "$rc" = 0 ] || fail "init: exit status $rc, expected 0"
    [ "$(grep -c "weft\[pe 0\] init warning: the program ended without calling shmem_finalize" "$out/stderr")" = 1 ] ||
        fail "init: not exactly one warning from PE 0"
    grep -q "error\|exits (status\|exited with" "$out/stderr" && fail "init: an error was reported"
}

case_mpirun() {
    command -v mpirun.openmpi >/dev/null || skip "Open MPI's mpirun.openmpi is not installed (Debian: openmpi-bin)"
    LAUNCH=(mpirun.openmpi --allow-run-as-root --oversubscribe)
    case_lines "$1" 3
    case_collective "$1" 3
    case_errors_pmix "$1"
    LAUNCH=("$OSHRUN" --launcher=mpirun)
    case_lines "$1" 1
    echo "ok: under mpirun.openmpi, directly and through oshrun"
}

# The test Slurm is shared: another user's clean-up (scancel -u) cancels
# our step too. Slurm says CANCELLED then, as it does when a PE aborts the
# job, but an abort by Weft always comes with a weft message.
cancelled_by_others() {
    [ "$rc" != 0 ] && grep -q "CANCELLED AT" "$out/stderr" &&
        ! grep -q "weft\[\|FAIL" "$out/stderr" &&
        skip "the test Slurm cancelled the step without a PE asking (another user's scancel?)"
}

case_srun() {
    local n=$1
    . "$S/tests/launch/slurm-test.sh"
    slurm_up "$out"
    trap 'slurm_down; rm -rf "$out"' EXIT
    LAUNCH=(srun --mpi=pmix -K)
    run() {
        timeout 60 "$@" >"$out/stdout" 2>"$out/stderr" </dev/null
        rc=$?
        cancelled_by_others
    }
    case_lines "$n" 3
    case_collective "$n" 3
    case_errors_pmix "$n"
    echo "ok: under srun --mpi=pmix"
}

LAUNCH=("$OSHRUN")
what=${1:-}
shift
case $what in
lines) case_lines "$@" ;;
collective) case_collective "$@" ;;
mpirun) case_mpirun "$@" ;;
srun) case_srun "$@" ;;
status)
    run "$OSHRUN" -n 4 "$prog" status "$1"
    [ "$rc" = "$1" ] || fail "exit status $rc, expected $1"
    grep -q -E "PE [0-3] \(pid [0-9]+\) exited with status $1 before shmem_finalize" "$out/stderr" ||
        fail "no message naming the PE and its status"
    echo "ok: every PE exited $1, so did the job"
    ;;
fail)
    run "$OSHRUN" -n 4 "$prog" fail "$1"
    [ "$rc" = "$1" ] || fail "exit status $rc, expected $1"
    grep -q -E "PE 2 \(pid [0-9]+\) exited with status $1 before shmem_finalize" "$out/stderr" ||
        fail "no message naming PE 2 and its status"
    grep -q "passed the barrier" "$out/stdout" && fail "PE 2's exit let the others through their barrier"
    echo "ok: PE 2 exited $1 while the others waited: the job exited $1"
    ;;
finalize)
    run "$OSHRUN" -n 4 "$prog" finalize
    [ "$rc" = 0 ] || fail "exit status $rc, expected 0"
    [ "$(grep -c '^PE [0-3] finalized$' "$out/stdout")" = 4 ] || fail "not every PE finalized once"
    [ -s "$out/stderr" ] && fail "unexpected messages"
    echo "ok: shmem_finalize after start_pes, then exit: status 0"
    ;;
global_exit)
    run "$OSHRUN" -n 4 "$prog" global_exit "$1"
    [ "$rc" = "$1" ] || fail "exit status $rc, expected $1"
    grep -q "PE 1 ended the job with status $1" "$out/stderr" || fail "no message naming PE 1"
    echo "ok: shmem_global_exit($1) under start_pes ended the job with $1"
    ;;
fork)
    run "$OSHRUN" -n 4 "$prog" fork
    [ "$rc" = 0 ] || fail "exit status $rc, expected 0"
    [ "$(grep -c '^PE [0-3] of 4 line 0$' "$out/stdout")" = 4 ] || fail "lines missing"
    echo "ok: children of PEs exited without finalizing; the PEs finalized at exit"
    ;;
init)
    run "$OSHRUN" -n 2 "$prog" init
    check_init
    echo "ok: shmem_init without shmem_finalize: finalized at exit with a warning, status 0"
    ;;
*) echo "usage: start_pes.sh lines|collective|status|fail|finalize|global_exit|fork|init|mpirun|srun ..."; exit 2 ;;
esac
