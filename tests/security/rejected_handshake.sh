#!/usr/bin/env bash
# oshrun ends with its job's status, within a bound, whatever reached its
# PMIx server (docs/security.md). A process of the job (a child of PE 0,
# which oshrun's peer check lets through) sends a handshake that libpmix
# refuses (it claims uid 1) after every PE has connected; libpmix 4.2.2
# then deadlocks in PMIx_server_finalize once the job has finished, and
# oshrun used to hang there for ever. The job must end with status 0 and its
# normal output within exit_limit seconds of being told to finish.
set -u
B=${B:-.}
S=${S:-$(cd "$(dirname "$0")/../.." && pwd)}
OSHRUN=${OSHRUN:-$B/tools/oshrun}
shim=$B/tests/security/.libs/libuid1_shim.so
start_limit=60
exit_limit=30

skip() { echo "skipped: $*"; exit 77; }
fail() {
    echo "FAIL: $*"
    for f in intruder.out job.out job.err; do
        [ -f "$work/$f" ] && { echo "--- $f"; cat "$work/$f"; }
    done
    exit 1
}

[ "$(id -u)" != 1 ] || skip "the intruder claims uid 1, which is this user's"
[ -f "$shim" ] || { echo "missing $shim (make check builds it)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/weftt_rej.XXXXXX") || exit 1
opid=""
cleanup() {
    if [ -n "$opid" ] && kill -0 "$opid" 2>/dev/null; then
        # a hung oshrun ignores SIGTERM (it waits in libpmix); its PEs and
        # their children are in process groups of their own
        for c in $(ps -o pid= --ppid "$opid"); do
            kill -9 -- "-$c" "$c" 2>/dev/null
        done
        kill -9 "$opid" 2>/dev/null
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

"$OSHRUN" -n 2 "$S/tests/security/rejected_pe.sh" "$work" \
    "$B/tests/security/sec_victim" "$B/tests/security/pmix_intruder" "$shim" \
    >"$work/job.out" 2>"$work/job.err" &
opid=$!
for ((i = 0; i < start_limit * 10; i++)); do
    [ -e "$work/go" ] && break
    kill -0 "$opid" 2>/dev/null || break
    sleep 0.1
done
[ -e "$work/go" ] || fail "the job did not reach the attack within ${start_limit}s"
for ((i = 0; i < exit_limit * 10; i++)); do
    kill -0 "$opid" 2>/dev/null || break
    sleep 0.1
done
kill -0 "$opid" 2>/dev/null &&
    fail "oshrun did not exit within ${exit_limit}s after its PEs were told to finish"
wait "$opid"
orc=$?
opid=""
cat "$work/intruder.out" "$work/job.out" "$work/job.err"
echo "job status $orc"
grep -q '^intruder: uid [0-9]*, claims uid 1$' "$work/intruder.out" ||
    fail "the intruder did not claim uid 1"
grep -q '^intruder: PMIx_Init: refused' "$work/intruder.out" ||
    fail "libpmix did not refuse the handshake"
[ $orc = 0 ] || fail "the job ended with status $orc, not 0"
grep -q '^sec_victim: 2 PEs, [0-9]* rounds, sums right$' "$work/job.out" ||
    fail "the job's output is not what it prints when all went well"
echo "PASS: oshrun ended with the job's status after a refused handshake"
