#!/usr/bin/env bash
# Weft between two simulated nodes, next to the fabric underneath it and to
# MPI over the same path (TCP across the nodes' bridge), one PE per node:
#   Weft      bench/shmem_bandwidth put_bw, bench/shmem_latency put_quiet
#             (srun --mpi=pmix; Weft picks tcp;ofi_rxm by itself)
#   raw       bench/fabric/raw_rma_bw: fi_write window + counter wait, and
#             one fi_write + counter wait, tcp;ofi_rxm, FI_DELIVERY_COMPLETE;
#             with --coll, the least a 2-PE barrier costs: both ranks
#             exchange one injected message (msg_exchange) or one
#             unacknowledged write (write_exchange, from an endpoint with
#             no write counter: --no-counter) and wait for the other's;
#             the bandwidth twice: target spinning on fi_cq_read, and target
#             sleeping 50 us between polls (--sleep), which on an
#             oversubscribed machine leaves the core to TCP, as a waiting
#             Weft PE does
#   Open MPI  bench/mpi_bandwidth and bench/mpi_latency built with
#             mpicc.openmpi (srun --mpi=pmix)
#             with the ob1 PML and the tcp BTL on simeth0
# With --coll, also barrier and allreduce latency (bench/coll/) of Weft and
# Open MPI on 2 and 3 nodes (one PE per node).
# Debian's MPICH is left out: it is built on UCX alone, whose device scan
# reads the root namespace's /sys inside a node and finds no usable
# interface (UCX_TLS=tcp fails), so between namespaces it would use shared
# memory, a path two real nodes do not have.
#
#   bench/fabric/compare-nodes.sh [--srcdir DIR] [--builddir DIR]
#       [--repeat N] [--quick] [--coll] [--keep]
#
# Root only (network namespaces; tests/multinode/cluster.sh). Each program
# runs --repeat times (default 2), the sides alternating; the tables show
# the best run (highest MB/s, lowest us). Raw CSV: $B/bench/fabric/results.csv.
# The machine's load shows in every figure: compare columns of one run.
set -u
S=${S:-$(cd "$(dirname "$0")/../.." && pwd)}; B=.; repeat=2; quick=0; coll=0; keep=0
while [ $# -gt 0 ]; do
    case "$1" in
    --srcdir) S=$2; shift 2 ;;
    --builddir) B=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --coll) coll=1; shift ;;
    --keep) keep=1; shift ;;
    *) echo "compare-nodes: unknown option $1" >&2; exit 2 ;;
    esac
done
S=$(cd "$S" && pwd); B=$(cd "$B" && pwd)
case "$repeat" in ''|*[!0-9]*|0) echo "compare-nodes: --repeat needs a positive integer" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "compare-nodes: simulated nodes need root" >&2; exit 77; }
for p in bench/shmem_bandwidth bench/shmem_latency bench/fabric/raw_rma_bw; do
    [ -x "$B/$p" ] || { echo "compare-nodes: $B/$p is not built (make)" >&2; exit 2; }
done

unset FI_TCP_IFACE FI_SOCKETS_IFACE FI_PROVIDER SHMEM_OFI_PROVIDER SHMEM_LOCAL
W=/var/tmp/weft-fabric-$$
export D=$W/slurm PFX=fb$$ CPUS=2 NODES=$((coll ? 3 : 2))
export SLURM_CONF=$D/slurm.conf
CLUSTER="$S/tests/multinode/cluster.sh"
bin=$W/bin; out=$B/bench/fabric/results.csv
mkdir -p "$bin" "$(dirname "$out")" || exit 1
cleanup() {
    trap - EXIT INT TERM
    timeout 10 bash "$CLUSTER" run scancel -u root >/dev/null 2>&1
    bash "$CLUSTER" stop >/dev/null 2>&1
    [ "$keep" = 1 ] || rm -rf "$W"
}
trap cleanup EXIT
trap 'echo "compare-nodes: interrupted"; exit 130' INT TERM

# ---- programs ------------------------------------------------------------------
stage() {
    local real=$(dirname "$B/$1")/.libs/$(basename "$1")
    [ -x "$real" ] || real=$B/$1
    [ -x "$real" ] && cp "$real" "$bin/$2"
}
stage bench/shmem_bandwidth weft_bw; stage bench/shmem_latency weft_lat
stage bench/fabric/raw_rma_bw raw_rma_bw; stage bench/coll/shmem_coll weft_coll
cp -L "$B"/.libs/libweft.so* "$bin/" 2>/dev/null
export LD_LIBRARY_PATH=$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if command -v mpicc.openmpi >/dev/null; then
    for t in bw:bench/mpi_bandwidth.c lat:bench/mpi_latency.c coll:bench/coll/mpi_coll.c; do
        mpicc.openmpi -O2 -I"$S" -I"$S/bench" -o "$bin/ompi_${t%%:*}" "$S/${t#*:}" 2>>"$W/ompi-build.log" ||
            echo "compare-nodes: mpicc.openmpi failed on ${t#*:} (see $W/ompi-build.log)"
    done
fi

timeout 300 bash "$CLUSTER" start >"$W/cluster.log" 2>&1 &
wait $! || { tail "$W/cluster.log"; echo "compare-nodes: the simulated nodes did not start" >&2; exit 1; }

# MPI over the same path as Weft: TCP across the bridge. Open MPI would
# otherwise take UCX, which finds shared memory between the namespaces (one
# kernel, one /dev/shm), a path no two real nodes have.
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=simeth0

# Bytes node n1 sent and received on its bridge interface.
n1_bytes() {
    ip -n "${PFX}n1" -s link show simeth0 2>/dev/null |
        awk '/RX:|TX:/ { getline; t += $1 } END { printf "%.0f\n", t }'
}

# run SIDE NODES PMI PROG ARGS...: CSV rows "side,bench,size,value,unit";
# says on stderr how much crossed the bridge meanwhile.
run() {
    local side=$1 n=$2 pmi=$3 prog=$4 b0
    shift 4
    [ -x "$bin/$prog" ] || return 0
    b0=$(n1_bytes)
    timeout -k 5 600 bash "$CLUSTER" run srun --mpi="$pmi" -K -N "$n" -n "$n" \
        "$bin/$prog" --csv "$@" 2>"$W/err.log" </dev/null | sed "s/^/$side,/" &
    wait $! || true
    grep -v -E '^srun: (Job step|got SIGCONT|forcing)' "$W/err.log" | head -n 5 >&2
    echo "compare-nodes: $side $prog $*: $((($(n1_bytes) - b0) >> 20)) MiB through n1's simeth0" >&2
}

if [ "$quick" = 1 ]; then
    bw_args="--min 65536 --max 4194304 --iters 400"; lat_args="--min 8 --max 65536 --iters 200 --warmup 20"
else
    bw_args="--min 1024 --max 4194304 --iters 1000"; lat_args="--min 8 --max 65536 --iters 500 --warmup 50"
fi
: >"$out"
for r in $(seq 1 "$repeat"); do
    echo "compare-nodes: round $r of $repeat" >&2
    {
        run weft 2 pmix weft_bw --only put_bw $bw_args
        run raw 2 pmix raw_rma_bw --only write_bw $bw_args
        run raw-sleep 2 pmix raw_rma_bw --sleep --only write_bw $bw_args
        run openmpi 2 pmix ompi_bw --only isend_bw $bw_args
        run weft 2 pmix weft_lat --only put_quiet $lat_args
        run raw 2 pmix raw_rma_bw --only write_lat $lat_args
        run openmpi 2 pmix ompi_lat --only sendrecv_pingpong $lat_args
        if [ "$coll" = 1 ]; then
            run raw 2 pmix raw_rma_bw --only msg_exchange --iters 2000 --warmup 100
            run raw 2 pmix raw_rma_bw --only write_exchange --no-counter --iters 2000 --warmup 100
            # 3 nodes on fewer cores take milliseconds a call: fewer calls.
            for n in 2 3; do
                it=$([ "$n" = 2 ] && echo 2000 || echo 200)
                for c in barrier allreduce; do
                    run "weft@$n" "$n" pmix weft_coll --only $c --min 8 --max 1024 --iters $it
                    run "openmpi@$n" "$n" pmix ompi_coll --only $c --min 8 --max 1024 --iters $it
                done
            done
        fi
    } >>"$out"
done

# ---- tables ------------------------------------------------------------------------
# best BENCH-SPEC...: one row per size; each SPEC is side:bench.
table() {
    local title=$1 unit=$2
    shift 2
    awk -F, -v unit="$unit" -v title="$title" -v specs="$*" '
        { k = $1 ":" $2; v = $4 + 0; s = $3 + 0; sizes[s] = 1
          if (!((k, s) in best) || (unit == "MB/s" ? v > best[k, s] : v < best[k, s])) best[k, s] = v }
        END {
            n = split(specs, sp, " ")
            printf "\n%s (%s, best of the runs)\n%10s", title, unit, "size"
            for (i = 1; i <= n; i++) { split(sp[i], h, ":"); printf " %14s", h[1] }
            if (unit == "MB/s") printf " %10s", "weft/raw"
            else { split(sp[1], h1, ":"); split(sp[2], h2, ":"); split(h1[1], a, "@"); split(h2[1], c, "@")
                   printf " %10s", a[1] "/" c[1] }
            printf "\n"
            m = 0
            for (s in sizes) order[++m] = s + 0
            for (i = 2; i <= m; i++)        # insertion sort: a few sizes
                for (j = i; j > 1 && order[j - 1] > order[j]; j--) {
                    t = order[j]; order[j] = order[j - 1]; order[j - 1] = t
                }
            for (j = 1; j <= m; j++) {
                s = order[j]; line = sprintf("%10d", s); any = 0
                for (i = 1; i <= n; i++) {
                    if ((sp[i], s) in best) { line = line sprintf(" %14.2f", best[sp[i], s]); any = 1 }
                    else line = line sprintf(" %14s", "-")
                }
                r = 0
                if (("raw:write_bw", s) in best) r = best["raw:write_bw", s]
                if ((("raw-sleep:write_bw", s) in best) && best["raw-sleep:write_bw", s] > r)
                    r = best["raw-sleep:write_bw", s]
                if (unit == "MB/s" && (("weft:put_bw", s) in best) && r > 0)
                    line = line sprintf(" %10.2f", best["weft:put_bw", s] / r)
                if (unit != "MB/s" && ((sp[1], s) in best) && ((sp[2], s) in best) && best[sp[2], s] > 0)
                    line = line sprintf(" %10.2f", best[sp[1], s] / best[sp[2], s])
                if (any) print line
            }
        }' "$out"
}
echo "Two simulated nodes, one PE per node, TCP across the bridge (simeth0)."
table "Bandwidth: Weft put_bw, raw fi_write window (target spinning / sleeping 50 us between polls), Open MPI isend_bw; weft/raw against the better raw" MB/s \
    weft:put_bw raw:write_bw raw-sleep:write_bw openmpi:isend_bw
table "Latency: Weft put+quiet, raw fi_write+counter wait (both: until delivered), MPI ping-pong one-way" us \
    weft:put_quiet raw:write_lat openmpi:sendrecv_pingpong
if [ "$coll" = 1 ]; then
    for n in 2 3; do
        if [ "$n" = 2 ]; then
            table "Barrier, 2 nodes x 1 PE; raw: a message or an unacknowledged write each way" us \
                "weft@2:barrier" "openmpi@2:barrier" raw:msg_exchange raw:write_exchange
        else
            table "Barrier, $n nodes x 1 PE" us "weft@$n:barrier" "openmpi@$n:barrier"
        fi
        table "Allreduce (sum of doubles), $n nodes x 1 PE" us "weft@$n:allreduce" "openmpi@$n:allreduce"
    done
fi
echo
echo "CSV: $out"
