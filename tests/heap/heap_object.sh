#!/usr/bin/env bash
# Nothing of a job is left in /dev/shm: runs a 4-PE job with each kind of
# heap object (memfd, then POSIX shm, which has a name there while the job
# starts) and looks for the job's heap objects in /dev/shm afterwards: the
# names of an oshrun job are "weft-oshrun<pid of oshrun>-..."
# (src/core/heap/shm_object.c), so other jobs of the machine do not count.
# Usage: heap_object.sh PROGRAM [ARGS...]   (OSHRUN from tests/run-tests)
set -u
list() { ls /dev/shm 2>/dev/null | grep "^weft-oshrun$1-" | sort; }
[ -d /dev/shm ] || { echo "no /dev/shm on this machine"; exit 77; }
for kind in memfd posix; do
    SHMEM_HEAP_OBJECT=$kind "$OSHRUN" -n 4 "$@" &
    pid=$!
    wait $pid || {
        echo "FAIL: the job with SHMEM_HEAP_OBJECT=$kind failed"; exit 1; }
    left=$(list $pid)
    if [ -n "$left" ]; then
        echo "FAIL: left in /dev/shm after the job (SHMEM_HEAP_OBJECT=$kind):"
        echo "$left"
        exit 1
    fi
    echo "SHMEM_HEAP_OBJECT=$kind: nothing left in /dev/shm"
done
