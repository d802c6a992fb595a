#!/usr/bin/env bash
# Runs a job whose PEs wait for each other and checks what the watchdog
# (src/core/watchdog.h) makes of it; tests/coll/watchdog.cases uses it.
# Usage: watchdog.sh [--within S] [--status N | --silent SECS] [-e REGEX]... -- COMMAND...
#   default      every REGEX must match a line of the output (stdout and
#                stderr) within S seconds (default 20) while the job runs,
#                and the job must still run 2 s after the last one
#                appeared (a report does not end it); the job is then
#                ended here (SIGTERM to its process group) and the check
#                passes
#   --status N   the job must end by itself within S seconds with status
#                N, every REGEX matching
#   --silent T   the job must run T seconds without a line that mentions
#                the watchdog (and without ending); then it is ended here
set -u
within=20; status=""; silent=""; pats=()
while [ $# -gt 0 ]; do
    case "$1" in
    --within) within=$2; shift 2 ;;
    --status) status=$2; shift 2 ;;
    --silent) silent=$2; shift 2 ;;
    -e) pats+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) break ;;
    esac
done
[ $# -gt 0 ] || { echo "usage: watchdog.sh [--within S] [--status N | --silent T] [-e RE]... -- CMD..."; exit 2; }
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo
out=$(mktemp "${TMPDIR:-/tmp}/weft-watchdog.XXXXXX")
# In a process group of its own (setsid execs the command: a background
# job of a script is no group leader), so that the PEs end with it.
setsid "$@" >"$out" 2>&1 </dev/null &
pid=$!
ended=0
stop() {
    [ $ended = 1 ] && return
    kill -TERM -- "-$pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL -- "-$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    ended=1
}
trap 'stop; rm -f "$out"' EXIT
trap 'exit 1' TERM INT HUP
alive() { kill -0 "$pid" 2>/dev/null; }
all_match() {
    local p
    for p in "${pats[@]}"; do grep -E -q -- "$p" "$out" || return 1; done
}
problems=0
bad() { echo "FAIL: $*"; problems=$((problems + 1)); }
t0=$SECONDS

if [ -n "$silent" ]; then
    while alive && [ $((SECONDS - t0)) -lt "$silent" ]; do sleep 0.2; done
    alive || bad "the job ended within ${silent}s"
    grep -i -q watchdog "$out" && bad "a line mentions the watchdog"
elif [ -n "$status" ]; then
    while alive && [ $((SECONDS - t0)) -lt "$within" ]; do sleep 0.2; done
    if alive; then
        bad "the job did not end within ${within}s"
    else
        wait "$pid"; rc=$?; ended=1
        [ "$rc" = "$status" ] || bad "status $rc, not $status"
    fi
    all_match || bad "not every pattern matched a line"
else
    while alive && ! all_match && [ $((SECONDS - t0)) -lt "$within" ]; do sleep 0.2; done
    if ! all_match; then
        bad "not every pattern matched a line within ${within}s (a silent hang?)"
    elif sleep 2 && ! alive; then
        bad "the job ended after the report: the watchdog must only report"
    fi
fi
tail -n 25 "$out"
echo "--- after $((SECONDS - t0))s: $*"
for p in "${pats[@]}"; do
    grep -E -q -- "$p" "$out" || echo "no line matches '$p'"
done
[ $problems = 0 ] || exit 1
echo "ok"
