#!/usr/bin/env bash
# Runs a job that misuses the library and checks how it ends.
# Usage: expect_fail.sh [--pass] [--within SECS] [-e REGEX]... -- COMMAND [ARGS...]
#   default   the job must fail: non-zero status, not a crash (no signal
#             such as SIGSEGV or SIGABRT, no sanitizer report)
#   --pass    the job must succeed instead (errors the program handles)
#   --within  it must end within SECS seconds (default 10): never a hang
#   -e REGEX  the output (stdout and stderr) must have a line matching this
#             extended regular expression; give one per fact the message
#             must carry (the routine, the PE, the bad value, ...)
set -u
want=fail; within=10; pats=()
while [ $# -gt 0 ]; do
    case "$1" in
    --pass) want=pass; shift ;;
    --within) within=$2; shift 2 ;;
    -e) pats+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) break ;;
    esac
done
[ $# -gt 0 ] || { echo "usage: expect_fail.sh [--pass] [--within S] [-e RE]... -- CMD..."; exit 2; }
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo
out=$(mktemp "${TMPDIR:-/tmp}/weft-bad.XXXXXX")
trap 'rm -f "$out"' EXIT
t0=$EPOCHREALTIME
timeout -k 3 "$within" "$@" >"$out" 2>&1 </dev/null
rc=$?
secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
tail -n 25 "$out"
echo "--- status $rc after ${secs}s: $*"
problems=0
bad() { echo "FAIL: $*"; problems=$((problems + 1)); }

# timeout's status: 124, or 137 when the job ignored SIGTERM too
if [ $rc = 124 ] || { [ $rc = 137 ] && awk -v s="$secs" -v w="$within" 'BEGIN { exit !(s >= w) }'; }; then
    bad "the job did not end within ${within}s (a hang)"
elif [ $want = pass ]; then
    [ $rc = 0 ] || bad "status $rc; this misuse must be handled without failing"
else
    [ $rc != 0 ] || bad "the job succeeded; the misuse went unnoticed"
    # A clean error ends the job through the library, not through a crash.
    if [ $rc -ge 128 ] && [ $rc -le 165 ]; then
        bad "status $rc: the job died of signal $((rc - 128)) instead of reporting the error"
    fi
fi
if grep -E -q 'SIG(SEGV|BUS|ILL|FPE|ABRT)|signal (4|6|7|8|11)([^0-9]|$)|Segmentation fault|core dumped|AddressSanitizer|runtime error:' "$out"; then
    bad "a crash or sanitizer report instead of a clean error:
$(grep -E 'SIG(SEGV|BUS|ILL|FPE|ABRT)|signal (4|6|7|8|11)([^0-9]|$)|Segmentation fault|core dumped|AddressSanitizer|runtime error:' "$out" | head -n 3)"
fi
for p in "${pats[@]}"; do
    grep -E -q -- "$p" "$out" || bad "no line of the output matches '$p'"
done
[ $problems = 0 ] || exit 1
echo "ok: $want as expected, ${secs}s"
