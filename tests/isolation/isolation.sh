#!/usr/bin/env bash
# Two oshrun jobs of the same user on the same node at the same time:
#   isolation.sh concurrent   both jobs check their own data (tags 11, 22);
#                             while both are paused, the script checks that
#                             they share no shared-memory object and that
#                             nothing they created is open to group/others
#   isolation.sh kill         the same, then PE 1 of the first job gets
#                             SIGKILL: that job ends quickly with a message,
#                             the second one still passes
# Afterwards nothing of either job is left: no process, no oshrun temporary
# directory, no /dev/shm entry named after one of their processes.
# The environment (SHMEM_LOCAL, SHMEM_OFI_PROVIDER, SHMEM_HEAP_OBJECT, ...)
# applies to both jobs. Run by tests/run-tests (S, B, OSHRUN set).
set -u
mode=${1:-concurrent}
S=${S:-..}; B=${B:-.}
OSHRUN=${OSHRUN:-$B/tools/oshrun}
prog=$B/tests/isolation/iso_job
. "$S/tests/isolation/leftovers.sh"
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo
[ -x "$prog" ] || { echo "FAIL: $prog is missing (make check builds it)"; exit 1; }
[ -d /dev/shm ] || { echo "no /dev/shm on this machine"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/weft-iso.XXXXXX")
# Both launchers share one private TMPDIR: what they leave there is theirs.
export TMPDIR=$work/tmp
mkdir -m 700 "$TMPDIR" "$work/a" "$work/b"
pa=; pb=
cleanup() {
    [ -n "$pa" ] && kill -9 "$pa" 2>/dev/null
    [ -n "$pb" ] && kill -9 "$pb" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
errs=0
bad() { echo "FAIL: $*"; errs=$((errs + 1)); }
show() { for j in a b; do sed "s/^/  job $j| /" "$work/$j.out"; done; }

ls /dev/shm | sort >"$work/shm.before"
ls /tmp | sort >"$work/tmp.before"
"$OSHRUN" -n 2 "$prog" 11 "$work/a" 20 >"$work/a.out" 2>&1 </dev/null &
pa=$!
"$OSHRUN" -n 2 "$prog" 22 "$work/b" 20 >"$work/b.out" 2>&1 </dev/null &
pb=$!

# Both jobs reach their pause.
for i in $(seq 1 1200); do
    [ -f "$work/a/ready" ] && [ -f "$work/b/ready" ] && break
    if ! kill -0 "$pa" 2>/dev/null || ! kill -0 "$pb" 2>/dev/null; then
        show; echo "FAIL: a job ended before its pause"; exit 1
    fi
    sleep 0.1
done
[ -f "$work/a/ready" ] && [ -f "$work/b/ready" ] || { show; echo "FAIL: the jobs did not reach their pause"; exit 1; }
pids_a=$(cat "$work"/a/pid.*); pids_b=$(cat "$work"/b/pid.*)
echo "job a: oshrun $pa, PEs" $pids_a "; job b: oshrun $pb, PEs" $pids_b

# Shared-memory objects a process maps or holds open, as "dev:inode path".
objects() {
    local pid=$1 fd t
    awk '$6 ~ /^\/dev\/shm\// || $6 ~ /^\/memfd:/ { print $4 ":" $5, $6 }' \
        "/proc/$pid/maps" 2>/dev/null
    for fd in /proc/$pid/fd/*; do
        t=$(readlink "$fd" 2>/dev/null) || continue
        case "$t" in
        /dev/shm/*|/memfd:*) echo "$(stat -L -c '%D:%i' "$fd" 2>/dev/null) $t" ;;
        esac
    done
}
# Modes of the objects behind the descriptors (memfds included, deleted or not).
check_modes() {
    local pid=$1 fd t m
    for fd in /proc/$pid/fd/*; do
        t=$(readlink "$fd" 2>/dev/null) || continue
        case "$t" in
        /dev/shm/*|/memfd:*|"$TMPDIR"/*) ;;
        *) continue ;;
        esac
        m=$(stat -L -c '%a' "$fd" 2>/dev/null) || continue
        [ $((8#$m & 8#077)) = 0 ] || bad "PE pid $pid holds $t with mode $m (open to group/others)"
    done
}
for p in $pids_a $pids_b; do check_modes "$p"; done
for p in $pids_a; do objects "$p"; done | awk '{print $1}' | sort -u >"$work/obj.a"
for p in $pids_b; do objects "$p"; done | awk '{print $1}' | sort -u >"$work/obj.b"
echo "shared-memory objects: job a $(wc -l <"$work/obj.a"), job b $(wc -l <"$work/obj.b")"
common=$(comm -12 "$work/obj.a" "$work/obj.b")
[ -z "$common" ] || bad "the two jobs map the same shared-memory objects: $common"

# Files and directories the jobs created: nothing open to others; the
# launchers' own directories private (group bits inside them are harmless:
# nobody else can get through the parent).
open_tmp=$(find "$TMPDIR" -mindepth 1 -perm /007 ! -type l -printf '%m %p\n' 2>/dev/null)
[ -z "$open_tmp" ] || bad "open to others in the launchers' temporary directories:
$open_tmp"
open_top=$(find "$TMPDIR" -mindepth 1 -maxdepth 1 -perm /077 -printf '%m %p\n' 2>/dev/null)
[ -z "$open_top" ] || bad "a launcher's temporary directory is not private: $open_top"
find "$TMPDIR" -mindepth 2 -perm /070 ! -type l -printf '  note: group access inside a private directory: %m %p\n'
ls -la "$TMPDIR" | sed 's/^/  tmp| /'
ourpids="$pa $pb $pids_a $pids_b"
me=$(id -u)
# An entry of /dev/shm or /tmp belongs to the jobs if it appeared after they
# started (not in the list taken before), this user owns it and its name
# holds one of their pids. Entries of other programs on a busy machine (an
# old directory whose name happens to hold such a number, another user's
# files) are not the jobs' to judge.
ours() {
    local name=$1 p
    for p in $ourpids; do
        [[ "$name" =~ (^|[^0-9])$p([^0-9]|$) ]] && return 0
    done
    return 1
}
ours_in() {
    local d=$1 name=$2
    ours "$name" && [ "$(stat -c '%u' "$d/$name" 2>/dev/null)" = "$me" ]
}
# What appeared in d (/dev/shm, /tmp) since the list "$work/$2.before".
new_in() { comm -13 "$work/$2.before" <(ls "$1" | sort); }
# Modes of anything named after them directly in /dev/shm or /tmp (outside
# the TMPDIR given to them).
for d in /dev/shm:shm /tmp:tmp; do
    while read -r name; do
        ours_in "${d%:*}" "$name" || continue
        m=$(stat -c '%a' "${d%:*}/$name" 2>/dev/null) || continue
        echo "  ${d%:*}/$name mode $m"
        [ $((8#$m & 8#077)) = 0 ] || bad "${d%:*}/$name has mode $m (open to group/others)"
    done < <(new_in "${d%:*}" "${d#*:}")
done

if [ "$mode" = kill ]; then
    victim=$(cat "$work/a/pid.1")
    t0=$EPOCHREALTIME
    kill -9 "$victim"
    wait "$pa"; rca=$?; pa=
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    echo "job a ended with status $rca ${secs}s after SIGKILL of PE 1"
    [ "$rca" != 0 ] || bad "job a succeeded although one of its PEs was killed"
    awk -v s="$secs" 'BEGIN { exit !(s < 10) }' || bad "job a took ${secs}s to end"
    grep -q "signal 9" "$work/a.out" || bad "job a's output does not say a PE was killed by signal 9"
    touch "$work/b/go"
    wait "$pb"; rcb=$?; pb=
    [ "$rcb" = 0 ] || bad "job b failed (status $rcb) after a PE of job a was killed"
else
    touch "$work/a/go" "$work/b/go"
    wait "$pa"; rca=$?; pa=
    wait "$pb"; rcb=$?; pb=
    [ "$rca" = 0 ] || bad "job a failed (status $rca)"
    [ "$rcb" = 0 ] || bad "job b failed (status $rcb)"
    grep -q "tag 11: 2 PEs, 40 rounds, 0 errors" "$work/a.out" || bad "job a did not report 0 errors"
fi
grep -q "tag 22: 2 PEs, 40 rounds, 0 errors" "$work/b.out" || bad "job b did not report 0 errors"

# Nothing left behind. PEs may take a moment to be reaped after oshrun.
sleep 0.5
for p in $pids_a $pids_b; do
    kill -0 "$p" 2>/dev/null && bad "PE process $p is still alive after its job ended"
done
t_gone=$EPOCHREALTIME
left=$(ls -A "$TMPDIR")
[ -z "$left" ] || bad "left in the launchers' TMPDIR: $left"
# Made by then: a later entry named after a recycled pid is another job's
# (tests/isolation/leftovers.sh).
while read -r name; do
    if ours_in /dev/shm "$name" && made_by "/dev/shm/$name" "$t_gone"; then
        bad "left in /dev/shm: $name ($(stat -c '%s bytes, mode %a' "/dev/shm/$name" 2>/dev/null))"
    fi
done < <(new_in /dev/shm shm)
while read -r name; do
    ours_in /tmp "$name" && made_by "/tmp/$name" "$t_gone" && bad "left in /tmp: $name"
done < <(new_in /tmp tmp)

show
if [ $errs != 0 ]; then
    echo "$errs problem(s)"
    exit 1
fi
echo "ok: $mode: two jobs side by side stayed apart and left nothing behind"
