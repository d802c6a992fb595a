#!/usr/bin/env bash
# Invalid arguments (and a grid that cannot validate: n = 1 in p2p): every
# version must print the banner, then exactly one
# "ERROR: " line (from one PE), nothing after it, and exit non-zero.
#   bad_args.sh shmem|mpi KERNEL
set -u
version=$1 kernel=$2
B=${B:-.}
exe=$B/prk/${kernel}_$version
if [ "$version" = mpi ]; then
    if [ ! -x "$exe" ]; then echo "skip: $exe not built (configure found no MPI compiler)"; exit 77; fi
    if ! command -v mpiexec.hydra >/dev/null; then echo "skip: mpiexec.hydra not installed"; exit 77; fi
fi
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo

# Each case: NPES|ARGS|text the ERROR line must contain
case $kernel in
stencil) cases=("2|0 50|iterations" "2|-3 50|iterations" "2|10 4|radius"
                "6|10 5|narrower" "2|10|usage" "2|10 x5|grid size") ;;
transpose) cases=("2|0 64|iterations" "4|5 10|multiple" "3|5 2|multiple"
                  "2|5 64 abc|tile" "2|5|usage") ;;
transpose_pipe) cases=("2|0 64 4 nb|iterations" "4|5 10 2 nb|multiple"
                       "2|5 64 0 nb|slices" "2|5 64 33 nb|slices"
                       "2|5 64 4 maybe|mode" "2|5 64 4|usage"
                       "2|5 64 4 nb abc|tile") ;;
cg) cases=("2|0 48 nb|iterations" "2|10 x5 nb|grid size" "4|10 50 nb|multiple"
           "3|5 2 blocking|multiple" "2|10 48 fast|mode" "2|10 48|usage") ;;
p2p) cases=("2|0 64 64|iterations" "2|5 2 10|exceed" "4|5 3 10|exceed"
            "2|5 abc 10|dimensions" "2|5 10 0|dimensions" "2|5 10|usage"
            "2|3 10 1|checksum") ;;
*) echo "unknown kernel $kernel"; exit 2 ;;
esac

failures=0
errlog=$(mktemp)
trap 'rm -f "$errlog"' EXIT
for c in "${cases[@]}"; do
    IFS='|' read -r npes args want <<<"$c"
    if [ "$version" = mpi ]; then
        launch=(mpiexec.hydra -n "$npes")
    else
        launch=("${OSHRUN:-$B/tools/oshrun}" -n "$npes")
    fi
    # Only the programs' standard output is checked: the launcher may report
    # the non-zero exits on its standard error.
    # shellcheck disable=SC2086  # ARGS are meant to split
    out=$("${launch[@]}" "$exe" $args 2>"$errlog")
    rc=$?
    nerr=$(grep -c '^ERROR: ' <<<"$out")
    err=$(grep '^ERROR: ' <<<"$out" | head -n 1)
    last=$(tail -n 1 <<<"$out")
    why=""
    [ "$rc" != 0 ] || why="exit status 0"
    [ "$nerr" = 1 ] || why="$why; $nerr ERROR lines"
    [[ "$err" == *"$want"* ]] || why="$why; the ERROR line does not name '$want'"
    # Argument errors come from PE 0 and end its output; the p2p checksum
    # comes from the last PE, which the launcher may pass on before PE 0's
    # lines.
    if [ "$want" != checksum ] && [ "$last" != "$err" ]; then
        why="$why; output goes on after the ERROR line"
    fi
    grep -q -E '^(Solution validates|Rate )' <<<"$out" && why="$why; a result was printed"
    [ "$(grep -v '^ERROR: ' <<<"$out" | head -n 1)" = "Parallel Research Kernels version 2.17" ] ||
        why="$why; output does not start with the PRK banner"
    if [ -n "$why" ]; then
        echo "FAIL: -n $npes $kernel $args: ${why#; }"
        printf '%s\n' "$out" | sed 's/^/    | /'
        sed 's/^/    stderr| /' "$errlog"
        failures=$((failures + 1))
    else
        echo "ok: -n $npes $kernel $args -> $err (status $rc)"
    fi
done
[ "$failures" = 0 ]
