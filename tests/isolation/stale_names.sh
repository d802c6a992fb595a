#!/usr/bin/env bash
# The sweep of stale heap object names (src/services/shm_names.h): a job
# with SHMEM_HEAP_OBJECT=posix removes, when it starts, the names in
# /dev/shm that a killed Weft job of this user left there long ago, and
# nothing else: not a fresh name (a job may be starting), not a name of a
# live process, not another user's, not a name of another form.
#   stale_names.sh PROGRAM [ARGS...]   (OSHRUN from tests/run-tests)
set -u
[ -d /dev/shm ] && [ -w /dev/shm ] || { echo "skipped: no writable /dev/shm"; exit 77; }
OSHRUN=${OSHRUN:-./tools/oshrun}
job=stalenamestest$$
sleep 0 & dead=$!
wait $dead
kill -0 $dead 2>/dev/null && { echo "skipped: pid $dead came back at once"; exit 77; }

old_dead=weft-$job-0-$dead-heap
fresh_dead=weft-$job-1-$dead-heap
old_live=weft-$job-2-$$-heap
old_form=weft-$job-x-$dead-heap
old_other=weft-$job-3-$dead-data
all="$old_dead $fresh_dead $old_live $old_form $old_other"
cleanup() { for n in $all; do rm -f "/dev/shm/$n"; done; }
trap cleanup EXIT
for n in $all; do
    (umask 077 && : >"/dev/shm/$n") || { echo "FAIL: cannot create /dev/shm/$n"; exit 1; }
done
for n in $old_dead $old_live $old_form $old_other; do
    touch -d '-1 hour' "/dev/shm/$n"
done
other_user=
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    chown nobody "/dev/shm/$old_other" && other_user=1
else
    all=${all% *} # a name of this user: the sweep may take it
    rm -f "/dev/shm/$old_other"
fi

SHMEM_HEAP_OBJECT=posix "$OSHRUN" -n 2 "$@" >/dev/null ||
    { echo "FAIL: the job with SHMEM_HEAP_OBJECT=posix failed"; exit 1; }

errs=0
[ ! -e "/dev/shm/$old_dead" ] || { echo "FAIL: the stale name $old_dead is still there"; errs=1; }
for n in $fresh_dead $old_live $old_form ${other_user:+$old_other}; do
    [ -e "/dev/shm/$n" ] || { echo "FAIL: the sweep removed $n"; errs=1; }
done
[ $errs = 0 ] || exit 1
echo "ok: the stale name is gone; fresh, live, foreign and other users' names stay"
