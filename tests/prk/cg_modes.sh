#!/usr/bin/env bash
# The CG kernel does the same arithmetic in the same order whether its
# allreduce is blocking or nonblocking (prk/cg/cg_core.h), so both modes
# must validate and print the same "cg residual:" line, to the last digit.
#   cg_modes.sh shmem|mpi NPES ITERATIONS N
# shmem runs prk/cg_shmem with $OSHRUN -n NPES; mpi runs prk/cg_mpi with
# mpiexec.hydra -n NPES and is skipped when configure found no MPI compiler.
# (With several MPI ranks an MPI library may sum the partial sums of
# MPI_Allreduce and MPI_Iallreduce in different orders; two ranks cannot.)
set -u
version=$1 npes=$2 iterations=$3 n=$4
B=${B:-.}
exe=$B/prk/cg_$version
case $version in
shmem) launch=("${OSHRUN:-$B/tools/oshrun}" -n "$npes") ;;
mpi)
    if [ ! -x "$exe" ]; then echo "skip: $exe not built (configure found no MPI compiler)"; exit 77; fi
    if ! command -v mpiexec.hydra >/dev/null; then echo "skip: mpiexec.hydra not installed"; exit 77; fi
    launch=(mpiexec.hydra -n "$npes") ;;
*) echo "usage: cg_modes.sh shmem|mpi NPES ITERATIONS N"; exit 2 ;;
esac
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo

fail() { echo "FAIL: $*"; exit 1; }
errlog=$(mktemp)
trap 'rm -f "$errlog"' EXIT
declare -A line
for mode in blocking nb; do
    out=$("${launch[@]}" "$exe" "$iterations" "$n" "$mode" 2>"$errlog")
    rc=$?
    printf '%s\n' "$out" | sed "s/^/$mode| /"
    sed "s/^/$mode stderr| /" "$errlog"
    [ "$rc" = 0 ] || fail "$mode: exit status $rc"
    grep -qx 'Solution validates' <<<"$out" || fail "$mode: no 'Solution validates' line"
    line[$mode]=$(grep -E '^cg residual: [0-9]\.[0-9]{17}e[-+][0-9]+$' <<<"$out")
    [ -n "${line[$mode]}" ] || fail "$mode: no well-formed 'cg residual:' line"
done
[ "${line[blocking]}" = "${line[nb]}" ] ||
    fail "the modes differ: blocking '${line[blocking]}', nb '${line[nb]}'"
echo "PASS: cg ($version, $npes PEs): blocking and nb give ${line[nb]}"
