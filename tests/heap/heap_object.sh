#!/usr/bin/env bash
# Nothing of a job is left in /dev/shm: runs a 4-PE job with each kind of
# heap object (memfd, then POSIX shm, which has a name there while the job
# starts) and compares the weft-* names in /dev/shm before and after.
# Usage: heap_object.sh PROGRAM [ARGS...]   (OSHRUN from tests/run-tests)
set -u
list() { ls /dev/shm 2>/dev/null | grep '^weft-.*-heap$' | sort; }
[ -d /dev/shm ] || { echo "no /dev/shm on this machine"; exit 77; }
for kind in memfd posix; do
    before=$(list)
    SHMEM_HEAP_OBJECT=$kind "$OSHRUN" -n 4 "$@" || {
        echo "FAIL: the job with SHMEM_HEAP_OBJECT=$kind failed"; exit 1; }
    left=$(comm -13 <(echo "$before") <(list))
    if [ -n "$left" ]; then
        echo "FAIL: left in /dev/shm after the job (SHMEM_HEAP_OBJECT=$kind):"
        echo "$left"
        exit 1
    fi
    echo "SHMEM_HEAP_OBJECT=$kind: nothing left in /dev/shm"
done
