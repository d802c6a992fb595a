#!/usr/bin/env bash
# oshrun is killed with SIGKILL while its PEs are at one point of a run
# (tools/oshrun_spawn.c, tools/oshrun_sweep.c):
#   - within 2 s no process of the job is left (PEs, and with "wrap" the
#     shell between oshrun and each PE and the PE under it; 2 s of this
#     machine's time: less the scheduling delay measured meanwhile, at most
#     2 s of it, tests/isolation/sched_delay.sh);
#   - the next oshrun of the same user (same TMPDIR) runs, and afterwards
#     nothing of the killed job is left in /dev/shm (named after one of its
#     processes, or a heap object of its namespace) nor in TMPDIR.
#
#   launcher_kill.sh POINT [wrap|setsid]
#
# POINT: startup (oshrun killed as soon as both PEs exist: PEs being
# started or connecting), init (PE 0 in shmem_init, PE 1 not there yet),
# barrier, reduce, wait (PE 0 spinning in shmem_barrier_all,
# shmem_long_sum_reduce or shmem_long_wait_until while PE 1 sleeps; see
# dead_pe.c, -f hang), random (at a random moment of the first 1.5 s of a
# job that ends in a barrier: fork, exec, PMIx connection, heap set-up,
# start-up exchange or the barrier, whichever it hits). wrap: each PE runs under /bin/sh, which is oshrun's
# child (not exec'd), so that the PE is oshrun's grandchild. setsid: each PE
# runs in a session (and process group) of its own, out of reach of the
# signal that oshrun's death sends to the PE's group: only the PE's own
# watch of its PMIx connection ends it (src/boot/launcher_watch.c), so
# only for points after shmem_init. The transport
# comes from the environment (SHMEM_LOCAL, SHMEM_OFI_PROVIDER, ...).
set -u
point=${1:?usage: launcher_kill.sh POINT [wrap|setsid]}
wrap=${2:-}
S=${S:-..}; B=${B:-.}
OSHRUN=${OSHRUN:-$B/tools/oshrun}
LIMIT=2.0
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo
[ -x "$B/tests/isolation/dead_pe" ] || { echo "FAIL: dead_pe is missing (make check builds it)"; exit 1; }

. "$S/tests/isolation/dead_pe_setup.sh"
dead_pe_setup launcher
export TMPDIR=$work/tmp
mkdir -m 700 "$TMPDIR"
# Every process of the killed job, and only those, carry this in their
# environment.
tag=WEFT_LAUNCHER_KILL_TEST=$$.$RANDOM

# Live (not zombie) processes whose environment holds the tag (one grep
# over every environment: quick even on a loaded machine).
tagged() {
    local f pid st
    for f in $(grep -l -s -z -x -F "$tag" /proc/[0-9]*/environ); do
        pid=${f#/proc/}; pid=${pid%/environ}
        st=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)
        [ -n "$st" ] && [ "$st" != Z ] && echo "$pid"
    done
    # Succeed whatever the last process was: callers test the list, and a
    # last one that was a zombie must not end their waiting loop early.
    return 0
}

prog=("$real" -r 1 -f hang -d 200)
case $point in
startup) prog+=(-p wait) ;;
init) prog+=(-p start) ;;
barrier | reduce | wait) prog+=(-p "$point") ;;
random) prog+=(-p barrier) ;;
*) echo "usage: launcher_kill.sh startup|init|barrier|reduce|wait|random [wrap|setsid]"; exit 2 ;;
esac
# Under "wrap" the shell runs the PE as its child and waits for it.
[ "$wrap" = wrap ] && prog=(/bin/sh -c '"$@"; exit $?' sh "${prog[@]}")
if [ "$wrap" = setsid ]; then
    command -v setsid >/dev/null || { echo "skipped: no setsid"; exit 77; }
    prog=(setsid -w "${prog[@]}")
fi

env "$tag" "$OSHRUN" -n 2 "${prog[@]}" >"$work/out" 2>"$work/err" </dev/null &
osh=$!
show() { sed 's/^/  out| /' "$work/out"; sed 's/^/  err| /' "$work/err"; }
if [ "$point" = random ]; then
    at=$((RANDOM % 1500))
    sleep "$(awk -v ms=$at 'BEGIN { printf "%.3f", ms / 1000 }')"
    point="random ($at ms)"
elif [ "$point" = startup ]; then
    # As soon as both PEs exist: they are being started, or connecting.
    for _ in $(seq 1000); do
        [ "$(tagged | wc -l)" -ge 3 ] && break
        kill -0 $osh 2>/dev/null || break
        sleep 0.01
    done
else
    # PE 1 announces its hang; the others are in their wait 300 ms later.
    for _ in $(seq 600); do
        grep -q "^failing at" "$work/err" && [ "$(grep -c '^PE [0-9]* pid' "$work/out")" = 2 ] && break
        kill -0 $osh 2>/dev/null || break
        sleep 0.1
    done
    grep -q "^failing at" "$work/err" || { bad "$point: the job never reached its wait"; show; }
    sleep 0.3
fi
before=$(tagged)
pes=$(sed -n 's/^PE [0-9]* pid \([0-9]*\)$/\1/p' "$work/out" | sort -u)
if [ -n "$wrap" ] && [ "$point" != startup ]; then
    for p in $pes; do
        pp=$(awk '{ print $4 }' "/proc/$p/stat" 2>/dev/null)
        [ "$pp" != "$osh" ] || bad "$point wrap: PE pid $p is oshrun's child, not its grandchild"
    done
fi
kill -9 $osh
t_kill=$EPOCHREALTIME
wait $osh 2>/dev/null
while left=$(tagged) && [ -n "$left" ] &&
    sched_within "$t_kill" "$EPOCHREALTIME" $LIMIT; do
    sleep 0.05
done
t_end=$EPOCHREALTIME
secs=$(awk -v a="$t_kill" -v b="$t_end" 'BEGIN { printf "%.2f", b - a }')
late=$(sched_late "$t_kill" "$t_end")
if [ -n "$left" ]; then
    bad "$point${wrap:+ $wrap}: processes left ${secs}s after oshrun was killed (scheduling delay meanwhile ${late}s): $(ps -o pid=,stat=,args= -p "$(echo $left | tr ' ' ,)" | tr '\n' ';')"
    kill -9 $left 2>/dev/null
fi

# The next job of this user cleans up after the killed one.
"$OSHRUN" -n 2 "$real" -p none >"$work/out2" 2>&1 </dev/null ||
    { bad "$point: the next job failed"; sed 's/^/  next| /' "$work/out2"; }
all=$( (echo "$before"; echo "$pes") | sort -u)
# Entries the killed job can have made (tests/isolation/leftovers.sh).
shm_then=$(ls /dev/shm 2>/dev/null |
    while read -r n; do made_by "/dev/shm/$n" "$t_end" && echo "$n"; done)
for p in $all; do
    new=$(printf '%s\n' "$shm_then" | grep -E "(^|[^0-9])$p([^0-9]|$)")
    [ -z "$new" ] || bad "$point${wrap:+ $wrap}: left in /dev/shm by pid $p: $(echo $new)"
done
new=$(printf '%s\n' "$shm_then" | grep -E "^weft-oshrun$osh-")
[ -z "$new" ] || bad "$point${wrap:+ $wrap}: heap objects left in /dev/shm: $(echo $new)"
# TMPDIR is the two jobs' own: the next one removed its own things too.
[ -z "$(ls -A "$TMPDIR")" ] || bad "$point${wrap:+ $wrap}: left in TMPDIR: $(ls -A "$TMPDIR")"
[ $errs = 0 ] || { echo "FAIL: $errs problems"; exit 1; }
echo "ok: oshrun killed at $point${wrap:+ ($wrap)}: $(echo $before | wc -w) processes gone within ${secs}s (scheduling delay meanwhile ${late}s); the next job left nothing of it"
