#!/usr/bin/env bash
# Stale regions of libfabric's shm provider never break a job
# (transports/ofi/ofi_shm_region.c, tools/oshrun_sweep.c). Runs
# SHMEM_LOCAL=0 SHMEM_OFI_PROVIDER=shm jobs of 2 PEs with files planted in
# /dev/shm:
#   pe       planted by a shell between oshrun and each PE (after oshrun's
#            own sweep): the PEs remove this user's regions of a dead pid
#            (an empty one, a short one, one of Weft's names) and keep a
#            live process's region and one named for another uid;
#   oshrun   the same files planted before oshrun: oshrun removes them;
#   foreign  a second user (created here, removed at exit) plants files in
#            this user's region names: for a dead pid, and for each of the
#            next 64 pids (so that a PE that used the provider's own names
#            would find its name taken). The job still runs; the files stay
#            (they are not ours to remove) and a warning names one of them.
#   stale_regions.sh pe|oshrun|foreign   (OSHRUN, B from tests/run-tests)
set -u
mode=${1:?usage: stale_regions.sh pe|oshrun|foreign}
B=${B:-.}
OSHRUN=${OSHRUN:-$B/tools/oshrun}
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo SHMEM_LOCAL=0 SHMEM_OFI_PROVIDER=shm
[ -d /dev/shm ] && [ -w /dev/shm ] || { echo "skipped: no writable /dev/shm"; exit 77; }
prog=$B/tests/isolation/dead_pe
[ -x "$prog" ] || { echo "FAIL: $prog is missing (make check builds it)"; exit 1; }
uid=$(id -u)
work=$(mktemp -d "${TMPDIR:-/tmp}/weft-regions.XXXXXX")
planted=()
user=
cleanup() {
    for f in "${planted[@]}"; do rm -f "/dev/shm/$f"; done
    [ -z "$user" ] || userdel -r "$user" >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
sleep 0 & dead=$!
wait $dead
kill -0 $dead 2>/dev/null && { echo "skipped: pid $dead came back at once"; exit 77; }
errs=0
bad() { echo "FAIL: $*"; errs=$((errs + 1)); }

stale=("$dead:$uid:0" "$dead:$uid:1" "weftfi-$dead-0123456789abcdef-0")
keep=("$$:$uid:7" "$dead:$((uid + 1)):0")
planted=("${stale[@]}" "${keep[@]}")
plant_cmd=": >/dev/shm/${stale[0]} && echo x >/dev/shm/${stale[1]} && : >/dev/shm/${stale[2]}"
plant_cmd+=" && : >/dev/shm/${keep[0]} && : >/dev/shm/${keep[1]}"

run_job() {
    "$OSHRUN" -n 2 "$@" >"$work/out" 2>&1 </dev/null
    rc=$?
    [ $rc = 0 ] || { bad "$mode: the job ended with status $rc"; sed 's/^/  | /' "$work/out"; }
}

case $mode in
pe)
    run_job /bin/sh -c "umask 077 && $plant_cmd"' && exec "$@"' sh "$prog" -p none ;;
oshrun)
    (umask 077 && eval "$plant_cmd") || { echo "FAIL: cannot plant in /dev/shm"; exit 1; }
    run_job "$prog" -p none ;;
foreign)
    [ "$uid" = 0 ] || { echo "skipped: a second user needs root"; exit 77; }
    command -v useradd >/dev/null || { echo "skipped: no useradd"; exit 77; }
    user=weftt_sr_$$
    useradd -M -s /bin/sh "$user" >/dev/null 2>&1 || { user=; echo "skipped: useradd failed"; exit 77; }
    next=$(cat /proc/sys/kernel/ns_last_pid 2>/dev/null || echo 0)
    keep=("$dead:$uid:0")
    for i in $(seq 1 64); do keep+=("$((next + i)):$uid:0"); done
    planted=("${keep[@]}")
    (cd /dev/shm && su -s /bin/sh "$user" -c "touch ${keep[*]}") ||
        { echo "FAIL: the second user cannot plant in /dev/shm"; exit 1; }
    run_job "$prog" -p none
    grep -q -E "/dev/shm/[0-9]+:$uid:0 is named as a shared-memory region of user $uid but belongs to user $(id -u "$user")" "$work/out" ||
        { bad "foreign: no warning names one of the planted files"; sed 's/^/  | /' "$work/out"; }
    # Not guaranteed (other processes take pids too), but usual: a PE got
    # a pid whose default region name was taken.
    for p in $(sed -n 's/^PE [0-9]* pid \([0-9]*\)$/\1/p' "$work/out"); do
        [ -e "/dev/shm/$p:$uid:0" ] && echo "PE pid $p ran although /dev/shm/$p:$uid:0 was taken"
    done
    stale=() ;;
*) echo "usage: stale_regions.sh pe|oshrun|foreign"; exit 2 ;;
esac
for f in "${stale[@]}"; do
    [ ! -e "/dev/shm/$f" ] || bad "$mode: the stale region /dev/shm/$f is still there"
done
for f in "${keep[@]}"; do
    [ -e "/dev/shm/$f" ] || bad "$mode: /dev/shm/$f was removed"
done
[ $errs = 0 ] || { echo "FAIL: $errs problems"; exit 1; }
echo "ok ($mode): stale regions gone, ${#keep[@]} others kept, the job ran"
