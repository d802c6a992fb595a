#!/usr/bin/env bash
# A SHMEM_SYMMETRIC_SIZE that fits one process but not the NP heaps that
# the PEs of one node map must fail at start-up with a message naming the
# variable, its value and the largest size that fits; that size must then
# work. Usage: size_fit.sh SIZE NP PROGRAM
# (x86-64 only: the sizes assume its 47-bit user address space.)
set -u
size=$1 np=$2 prog=$3
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo
if [ "$(uname -m)" != x86_64 ]; then
    echo "skipped: the sizes assume the 47-bit address space of x86-64"
    exit 77
fi
out=$(SHMEM_SYMMETRIC_SIZE=$size timeout 60 "$OSHRUN" -n "$np" "$prog" none 2>&1)
rc=$?
printf '%s\n' "$out" | tail -n 5
[ $rc != 0 ] || { echo "FAIL: SHMEM_SYMMETRIC_SIZE=$size with $np PEs succeeded"; exit 1; }
re="^weft\[pe [0-9]+\] .*: SHMEM_SYMMETRIC_SIZE=$size \([0-9]+ bytes\) is too large for $np PEs on one node: each PE maps the heaps of all $np \($np x $size of address space\), more than the address space of a process holds; ask for at most ([0-9]+[kmgt]), or run fewer PEs per node\$"
line=$(printf '%s\n' "$out" | grep -E -m 1 "$re") ||
    { echo "FAIL: status $rc without the message naming the variable and what fits"; exit 1; }
most=$(printf '%s\n' "$line" | sed -E "s/.*ask for at most ([0-9]+[kmgt]),.*/\1/")
out=$(SHMEM_SYMMETRIC_SIZE=$most timeout 60 "$OSHRUN" -n "$np" "$prog" none 2>&1)
rc=$?
[ $rc = 0 ] || { printf '%s\n' "$out" | tail -n 5; echo "FAIL: the size suggested, $most, failed (status $rc)"; exit 1; }
echo "ok: $size refused with $np PEs; the suggested $most works"
