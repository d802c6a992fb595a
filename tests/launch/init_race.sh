#!/usr/bin/env bash
# init_race.sh RUNS NPES: runs tests/launch/init_race (threads that call
# shmem_init_thread and shmem_finalize at once) RUNS times in a row on NPES
# PEs; every run must pass within 30 s. A race in start-up shows only now
# and then, hence the runs.
set -u
runs=${1:-20}
npes=${2:-2}
OSHRUN=${OSHRUN:-tools/oshrun}
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo
out=$(mktemp "${TMPDIR:-/tmp}/weft-init-race.XXXXXX")
trap 'rm -f "$out"' EXIT

for i in $(seq "$runs"); do
    timeout 30 "$OSHRUN" -n "$npes" tests/launch/init_race >"$out" 2>&1 </dev/null
    rc=$?
    if [ $rc != 0 ] || ! grep -q '^init_race: passed' "$out"; then
        [ $rc = 124 ] && echo "FAIL: run $i of $runs hung (killed after 30 s)"
        echo "FAIL: run $i of $runs ended with status $rc:"
        sed 's/^/    /' "$out"
        exit 1
    fi
done
echo "ok: $runs runs of $npes PEs, threads initializing and finalizing at once"
