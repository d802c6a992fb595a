#!/usr/bin/env bash
# Weft over libfabric on one node (SHMEM_LOCAL=0: every operation through
# the fabric, tcp;ofi_rxm on loopback unless --provider says otherwise),
# next to the fabric underneath it and to Open MPI over TCP, 2 PEs/ranks
# bound to cores, the sides interleaved run by run:
#   put_quiet   Weft: shmem_putmem + shmem_quiet (bench/shmem_latency);
#               raw: one fi_write + counter wait, FI_DELIVERY_COMPLETE
#               (bench/fabric/raw_rma_bw write_lat), the same provider and
#               interface; both until the data is delivered
#   barrier     Weft shmem_barrier_all; Open MPI MPI_Barrier (bench/coll);
#               raw: both ranks inject an unacknowledged 8-byte write into
#               the other's flag and wait for the other's (raw_rma_bw
#               write_exchange --no-counter: from an endpoint with no
#               write counter, which ofi_rxm injects from directly), the
#               least a 2-PE barrier costs over the provider
#   allreduce   Weft shmem_double_sum_reduce; Open MPI MPI_Allreduce,
#               8 to 1024 bytes
# Open MPI runs with the ob1 PML and the tcp BTL on lo (its shared-memory
# paths would not be a fabric). --no-mpi leaves it out.
#
#   bench/fabric/compare-local.sh [--builddir DIR] [--repeat N]
#       [--provider PROV] [--iters N] [--no-mpi]
#
# Each figure is the best (lowest) of --repeat runs (default 3). Prints one
# table with the ratios Weft/raw and Weft/Open MPI; CSV in
# $B/bench/fabric/local.csv (side,bench,size,us). The machine's load shows
# in every figure: compare columns of one run.
set -u
S=$(cd "$(dirname "$0")/../.." && pwd)
B=.; repeat=3; prov='tcp;ofi_rxm'; iters=3000; mpi=1
while [ $# -gt 0 ]; do
    case "$1" in
    --builddir) B=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --provider) prov=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --no-mpi) mpi=0; shift ;;
    *) echo "compare-local: unknown option $1" >&2; exit 2 ;;
    esac
done
B=$(cd "$B" && pwd)
case "$repeat" in ''|*[!0-9]*|0) echo "compare-local: --repeat needs a positive integer" >&2; exit 2 ;; esac
case "$iters" in ''|*[!0-9]*|0) echo "compare-local: --iters needs a positive integer" >&2; exit 2 ;; esac
for p in tools/oshrun bench/shmem_latency bench/fabric/raw_rma_bw bench/coll/shmem_coll; do
    [ -x "$B/$p" ] || { echo "compare-local: $B/$p is not built (make)" >&2; exit 2; }
done
export FI_TCP_IFACE=${FI_TCP_IFACE:-lo} FI_SOCKETS_IFACE=${FI_SOCKETS_IFACE:-lo}
out=$B/bench/fabric/local.csv
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-fabric-local.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
ompi=""
if [ "$mpi" = 1 ] && command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null; then
    if mpicc.openmpi -O2 -I"$S" -I"$S/bench" -o "$tmp/ompi_coll" "$S/bench/coll/mpi_coll.c" 2>"$tmp/build.log"; then
        ompi=$tmp/ompi_coll
    else
        echo "compare-local: mpicc.openmpi failed (see below); no Open MPI column" >&2
        cat "$tmp/build.log" >&2
    fi
fi

# run SIDE BENCH COMMAND...: appends "side,bench,size,us" rows; a run that
# fails is reported and leaves no row.
run() {
    local side=$1 bench=$2
    shift 2
    if ! timeout -k 5 300 "$@" --csv >"$tmp/run.out" 2>"$tmp/run.err" </dev/null; then
        echo "compare-local: $side $bench failed:" >&2
        tail -n 5 "$tmp/run.err" >&2
        return 0
    fi
    grep -E '^[a-z_]+,[0-9]+,[0-9.]+' "$tmp/run.out" | awk -F, -v s="$side" -v b="$bench" \
        '{ printf "%s,%s,%s,%s\n", s, b, $2, $3 }' >>"$out"
}

weft=(env SHMEM_LOCAL=0 SHMEM_OFI_PROVIDER="$prov" "$B/tools/oshrun" -n 2 --bind core)
: >"$out"
lat="--min 8 --max 8 --iters $iters --warmup 100"
for r in $(seq 1 "$repeat"); do
    run weft put_quiet "${weft[@]}" "$B/bench/shmem_latency" --only put_quiet $lat
    run raw put_quiet env FI_PROVIDER="$prov" "$B/tools/oshrun" -n 2 --bind core \
        "$B/bench/fabric/raw_rma_bw" --only write_lat $lat
    run raw barrier env FI_PROVIDER="$prov" "$B/tools/oshrun" -n 2 --bind core \
        "$B/bench/fabric/raw_rma_bw" --only write_exchange --no-counter --iters "$iters" --warmup 100
    for c in barrier allreduce; do
        run weft "$c" "${weft[@]}" "$B/bench/coll/shmem_coll" --only "$c" --min 8 --max 1024 --iters "$iters"
        [ -n "$ompi" ] && run openmpi "$c" env OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,tcp \
            OMPI_MCA_btl_tcp_if_include=lo mpirun.openmpi --allow-run-as-root \
            --bind-to core -n 2 "$ompi" --only "$c" --min 8 --max 1024 --iters "$iters"
    done
done

echo "One node, 2 PEs/ranks bound to cores, through the fabric ($prov on lo);"
echo "best of $repeat runs, us (lower is better)"
awk -F, '
    { k = $1 SUBSEP $2 SUBSEP $3; v = $4 + 0
      if (!(k in best) || v < best[k]) best[k] = v
      if (!(($2 SUBSEP $3) in seen)) { seen[$2 SUBSEP $3] = 1; order[++n] = $2 SUBSEP $3 } }
    END {
        printf "%-10s %6s %10s %10s %10s %9s %9s\n", "bench", "size", "weft", "raw", "openmpi",
               "weft/raw", "weft/mpi"
        for (i = 1; i <= n; i++) {
            split(order[i], p, SUBSEP)
            w = best["weft" SUBSEP order[i]]; r = best["raw" SUBSEP order[i]]
            m = best["openmpi" SUBSEP order[i]]
            printf "%-10s %6d %10s %10s %10s %9s %9s\n", p[1], p[2],
                   w ? sprintf("%.2f", w) : "-", r ? sprintf("%.2f", r) : "-",
                   m ? sprintf("%.2f", m) : "-",
                   w && r ? sprintf("%.2f", w / r) : "-", w && m ? sprintf("%.2f", w / m) : "-"
        }
    }' "$out"
echo "CSV: $out"
