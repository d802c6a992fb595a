#!/usr/bin/env bash
# A process that oshrun did not start attacks a running oshrun job through
# its PMIx server (docs/security.md, "oshrun's PMIx server").
#
# Usage: pmix_attack.sh MODE
#   forged  another user, claiming uid 0 (tests/security/uid0_shim.c): with
#           libpmix's native security over TCP that used to be enough to
#           join as rank 1, read PE 0's heap descriptor and PMIx_Abort(99)
#           the job.
#   plain   another user, no forging: libpmix itself refused the handshake
#           and oshrun then hung for ever in PMIx_server_finalize after the
#           job had finished.
#   same    the job's own user from outside the job (another job's process).
#   early   as forged, but before any PE has connected (the PEs wait for the
#           attack to end): the listener must go on to accept the PEs.
# Every attempt must be refused (and reported by oshrun), and the job must
# end by itself with status 0 and its normal output, within a bound.
# Runs as root to create the second user (skips otherwise); "same" runs as
# any user.
set -u
mode=${1:?usage: pmix_attack.sh forged|plain|same|early}
B=${B:-.}
OSHRUN=${OSHRUN:-$B/tools/oshrun}
npes=2
# Seconds for the job to start, for the intruder, and for oshrun to exit
# once its PEs have been told to finish (the PEs need well under a second).
start_limit=60
intruder_limit=70
exit_limit=30

skip() { echo "skipped: $*"; exit 77; }
fail() {
    echo "FAIL: $*"
    for f in intruder.out job.out job.err; do
        [ -f "$work/$f" ] && { echo "--- $f"; cat "$work/$f"; }
    done
    exit 1
}

case $mode in forged|plain|same|early) ;; *) echo "unknown mode $mode"; exit 2 ;; esac
[ "$mode" = same ] || [ "$(id -u)" = 0 ] ||
    skip "needs root (creates a second user)"
shim=$B/tests/security/.libs/libuid0_shim.so
[ -f "$shim" ] || { echo "missing $shim (make check builds it)"; exit 1; }
if [ "$mode" != same ]; then
    command -v useradd >/dev/null && command -v setpriv >/dev/null ||
        skip "useradd or setpriv not available"
fi

# In /tmp, not $TMPDIR: the second user must reach the intruder's copy.
work=$(mktemp -d /tmp/weftt_sec.XXXXXX) || exit 1
chmod 755 "$work"
user="" opid="" ipid=""
cleanup() {
    [ -n "$ipid" ] && kill -9 "$ipid" 2>/dev/null
    if [ -n "$opid" ] && kill -0 "$opid" 2>/dev/null; then
        # the job's PEs (oshrun's children) first, then oshrun itself
        for c in $(ps -o pid= --ppid "$opid"); do kill -9 "$c" 2>/dev/null; done
        kill -9 "$opid" 2>/dev/null
    fi
    if [ -n "$user" ]; then
        userdel -r "$user" >/dev/null 2>&1 || userdel "$user" >/dev/null 2>&1
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# The intruder runs from a copy the other user can read.
mkdir -m 777 "$work/itmp"
cp "$B/tests/security/pmix_intruder" "$shim" "$work/" || exit 1
chmod 755 "$work/pmix_intruder" "$work/libuid0_shim.so"
as_intruder=()
preload=()
if [ "$mode" != same ]; then
    user=weftt_sec_$$
    useradd -M -N -s /usr/sbin/nologin "$user" >/dev/null 2>&1 || {
        user=""
        skip "cannot create a second user with useradd"
    }
    as_intruder=(setpriv --reuid="$user" --regid="$(id -g "$user")"
                 --clear-groups)
    "${as_intruder[@]}" test -x "$work/pmix_intruder" ||
        skip "cannot run a program as the second user (setpriv)"
fi
case $mode in forged|early) preload=("LD_PRELOAD=$work/libuid0_shim.so") ;; esac

# oshrun's PMIx listener: the loopback socket in LISTEN state (0A) that is
# one of oshrun's descriptors. An attacker tries each loopback listener of
# the victim's uid; this test names the one port, so that it never touches
# another job that shares the node.
listener_port() {
    local inodes hexport
    inodes=" $(for f in /proc/$opid/fd/*; do readlink "$f"; done 2>/dev/null |
        sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p' | tr '\n' ' ')"
    hexport=$(awk -v want="$inodes" '$4 == "0A" && index(want, " " $10 " ") {
        split($2, a, ":"); print a[2]; exit }' /proc/net/tcp)
    [ -n "$hexport" ] && echo $((16#$hexport))
}

victim=("$B/tests/security/sec_victim" "$work")
if [ "$mode" = early ]; then
    # Each PE waits for the attack to be over before it starts the program.
    victim=(sh -c 'while [ ! -e "$0/attacked" ]; do sleep 0.05; done; exec "$1" "$0"'
            "$work" "$B/tests/security/sec_victim")
fi
"$OSHRUN" -n $npes "${victim[@]}" >"$work/job.out" 2>"$work/job.err" &
opid=$!
port=""
for ((i = 0; i < start_limit * 10; i++)); do
    if [ "$mode" = early ]; then
        port=$(listener_port) && break
    else
        [ -e "$work/ready" ] && break
    fi
    kill -0 "$opid" 2>/dev/null || fail "the job ended before it was attacked"
    sleep 0.1
done
[ "$mode" = early ] || [ -e "$work/ready" ] ||
    fail "the job did not start within ${start_limit}s"
[ -n "$port" ] || port=$(listener_port) ||
    fail "cannot find oshrun's PMIx port in /proc/net/tcp"
echo "attacking oshrun pid $opid, namespace oshrun.$opid, port $port ($mode)"

"${as_intruder[@]}" env -i PATH=/usr/bin:/bin TMPDIR="$work/itmp" \
    "${preload[@]}" "$work/pmix_intruder" "$opid" "$port" 1 \
    >"$work/intruder.out" 2>&1 &
ipid=$!
for ((i = 0; i < intruder_limit * 10; i++)); do
    kill -0 "$ipid" 2>/dev/null || break
    sleep 0.1
done
kill -0 "$ipid" 2>/dev/null && fail "the intruder did not end in ${intruder_limit}s"
wait "$ipid"
irc=$?
ipid=""
cat "$work/intruder.out"
touch "$work/attacked"
for ((i = 0; i < start_limit * 10; i++)); do
    [ -e "$work/ready" ] && break
    kill -0 "$opid" 2>/dev/null || break
    sleep 0.1
done

touch "$work/go"
for ((i = 0; i < exit_limit * 10; i++)); do
    kill -0 "$opid" 2>/dev/null || break
    sleep 0.1
done
if kill -0 "$opid" 2>/dev/null; then
    fail "oshrun did not exit within ${exit_limit}s after its PEs were told to finish"
fi
wait "$opid"
orc=$?
opid=""
cat "$work/job.out" "$work/job.err"
echo "intruder status $irc, job status $orc"

if [ "${#preload[@]}" != 0 ]; then
    grep -q '^intruder: uid [1-9][0-9]*, claims uid 0$' "$work/intruder.out" ||
        fail "the intruder did not run as another user claiming uid 0"
fi
grep -q '^intruder: PMIx_Init: refused' "$work/intruder.out" ||
    fail "the intruder's PMIx_Init was not refused"
grep -q 'succeeded' "$work/intruder.out" && fail "an attempt succeeded"
[ $irc = 0 ] || fail "the intruder ended with status $irc"
[ $orc = 0 ] || fail "the job ended with status $orc, not 0"
grep -q "^sec_victim: $npes PEs, [0-9]* rounds, sums right$" "$work/job.out" ||
    fail "the job's output is not what it prints when all went well"
grep -q "^oshrun: refused a connection to the job's PMIx server from local port [0-9]* (uid [0-9]*): not one of the job's PEs" \
    "$work/job.err" || fail "oshrun did not report the refused connection"
echo "PASS: refused, and the job ended with status 0"
