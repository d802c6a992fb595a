#!/usr/bin/env bash
# Collective latency of two builds of Weft on one node, interleaved: for a
# change to the collectives or the paths under them, before against after
# in one sitting.
#
#   bench/coll/compare-builds.sh --builddir A --builddir B [--np P]
#       [--repeat R] [--max BYTES] [--iters N] [--nodes N]
#       [-- oshrun options]
#
# Runs bench/coll/shmem_coll (barrier, broadcast, sum reduction of doubles,
# fcollect, alltoall; sizes from 8 bytes to --max, default 1024) of A, then
# of B, R times (default 5), with the PEs bound to cores (oshrun --bind
# core, default 2 PEs), and prints per collective and size the fastest run
# of each build (us) and B/A. Build A may predate this script: only its
# bench/coll/shmem_coll and tools/oshrun are used. With --nodes N (root
# only), the runs go across N simulated nodes instead
# (tests/multinode/cluster.sh: Slurm in network namespaces, srun
# --mpi=pmix, one PE per node, tcp;ofi_rxm over the nodes' bridge), each
# build's program and library staged in a directory of its own. The machine's load moves
# every figure: compare only the columns of one run. CSV on request
# (--csv FILE): figure,size,a_us,b_us,b_over_a.
set -u
dirs=(); np=2; repeat=5; max=1024; iters=2000; csv=""; extra=(); nodes=0
while [ $# -gt 0 ]; do
    case "$1" in
    --builddir) dirs+=("$(cd "$2" && pwd)"); shift 2 ;;
    --np) np=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --max) max=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --csv) csv=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "compare-builds.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
if [ ${#dirs[@]} -ne 2 ]; then
    echo "compare-builds.sh: give two --builddir" >&2; exit 2
fi
export FI_TCP_IFACE=${FI_TCP_IFACE:-lo} FI_SOCKETS_IFACE=${FI_SOCKETS_IFACE:-lo}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# One run of build k into $tmp/run.$k.$r: oshrun on this node, or srun
# across the simulated nodes (each node has a private /tmp: the programs
# are staged under /var/tmp).
run_one() {
    local k=$1 r=$2 d=${dirs[$1]}
    if [ "$nodes" -gt 0 ]; then
        timeout 300 bash "$cluster" run env LD_LIBRARY_PATH="$W/$k" \
            srun --mpi=pmix -K -N "$nodes" --ntasks-per-node=1 \
            "$W/$k/shmem_coll" --csv --min 8 --max "$max" --iters "$iters"
    else
        timeout 300 "$d/tools/oshrun" -n "$np" --bind core "${extra[@]}" \
            "$d/bench/coll/shmem_coll" --csv --min 8 --max "$max" \
            --iters "$iters"
    fi >"$tmp/run.$k.$r" 2>"$tmp/err" ||
        { echo "compare-builds.sh: run $r of $d failed:" >&2
          tail -n 3 "$tmp/err" >&2; exit 1; }
}
if [ "$nodes" -gt 0 ]; then
    [ "$(id -u)" = 0 ] || { echo "compare-builds.sh: --nodes needs root" >&2; exit 2; }
    cluster=$(cd "$(dirname "$0")/../.." && pwd)/tests/multinode/cluster.sh
    W=/var/tmp/weft-cb-$$
    export D=$W/slurm PFX=cb$$ NODES=$nodes CPUS=2 SLURM_CONF=$W/slurm/slurm.conf
    # traffic must cross the bridge, by the path Weft chooses itself
    unset FI_TCP_IFACE FI_SOCKETS_IFACE FI_PROVIDER SHMEM_OFI_PROVIDER
    trap 'timeout 10 bash "$cluster" run scancel -u root >/dev/null 2>&1
          bash "$cluster" stop >/dev/null 2>&1; rm -rf "$tmp" "$W"' EXIT
    for k in 0 1; do
        mkdir -p "$W/$k" && cp -L "${dirs[$k]}"/.libs/libweft.so* "$W/$k/" &&
            cp "${dirs[$k]}/bench/coll/.libs/shmem_coll" "$W/$k/" || exit 1
    done
    timeout 300 bash "$cluster" start >"$tmp/cluster.log" 2>&1 ||
        { tail -n 10 "$tmp/cluster.log" >&2; exit 1; }
fi
for r in $(seq "$repeat"); do
    for k in 0 1; do
        run_one $k "$r"
    done
done
python3 - "$tmp" "$repeat" "${dirs[0]}" "${dirs[1]}" "$csv" "$nodes" <<'PY'
import sys
tmp, repeat, a, b, csv, nodes = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
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
where = f"{nodes} simulated nodes, one PE each" if int(nodes) else "one node"
print(f"A = {a}\nB = {b}\n(fastest of {repeat} runs each, interleaved, {where}, us)")
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
