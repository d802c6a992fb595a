#!/usr/bin/env bash
# A local job that the node cannot hold, or that is stopped while it starts,
# ends at once with a message, and leaves no PE and no oshrun directory.
#   spawn_limits.sh nproc
#       as a second user (created here; needs root, useradd and setpriv)
#       under ulimit -u 120: -n 100000 and -n 100 are refused before any
#       PE starts, naming -n, the value and the limit; -n 40 with PEs that
#       fork two more processes each runs out of processes while starting
#       and ends within seconds ("cannot start PE N: ..." or the PE that
#       could not fork).
#   spawn_limits.sh nofile
#       under ulimit -n 64, -n 40: "cannot start PE N: cannot create its
#       pipes: ..." naming the limit, the PEs started are removed.
#   spawn_limits.sh sigterm
#       SIGTERM while -n 1000 PEs are being started stops the starting
#       (fewer than 1000 started), ends the job within 10 s with status 143
#       and the usual message, and no PE is left.
#   spawn_limits.sh oom
#       a PE killed by the out-of-memory killer of a memory cgroup (made
#       here, 64 MiB; needs root and a memory controller) is reported as
#       such; a PE killed by kill -9 in the same cgroup is reported plainly.
set -u
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo
oshrun=${OSHRUN:-tools/oshrun}
mode=${1:-}

skip() { echo "skipped: $*"; exit 77; }
work=$(mktemp -d /tmp/weftt_spawn.XXXXXX) || exit 1
chmod 755 "$work"
user="" cg="" opid="" pe_name=wtpe$$
cleanup() {
    if [ -n "$opid" ] && kill -0 "$opid" 2>/dev/null; then
        pkill -KILL -P "$opid" 2>/dev/null
        kill -KILL "$opid" 2>/dev/null
    fi
    pkill -KILL -x "$pe_name" 2>/dev/null
    if [ -n "$user" ]; then
        pkill -KILL -u "$user" 2>/dev/null
        sleep 0.2
        userdel "$user" >/dev/null 2>&1
    fi
    [ -n "$cg" ] && { sleep 0.2; rmdir "$cg" 2>/dev/null; }
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
fail() {
    echo "FAIL: $*"
    [ -f "$work/out" ] && sed 's/^/    /' "$work/out"
    exit 1
}

# The job's PEs run a copy of sleep with a name of their own, so that what
# is left of them can be looked for by name.
cp /bin/sleep "$work/$pe_name" && chmod 755 "$work/$pe_name" || exit 1
mkdir -m 777 "$work/tmp"
export TMPDIR=$work/tmp

# The live processes (not zombies) among the pids given: a zombie is dead,
# and one whose parent died waits for init to reap it, which on a loaded
# machine can take a while after oshrun has ended.
live_of() {
    local pid stat out=""
    for pid in "$@"; do
        stat=$(ps -o stat= -p "$pid" 2>/dev/null) || continue
        case "$stat" in Z*) ;; *) out="$out $pid" ;; esac
    done
    echo "$out"
}

# Nothing of the job may be left: no process named pe_name (or, for
# nproc, none of the second user) and no oshrun directory in TMPDIR.
# Processes get 2 s to go (a killed PE's children end asynchronously).
check_clean() {
    local left tries=0
    while :; do
        sleep 0.2
        left=$(pgrep -x "$pe_name")
        [ -n "$user" ] && left="$left $(pgrep -u "$user")"
        left=$(live_of $left)
        [ -z "${left// /}" ] || [ $((tries += 1)) -ge 10 ] && break
    done
    if [ -n "${left// /}" ]; then
        ps -o pid,user,args -p "$(echo $left | tr ' ' ',')" 2>/dev/null
        fail "$1: processes of the job are left: $left"
    fi
    [ -z "$(ls -A "$TMPDIR")" ] ||
        fail "$1: oshrun left $(ls -A "$TMPDIR") in TMPDIR"
}

# run_within SECS EXPECTED_STATUS REGEX [cmd...]: cmd ends within SECS with
# that status and a line of its output matches REGEX.
run_within() {
    local secs=$1 want=$2 re=$3 rc t0=$SECONDS
    shift 3
    timeout -k 1 "$secs" "$@" >"$work/out" 2>&1 </dev/null
    rc=$?
    cat "$work/out"
    [ $((SECONDS - t0)) -ge "$secs" ] && fail "not ended within $secs s"
    [ "$want" = any ] && [ $rc = 0 ] && fail "status 0"
    [ "$want" = any ] || [ $rc = "$want" ] || fail "status $rc, expected $want"
    grep -q -E "$re" "$work/out" || fail "no line matching: $re"
}

case $mode in
nproc)
    [ "$(id -u)" = 0 ] || skip "needs root (creates a second user)"
    command -v useradd >/dev/null && command -v setpriv >/dev/null ||
        skip "useradd or setpriv not available"
    user=weftt_np$$
    useradd -M -N -s /usr/sbin/nologin "$user" >/dev/null 2>&1 || {
        user=""
        skip "cannot create a second user with useradd"
    }
    chown "$user" "$TMPDIR"
    # Root is not held by RLIMIT_NPROC: the limit binds the second user.
    as_user=(setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups
             bash -c 'ulimit -u 120 && exec "$@"' as_user)
    "${as_user[@]}" true || skip "cannot run a program as the second user"
    run_within 5 2 "^oshrun: -n 100000 is more PEs than oshrun starts on one node \(at most [0-9]+" \
        "${as_user[@]}" "$oshrun" -n 100000 "$work/$pe_name" 60
    check_clean "-n 100000"
    run_within 5 2 "^oshrun: -n 100 needs at least 200 processes and threads .*ulimit -u.* the limit is 120 and [0-9]+ are in use" \
        "${as_user[@]}" "$oshrun" -n 100 "$work/$pe_name" 60
    check_clean "-n 100"
    run_within 15 any "^oshrun: (cannot start PE [0-9]+: cannot fork: .*ulimit -u.*|PE [0-9]+ \(pid [0-9]+\) exited with status [0-9]+.*)" \
        "${as_user[@]}" "$oshrun" -n 40 sh -c '"$0" 60 & "$0" 60 & wait' "$work/$pe_name"
    check_clean "-n 40, 3 processes a PE"
    echo "ok: refused up front, or ended at the PE that could not start; nothing left"
    ;;
nofile)
    ulimit -n 64 || skip "cannot set ulimit -n"
    run_within 10 1 "^oshrun: cannot start PE [0-9]+: cannot create its pipes: Too many open files \(.*limit on open files is 64.*\); stopping the [0-9]+ PEs started$" \
        "$oshrun" -n 40 "$work/$pe_name" 60
    check_clean "ulimit -n 64"
    echo "ok: cannot start PE N named with the limit; nothing left"
    ;;
sigterm)
    n=1000
    "$oshrun" -n $n sh -c 'echo $$ >> "$0/started"; exec "$0/'"$pe_name"'" 60' \
        "$work" >"$work/out" 2>&1 </dev/null &
    opid=$!
    for _ in $(seq 400); do
        [ -s "$work/started" ] && break
        kill -0 $opid 2>/dev/null || break
        sleep 0.05
    done
    if ! [ -s "$work/started" ]; then
        wait $opid
        grep -q "^oshrun: -n $n needs" "$work/out" && skip "this node cannot hold $n PEs"
        fail "no PE started within 20 s"
    fi
    kill -TERM $opid
    t0=$EPOCHREALTIME
    for _ in $(seq 100); do
        kill -0 $opid 2>/dev/null || break
        sleep 0.1
    done
    kill -0 $opid 2>/dev/null && fail "oshrun still runs 10 s after SIGTERM ($(wc -l <"$work/started") PEs started)"
    wait $opid
    rc=$?
    opid=""
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    started=$(wc -l <"$work/started")
    cat "$work/out"
    [ $rc = 143 ] || fail "status $rc after SIGTERM, expected 143"
    grep -q -x "oshrun: stopped by signal 15 (SIGTERM): passing it to the PEs and ending the job (status 143)" "$work/out" ||
        fail "no line saying that SIGTERM stopped the job"
    [ "$started" -lt $n ] || fail "all $n PEs were started after SIGTERM"
    for p in $(cat "$work/started"); do
        kill -0 "$p" 2>/dev/null && fail "PE pid $p still runs after oshrun ended"
    done
    check_clean "SIGTERM"
    echo "ok: SIGTERM after $started of $n PEs started; ended in ${secs}s, nothing left"
    ;;
oom)
    [ "$(id -u)" = 0 ] || skip "needs root (makes a memory cgroup)"
    # The memory cgroup of this shell, under cgroup v2 or v1.
    if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
        parent=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)
        limit_file=memory.max
    else
        parent=/sys/fs/cgroup/memory$(sed -n 's/^[0-9]*:[^:]*\bmemory\b[^:]*://p' /proc/self/cgroup)
        limit_file=memory.limit_in_bytes
    fi
    cg=$parent/weftt_oom$$
    mkdir "$cg" 2>/dev/null || { cg=""; skip "cannot make a cgroup under $parent"; }
    echo $((64 << 20)) >"$cg/$limit_file" 2>/dev/null ||
        skip "no memory controller in $cg"
    [ -f "$cg/memory.swap.max" ] && echo 0 >"$cg/memory.swap.max"
    [ -f "$cg/memory.memsw.limit_in_bytes" ] &&
        echo $((64 << 20)) >"$cg/memory.memsw.limit_in_bytes" 2>/dev/null
    in_cg=(bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg")
    # PE 1 reads 400 MB into a shell variable; PE 0 waits.
    run_within 60 137 "^oshrun: PE 1 \(pid [0-9]+\) was killed by signal 9 \(SIGKILL\): the kernel's out-of-memory killer ended [0-9]+ process(es)? of the job's cgroup while it ran .*; stopping the job$" \
        "${in_cg[@]}" "$oshrun" -n 2 bash -c '[ "$PMIX_RANK" = 1 ] && x=$(head -c 400000000 /dev/zero | tr "\0" a); exec "$0" 60' "$work/$pe_name"
    check_clean "out of memory"
    run_within 30 137 "^oshrun: PE 1 \(pid [0-9]+\) was killed by signal 9 \(SIGKILL\); stopping the job$" \
        "${in_cg[@]}" "$oshrun" -n 2 bash -c '[ "$PMIX_RANK" = 1 ] && kill -9 $$; exec "$0" 60' "$work/$pe_name"
    check_clean "kill -9"
    echo "ok: the out-of-memory kill is named; a plain SIGKILL is not"
    ;;
*)
    echo "usage: spawn_limits.sh nproc|nofile|sigterm|oom"
    exit 2
    ;;
esac
