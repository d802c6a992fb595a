#!/usr/bin/env bash
# Runs one Parallel Research Kernel and checks that it validates and prints
# the lines that parsers rely on.
#   run_kernel.sh shmem|a2a_shmem|mpi NPES KERNEL ARGS...
# shmem runs prk/KERNEL_shmem with $OSHRUN -n NPES (the environment decides
# the transport); mpi runs prk/KERNEL_mpi with mpiexec.hydra -n NPES and is
# skipped when configure found no MPI compiler.
set -u
version=$1 npes=$2 kernel=$3
shift 3
B=${B:-.}
exe=$B/prk/${kernel}_$version
case $version in
shmem|*_shmem) launch=("${OSHRUN:-$B/tools/oshrun}" -n "$npes") ;;
mpi)
    if [ ! -x "$exe" ]; then echo "skip: $exe not built (configure found no MPI compiler)"; exit 77; fi
    if ! command -v mpiexec.hydra >/dev/null; then echo "skip: mpiexec.hydra not installed"; exit 77; fi
    launch=(mpiexec.hydra -n "$npes") ;;
*) echo "usage: run_kernel.sh shmem|mpi NPES KERNEL ARGS..."; exit 2 ;;
esac
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo

# The checks read the program's standard output; the launcher's and the
# library's messages (standard error) are shown, not parsed.
errlog=$(mktemp)
trap 'rm -f "$errlog"' EXIT
out=$("${launch[@]}" "$exe" "$@" 2>"$errlog")
rc=$?
printf '%s\n' "$out"
sed 's/^/stderr| /' "$errlog"
fail() { echo "FAIL: $*"; exit 1; }
[ "$rc" = 0 ] || fail "exit status $rc"
# p2p reports from its last PE, whose lines the launcher may pass on before
# PE 0's: the banner must start PE 0's part of the output.
first=$(grep -v -E '^(Solution validates|Rate \()' <<<"$out" | head -n 1)
[ "$first" = "Parallel Research Kernels version 2.17" ] || fail "output does not start with the PRK banner"
grep -qx 'Solution validates' <<<"$out" || fail "no 'Solution validates' line"
grep -qE '^Rate \((MFlops/s|MB/s)\): [0-9]+\.[0-9]+ +Avg time \(s\): [0-9]+\.[0-9]+$' <<<"$out" \
    || fail "no well-formed Rate line"
! grep -q 'ERROR' <<<"$out" || fail "an ERROR line was printed"
echo "PASS: $kernel ($version, $npes PEs) validates"
