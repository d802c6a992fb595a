#!/usr/bin/env bash
# Start-up time: `oshrun -n N ./hello` against `mpirun.openmpi -n N
# ./mpi_hello`, median wall time of R runs each, and their ratio.
#
#   bench/startup/startup.sh [-n N] [-r RUNS] [--builddir B]
#
# Builds both programs into a temporary directory: hello.c against this
# build's libweft (or, while the library does not link, the bootstrap-only
# tests/launch/boot_hello, which is said in the output), mpi_hello.c with
# mpicc.openmpi.
set -u
here=$(cd "$(dirname "$0")" && pwd)
S=$(cd "$here/../.." && pwd)
B=${B:-$PWD}
n=4; runs=10
while [ $# -gt 0 ]; do
    case "$1" in
    -n) n=$2; shift 2 ;;
    -r) runs=$2; shift 2 ;;
    --builddir) B=$2; shift 2 ;;
    *) echo "usage: startup.sh [-n N] [-r RUNS] [--builddir B]" >&2; exit 2 ;;
    esac
done
B=$(cd "$B" && pwd)
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-startup.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

[ -x "$B/tools/oshrun" ] || { echo "startup.sh: $B/tools/oshrun not built (give --builddir)" >&2; exit 2; }
command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null ||
    { echo "startup.sh: needs Open MPI (Debian: openmpi-bin libopenmpi-dev)" >&2; exit 77; }

shmem_prog=$tmp/hello
what="hello.c (shmem_init)"
if ! cc -O2 -I"$S/include" -o "$shmem_prog" "$here/hello.c" -L"$B/.libs" \
    -Wl,-rpath,"$B/.libs" -lweft 2>"$tmp/cc.log"; then
    shmem_prog=$B/tests/launch/boot_hello
    what="tests/launch/boot_hello (bootstrap only; libweft did not link)"
    [ -x "$shmem_prog" ] || { echo "startup.sh: neither libweft nor boot_hello is built" >&2; exit 2; }
fi
mpicc.openmpi -O2 -o "$tmp/mpi_hello" "$here/mpi_hello.c" || exit 2

# median_time CMD...: median wall seconds of $runs runs (each must succeed).
median_time() {
    local i t0 times=()
    for ((i = 0; i < runs; i++)); do
        t0=$EPOCHREALTIME
        "$@" >/dev/null 2>"$tmp/err" </dev/null || { cat "$tmp/err" >&2; echo "startup.sh: '$*' failed" >&2; exit 1; }
        times+=("$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.4f", b - a }')")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

t_osh=$(median_time "$B/tools/oshrun" -n "$n" "$shmem_prog")
t_boot=
[ -x "$B/tests/launch/boot_hello" ] && t_boot=$(median_time "$B/tools/oshrun" -n "$n" "$B/tests/launch/boot_hello")
t_mpi=$(median_time mpirun.openmpi --allow-run-as-root --oversubscribe -np "$n" "$tmp/mpi_hello")
echo "start-up of $n PEs, median of $runs runs"
echo "  program: $what"
printf '  %-40s %8.1f ms\n' "oshrun -n $n" "$(awk -v t="$t_osh" 'BEGIN { print t * 1000 }')"
[ -n "$t_boot" ] && printf '  %-40s %8.1f ms\n' "oshrun -n $n (bootstrap only: boot_hello)" "$(awk -v t="$t_boot" 'BEGIN { print t * 1000 }')"
printf '  %-40s %8.1f ms\n' "mpirun.openmpi -np $n (MPI hello)" "$(awk -v t="$t_mpi" 'BEGIN { print t * 1000 }')"
printf '  %-40s %8.2f\n' "ratio oshrun / mpirun" "$(awk -v a="$t_osh" -v b="$t_mpi" 'BEGIN { print a / b }')"
