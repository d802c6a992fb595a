#!/usr/bin/env bash
# What oshrun says about its own situation, checked as a user sees it.
#   oshrun_msgs.sh signal SIG
#       oshrun stopped by that signal (INT, TERM, HUP, USR1, ...: any whose
#       default action would end it) prints which one, exits with 128+signo
#       as shells expect, and neither a PE of the job nor its directory in
#       TMPDIR is left.
#   oshrun_msgs.sh tmpdir PROGRAM
#       a TMPDIR too long for oshrun's rendezvous directory gives one warning
#       naming TMPDIR, its length and the limit; the job runs from /tmp and
#       its PEs still see the user's TMPDIR.
set -u
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo
oshrun=${OSHRUN:-tools/oshrun}
dir=$(mktemp -d "${TMPDIR:-/tmp}/weft-oshrun-msgs.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; [ -f "$dir/out" ] && sed 's/^/    /' "$dir/out"; exit 1; }

case "${1:-}" in
signal)
    sig=$2
    num=$(kill -l "$sig") || fail "unknown signal $sig"
    # Each PE records its pid, then sleeps in place of the program. oshrun
    # makes its directory in a TMPDIR of its own, to be seen removed.
    mkdir "$dir/tmp"
    TMPDIR=$dir/tmp "$oshrun" -n 2 sh -c 'echo $$ > "$0/pe.$PMIX_RANK"; exec sleep 60' "$dir" \
        >"$dir/out" 2>&1 </dev/null &
    pid=$!
    for _ in $(seq 100); do
        [ -s "$dir/pe.0" ] && [ -s "$dir/pe.1" ] && break
        sleep 0.1
    done
    [ -s "$dir/pe.0" ] && [ -s "$dir/pe.1" ] || { kill -KILL $pid; fail "the PEs did not start"; }
    kill "-$sig" $pid
    t0=$EPOCHREALTIME
    wait $pid
    rc=$?
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    cat "$dir/out"
    [ "$rc" = $((128 + num)) ] || fail "status $rc after SIG$sig, expected $((128 + num))"
    grep -q -x "oshrun: stopped by signal $num (SIG$sig): passing it to the PEs and ending the job (status $((128 + num)))" "$dir/out" ||
        fail "no line saying which signal stopped the job"
    for r in 0 1; do
        p=$(cat "$dir/pe.$r")
        ! kill -0 "$p" 2>/dev/null || fail "PE $r (pid $p) still runs after oshrun ended"
    done
    [ -z "$(ls -A "$dir/tmp")" ] || fail "oshrun left $(ls -A "$dir/tmp") in TMPDIR"
    echo "ok: SIG$sig named, status $rc after ${secs}s, no PE and no directory left"
    ;;
tmpdir)
    prog=$2
    # Longer than any limit a path buffer of 256 bytes allows.
    long=$dir/$(printf 'x%.0s' $(seq 240))
    mkdir -p "$long" || fail "cannot create $long"
    TMPDIR=$long timeout 60 "$oshrun" -n 2 sh -c \
        'echo "PE $PMIX_RANK TMPDIR length ${#TMPDIR}"; exec "$0" none' "$prog" \
        >"$dir/out" 2>&1 </dev/null
    rc=$?
    cat "$dir/out"
    [ $rc = 0 ] || fail "status $rc with a long TMPDIR"
    n=$(grep -c -E "^oshrun: TMPDIR is ${#long} characters long, more than the [0-9]+ oshrun allows for its rendezvous directory; using /tmp \(the PEs keep TMPDIR\)$" "$dir/out")
    [ "$n" = 1 ] || fail "wanted one warning naming TMPDIR and its length ${#long}, got $n"
    [ "$(grep -c "TMPDIR length ${#long}\$" "$dir/out")" = 2 ] || fail "the PEs did not keep the user's TMPDIR"
    [ -z "$(ls -A "$long")" ] || fail "oshrun left files in the long TMPDIR"
    echo "ok: a TMPDIR of ${#long} characters is reported and replaced by /tmp for oshrun only"
    ;;
*)
    echo "usage: oshrun_msgs.sh signal SIG | tmpdir PROGRAM"
    exit 2
    ;;
esac
