#!/usr/bin/env bash
# Collective latency of two builds of Weft on one node, interleaved: for a
# change to the collectives or the paths under them, before against after
# in one sitting.
#
#   bench/coll/compare-builds.sh --builddir A --builddir B [--np P]
#       [--repeat R] [--max BYTES] [--iters N] [-- oshrun options]
#
# Runs bench/coll/shmem_coll (barrier, broadcast, sum reduction of doubles,
# fcollect, alltoall; sizes from 8 bytes to --max, default 1024) of A, then
# of B, R times (default 5), with the PEs bound to cores (oshrun --bind
# core, default 2 PEs), and prints per collective and size the fastest run
# of each build (us) and B/A. Build A may predate this script: only its
# bench/coll/shmem_coll and tools/oshrun are used. The machine's load moves
# every figure: compare only the columns of one run. CSV on request
# (--csv FILE): figure,size,a_us,b_us,b_over_a.
set -u
dirs=(); np=2; repeat=5; max=1024; iters=2000; csv=""; extra=()
while [ $# -gt 0 ]; do
    case "$1" in
    --builddir) dirs+=("$(cd "$2" && pwd)"); shift 2 ;;
    --np) np=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --max) max=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --csv) csv=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "compare-builds.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
if [ ${#dirs[@]} -ne 2 ]; then
    echo "compare-builds.sh: give two --builddir" >&2; exit 2
fi
export FI_TCP_IFACE=${FI_TCP_IFACE:-lo} FI_SOCKETS_IFACE=${FI_SOCKETS_IFACE:-lo}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for r in $(seq "$repeat"); do
    for k in 0 1; do
        d=${dirs[$k]}
        timeout 300 "$d/tools/oshrun" -n "$np" --bind core "${extra[@]}" \
            "$d/bench/coll/shmem_coll" --csv --min 8 --max "$max" \
            --iters "$iters" >"$tmp/run.$k.$r" 2>"$tmp/err" ||
            { echo "compare-builds.sh: run $r of $d failed:" >&2
              tail -n 3 "$tmp/err" >&2; exit 1; }
    done
done
python3 - "$tmp" "$repeat" "${dirs[0]}" "${dirs[1]}" "$csv" <<'PY'
import sys
tmp, repeat, a, b, csv = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
best = [{}, {}]
order = []
for k in (0, 1):
    for r in range(1, repeat + 1):
        for line in open(f"{tmp}/run.{k}.{r}"):
            f = line.strip().split(",")
            if len(f) != 4:
                continue
            key = (f[0], int(f[1]))
            if key not in order:
                order.append(key)
            v = float(f[2])
            best[k][key] = min(v, best[k].get(key, v))
print(f"A = {a}\nB = {b}\n(fastest of {repeat} runs each, interleaved, us)")
print(f"{'figure':10} {'size':>8} {'A':>10} {'B':>10} {'B/A':>6}")
rows = ["figure,size,a_us,b_us,b_over_a"]
for key in order:
    x, y = best[0].get(key), best[1].get(key)
    if x is None or y is None:
        continue
    print(f"{key[0]:10} {key[1]:8} {x:10.3f} {y:10.3f} {y / x:6.2f}")
    rows.append(f"{key[0]},{key[1]},{x:.4f},{y:.4f},{y / x:.3f}")
if csv:
    open(csv, "w").write("\n".join(rows) + "\n")
PY
