#!/usr/bin/env bash
# A small /dev/shm (a tmpfs of SIZE mounted over it in a private mount
# namespace, so that nothing else on the machine sees it) and a 2-PE job that
# fills its heap (tests/heap/heap_fill):
#   posix       SHMEM_HEAP_OBJECT=posix, more heap than /dev/shm holds: the
#               job fails at start-up with a message naming
#               SHMEM_SYMMETRIC_SIZE and `df /dev/shm`, never by SIGBUS;
#   posix_fits  the same with room enough: the job fills its heap and ends 0;
#   shm         SHMEM_LOCAL=0 with the shm provider: the message says that
#               /dev/shm is full, not "no usable libfabric provider".
# Needs root (mount); exits 77 otherwise. Needs OSHRUN.
set -u
mode=$1
if [ "$(id -u)" != 0 ] ||
    ! unshare -m --propagation private mount -t tmpfs -o size=1m tmpfs /dev/shm 2>/dev/null; then
    echo "skipped: needs root and mount namespaces (unshare -m) to mount a small /dev/shm"
    exit 77
fi
run_small() { # SIZE COMMAND...: runs COMMAND with /dev/shm of SIZE
    local size=$1; shift
    unshare -m --propagation private bash -c \
        'mount -t tmpfs -o size="$0",mode=1777 tmpfs /dev/shm && exec "$@"' \
        "$size" "$@"
}
case "$mode" in
posix)
    out=$(run_small 32m env SHMEM_HEAP_OBJECT=posix SHMEM_SYMMETRIC_SIZE=24m \
        "$OSHRUN" -n 2 tests/heap/heap_fill 20m 2>&1); rc=$?
    want=('SHMEM_SYMMETRIC_SIZE=25165824 bytes: /dev/shm has no room' 'df /dev/shm') ;;
posix_fits)
    out=$(run_small 96m env SHMEM_HEAP_OBJECT=posix SHMEM_SYMMETRIC_SIZE=24m \
        "$OSHRUN" -n 2 tests/heap/heap_fill 20m 2>&1); rc=$?
    printf '%s\n' "$out"
    [ $rc = 0 ] || { echo "FAIL: status $rc with room enough"; exit 1; }
    echo "ok: both PEs filled their heaps"; exit 0 ;;
shm)
    out=$(run_small 24m env SHMEM_LOCAL=0 SHMEM_OFI_PROVIDER=shm \
        SHMEM_SYMMETRIC_SIZE=1m "$OSHRUN" -n 2 tests/heap/heap_fill 64k 2>&1); rc=$?
    want=('SHMEM_OFI_PROVIDER=shm: the libfabric shm provider does not start because /dev/shm is full' 'df /dev/shm') ;;
*) echo "usage: shm_full.sh posix|posix_fits|shm"; exit 2 ;;
esac
printf '%s\n' "$out" | tail -n 8
if [ $rc = 0 ]; then echo "FAIL: the job succeeded"; exit 1; fi
if printf '%s\n' "$out" | grep -q 'SIGBUS' || [ $rc = 135 ]; then
    echo "FAIL: a PE died by SIGBUS"; exit 1
fi
for w in "${want[@]}"; do
    printf '%s\n' "$out" | grep -qF -- "$w" || { echo "FAIL: status $rc, no message with '$w'"; exit 1; }
done
echo "ok: status $rc with the message"
