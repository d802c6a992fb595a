#!/usr/bin/env bash
# Weft beyond one node: starts simulated Slurm nodes (network namespaces on a
# private bridge, tests/multinode/cluster.sh), runs functional tests through
# `srun --mpi=pmix` with 2 PEs per node, so that every job mixes the on-node
# load/store path and the libfabric path (tcp;ofi_rxm across the bridge),
# then stops the nodes, leaving no daemon, namespace or process behind
# (also on failure or interruption).
#
#   scripts/multinode-check.sh [--srcdir DIR] [--builddir DIR] [--quick] [--keep]
#
# Run as root from a build tree where `make multinode-check` (or make check)
# built the programs. --quick runs only start-up, paths and coherence (the
# test case in tests/multinode/multinode.cases); --keep keeps the work
# directory. Env: NODES (default 3, 2 with --quick; the -N 3 steps need
# 3), MN_ITERS (coherence iterations per PE, default 1000).
# Prints one line per step and a summary; exits 0 when nothing failed, 1
# when something did, 77 when the check cannot run here (not root, ...).
set -u
S=${S:-$(cd "$(dirname "$0")/.." && pwd)}; B=${B:-.}; quick=0; keep=0
while [ $# -gt 0 ]; do
    case "$1" in
    --srcdir) S=$2; shift 2 ;;
    --builddir) B=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --keep) keep=1; shift ;;
    *) echo "multinode-check: unknown option $1" >&2; exit 2 ;;
    esac
done
S=$(cd "$S" && pwd); B=$(cd "$B" && pwd)
NODES=${NODES:-$((quick ? 2 : 3))}; MN_ITERS=${MN_ITERS:-1000}
skip_all() { echo "multinode-check: skipped: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip_all "simulated nodes need root"
for c in nsenter unshare ip; do
    command -v $c >/dev/null || skip_all "needs $c (util-linux, iproute2)"
done
[ -x "$B/tests/multinode/coherence" ] ||
    skip_all "$B/tests/multinode/coherence is not built (make multinode-check builds it)"

# Traffic between nodes must cross the bridge: no loopback pinning, and
# nothing that would force a provider or the path (Weft must choose).
unset FI_TCP_IFACE FI_SOCKETS_IFACE FI_PROVIDER SHMEM_OFI_PROVIDER SHMEM_LOCAL \
    SHMEM_LOCAL_OFF_PES SHMEM_AMO_ENGINE SHMEM_OFI_ATOMICS
# The Open MPI twin too: TCP across the bridge, not the shared memory that
# UCX finds between namespaces of one kernel. (Debian's MPICH is built on
# UCX only, whose device scan reads the root namespace's /sys and finds no
# usable interface in a node: its twin runs, but over shared memory.)
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=simeth0
# Each node has a private /tmp: programs and work dir live in /var/tmp.
W=/var/tmp/weft-mn-$$
export D=$W/slurm PFX=mn$$ NODES CPUS=2
export SLURM_CONF=$D/slurm.conf
logs=$B/tests/logs/multinode
CLUSTER="$S/tests/multinode/cluster.sh"
mkdir -p "$W/bin" "$logs" || exit 1
rm -f "$logs"/*.log

cleanup() {
    trap - EXIT INT TERM
    timeout 10 bash "$CLUSTER" run scancel -u root >/dev/null 2>&1
    bash "$CLUSTER" stop >/dev/null 2>&1
    [ "$keep" = 1 ] || rm -rf "$W"
}
trap cleanup EXIT
trap 'echo "multinode-check: interrupted"; exit 130' INT TERM

# ---- steps ------------------------------------------------------------------
pass=0; fail=0; skip=0; failed=""; summary=""
# step NAME TIMEOUT CHECK CMD...: runs CMD on the controller node (srun ...),
# output in $logs/NAME.log; then CHECK (a function, given the log) decides.
step() {
    local name=$1 limit=$2 check=$3 t0=$EPOCHREALTIME rc verdict secs
    shift 3
    # In the background, so that a signal to this script runs its trap now.
    timeout -k 5 "$limit" bash "$CLUSTER" run "$@" >"$logs/$name.log" 2>&1 </dev/null &
    wait $!
    rc=$?
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    [ $rc = 124 ] && echo "timed out after ${limit}s" >>"$logs/$name.log"
    verdict=$($check "$logs/$name.log" "$rc")
    record "$name" "$secs" "$verdict"
}
record() {
    local name=$1 secs=$2 verdict=$3 word=FAIL
    case "$verdict" in ok*) word=ok ;; skip*) word=skip ;; esac
    case "$verdict" in
    ok*) pass=$((pass + 1)); echo "PASS $name (${secs}s) ${verdict#ok}" ;;
    skip*) skip=$((skip + 1)); echo "SKIP $name: ${verdict#skip: }" ;;
    *) fail=$((fail + 1)); failed="$failed $name"
       echo "FAIL $name (${secs}s): $verdict (log: $logs/$name.log)"
       tail -n 15 "$logs/$name.log" | sed 's/^/    | /' ;;
    esac
    summary="$summary$(printf '\n  %-22s %-5s %6ss %s' "$name" "$word" "$secs" "${verdict#ok}")"
}

# Checks: each prints "ok[ detail]", "skip: why" or a failure reason.
st() { [ "$2" = 0 ] || { echo "exit status $2"; return 1; }; }
ck_passed() {
    st "$@" || return
    if grep -q "passed (0 failed checks" "$1"; then echo ok; else echo "no 'passed' line"; fi
}
ck_hello() {
    local n=$3
    st "$1" "$2" || return
    if [ "$(grep -c '^hello from PE [0-9]* of '"$n"' ' "$1")" = "$n" ]; then echo ok
    else echo "not $n hello lines"; fi
}
ck_hello4() { ck_hello "$1" "$2" 4; }
ck_hello6() { ck_hello "$1" "$2" 6; }
# The path test, plus what Weft said it chose (SHMEM_DEBUG=1): tcp;ofi_rxm
# on the namespaces' interface for every PE, with nobody forcing it.
ck_paths() {
    local n=$3 prov
    st "$1" "$2" || return
    grep -q "mn_paths: passed (0 failed checks, $n PEs)" "$1" || { echo "mn_paths failed"; return; }
    prov=$(grep -c '^weft\[pe [0-9]*\] ofi debug: provider tcp;ofi_rxm, domain simeth0,' "$1")
    [ "$prov" = "$n" ] || { echo "$prov of $n PEs chose tcp;ofi_rxm on simeth0"; return; }
    [ "$(grep -c '^weft\[pe [0-9]*\] path debug: fabric ofi' "$1")" = "$n" ] ||
        { echo "not every PE started the fabric"; return; }
    echo "ok $(grep -c 'PEs by load/store' "$1") PEs: on-node load/store, off-node tcp;ofi_rxm (simeth0)"
}
# A job whose last PE (3, on the second node) makes one more
# shmem_barrier_all than the others: it must end, not hang, with the message
# naming PE 0, on the first node, which has finalized and exited (the flat
# barrier makes PE 3 wait for PE 0 itself; src/core/coll/peer_gone.c).
ck_mismatch() {
    [ "$2" != 0 ] || { echo "the job succeeded"; return 1; }
    [ "$2" != 124 ] || { echo "the job hung"; return 1; }
    grep -qE 'shmem_finalize: PE 3 waits for PE 0, which has already called shmem_finalize and exited' "$1" ||
        { echo "no message naming the PE that finalized"; return 1; }
    echo "ok PE 3 named PE 0, across the bridge"
}
# A job that must fail at start-up with the loopback message, within the
# step's limit (a hang times out and fails).
ck_lo_iface() {
    [ "$2" != 0 ] || { echo "the job succeeded"; return 1; }
    [ "$2" != 124 ] || { echo "the job hung"; return 1; }
    grep -q 'PE [0-9]* (node [0-9]*, address 127\.0\.0\.1:[0-9]*) and PE [0-9]* (node [0-9]*, address 127\.0\.0\.1:[0-9]*) cannot reach each other with provider tcp;ofi_rxm' "$1" ||
        { echo "no loopback message naming the PEs, addresses and provider"; return 1; }
    echo "ok start-up names the loopback pair"
}
# A job whose nodes cannot connect (their traffic is dropped): shmem_init
# must give up within its bound and name the PEs, addresses and provider.
ck_drop() {
    [ "$2" != 0 ] || { echo "the job succeeded"; return 1; }
    [ "$2" != 124 ] || { echo "the job hung"; return 1; }
    grep -q 'PE [0-9]* (node [0-9]*, address [0-9.]*:[0-9]*) cannot reach PE [0-9]* (node [0-9]*, address [0-9.]*:[0-9]*) with provider tcp;ofi_rxm: fi_[a-z_]* found no connection for [0-9]* s during shmem_init' "$1" ||
        { echo "no message naming the unreachable pair, addresses and provider"; return 1; }
    echo "ok start-up gives up on the unreachable pair and names it"
}
ck_paths4() { ck_paths "$1" "$2" 4; }
ck_paths6() { ck_paths "$1" "$2" 6; }
ck_prk() {
    st "$1" "$2" || return
    grep -qx 'Solution validates' "$1" || { echo "no 'Solution validates'"; return; }
    echo "ok $(grep -o '^Rate ([^)]*): [0-9.]*' "$1")"
}
ck_coherence() {
    st "$1" "$2" || return
    grep -q "coherence: passed (0 failed checks" "$1" || { echo "updates lost or doubled"; return; }
    echo "ok $(grep -c '(each must be' "$1") targets exact"
}

# Copies a program (the real one behind a libtool wrapper) into $W/bin.
stage() {
    local p=$B/$1 real
    real=$(dirname "$p")/.libs/$(basename "$p")
    [ -x "$real" ] || real=$p
    [ -x "$real" ] || return 1
    cp "$real" "$W/bin/" && chmod +x "$W/bin/$(basename "$p")"
}

# simeth0 bytes received by node n2 (the traffic that crossed the bridge).
rx_bytes() {
    ip -n "${PFX}n2" -s link show simeth0 2>/dev/null |
        awk '/RX:/ { getline; print $1; exit }'
}

# ---- start --------------------------------------------------------------------
t_start=$EPOCHREALTIME
for p in tests/multinode/coherence tests/multinode/mn_paths tests/launch/shmem_hello \
    tests/dataplane/dp_rma tests/dataplane/dp_amo tests/coll/coll_data \
    tests/coll/coll_reduce tests/coll/coll_hang tests/coll/coll_nb tests/coll/coll_nb_threads \
    tests/gpu/kernel_ops prk/stencil_shmem prk/stencil_mpi; do
    stage "$p" 2>/dev/null || echo "note: $p is not built; its step is skipped"
done
cp -L "$B"/.libs/libweft.so* "$W/bin/" 2>/dev/null
export LD_LIBRARY_PATH=$W/bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
timeout 300 bash "$CLUSTER" start >"$logs/cluster.log" 2>&1 &
if ! wait $!; then
    tail -n 10 "$logs/cluster.log"
    skip_all "the simulated $NODES-node Slurm did not start (see above)"
fi
echo "multinode-check: $NODES simulated nodes up (namespaces ${PFX}n1..${PFX}n$NODES on bridge ${PFX}sw, interface simeth0)"
bin=$W/bin
SRUN2="srun --mpi=pmix -K -N 2 --ntasks-per-node=2"
SRUN3="srun --mpi=pmix -K -N 3 --ntasks-per-node=2"
have() { [ -x "$bin/$1" ] || { record "$2" 0 "skip: $1 not built"; return 1; }; }

have shmem_hello hello_2x2 && step hello_2x2 60 ck_hello4 $SRUN2 "$bin/shmem_hello" -n 4
step paths_2x2 60 ck_paths4 env SHMEM_DEBUG=1 $SRUN2 "$bin/mn_paths" -N 2
# Single-node settings copied into a 2-node job: loopback cannot reach the
# other node, which start-up must say (PEs, provider, addresses) at once.
have shmem_hello lo_iface_2x2 &&
    step lo_iface_2x2 60 ck_lo_iface env FI_TCP_IFACE=lo $SRUN2 "$bin/shmem_hello" -n 4
# A network that drops what passes between the nodes: the fabric's ports
# are kept in one range (FI_TCP_PORT_*_RANGE) whose replies each node routes
# to nowhere, so connections are never answered and nothing is refused.
# Slurm's and PMIx's own traffic uses other ports and goes on.
drop_rule() {
    for n in $(seq 1 "$NODES"); do
        bash "$CLUSTER" on "n$n" sh -c "$1" >>"$logs/cluster.log" 2>&1
    done
}
if have shmem_hello drop_2x2 &&
    drop_rule 'ip rule add sport 20480-20735 lookup 177 priority 177 && ip route add blackhole default table 177'; then
    step drop_2x2 120 ck_drop env FI_TCP_PORT_LOW_RANGE=20480 FI_TCP_PORT_HIGH_RANGE=20735 \
        $SRUN2 "$bin/shmem_hello" -n 4
    drop_rule 'ip rule del priority 177; ip route flush table 177'
fi
if [ "$NODES" -ge 3 ] && [ "$quick" = 0 ]; then
    step paths_3x2_cyclic 60 ck_paths6 env SHMEM_DEBUG=1 $SRUN3 -m cyclic "$bin/mn_paths" -N 3
fi
if [ "$quick" = 0 ]; then
    have dp_rma dp_rma_2x2 && step dp_rma_2x2 120 ck_passed $SRUN2 "$bin/dp_rma"
    have dp_amo dp_amo_2x2 && step dp_amo_2x2 120 ck_passed $SRUN2 "$bin/dp_amo"
    have coll_data coll_data_2x2 && step coll_data_2x2 120 ck_passed $SRUN2 "$bin/coll_data"
    have coll_hang hang_extra_barrier_2x2 &&
        step hang_extra_barrier_2x2 60 ck_mismatch env SHMEM_BARRIER_ALGORITHM=flat $SRUN2 "$bin/coll_hang" extra_barrier
    # Device code (the mock's host threads) across nodes: loads and stores
    # to the PE of the same node, the proxy and the fabric to the others.
    # Eight threads per block (of the test's 40): each proxied request
    # crosses the owner's device service, and 4 PEs with their service,
    # proxy and kernel threads share 2 cores (10-20 s here).
    have kernel_ops kernel_ops_2x2 &&
        step kernel_ops_2x2 300 ck_passed env GT_KERNEL_THREADS=8 SHMEM_DEVICE_BACKEND=mock $SRUN2 "$bin/kernel_ops"
    have coll_reduce coll_reduce_3x2 && [ "$NODES" -ge 3 ] &&
        step coll_reduce_3x2 120 ck_passed $SRUN3 "$bin/coll_reduce"
    # Nonblocking collectives (docs/nonblocking-collectives.md) over both
    # paths in one job, as the blocking ones above.
    have coll_nb coll_nb_2x2 && step coll_nb_2x2 120 ck_passed $SRUN2 "$bin/coll_nb"
    have coll_nb coll_nb_3x2 && [ "$NODES" -ge 3 ] &&
        step coll_nb_3x2 180 ck_passed $SRUN3 "$bin/coll_nb"
    # Posted by one thread, completed by another: the program asks for
    # SHMEM_THREAD_MULTIPLE itself and needs no setting (tests/coll/coll.cases).
    have coll_nb_threads coll_nb_threads_2x2 &&
        step coll_nb_threads_2x2 120 ck_passed $SRUN2 "$bin/coll_nb_threads"
    # PRK stencil: SHMEM form, Open MPI twin (PMIx under srun), MPICH twin
    # (Debian's MPICH speaks PMI-1/2, which Slurm's pmi2 plugin serves).
    have stencil_shmem prk_stencil_shmem && step prk_stencil_shmem 120 ck_prk $SRUN2 "$bin/stencil_shmem" 20 1000
    if command -v mpicc.openmpi >/dev/null &&
        mpicc.openmpi -O3 -fvect-cost-model=dynamic -I"$S/prk" -I"$S" -o "$bin/stencil_ompi" \
            "$S"/prk/stencil/stencil_mpi.c "$S"/prk/stencil/stencil_core.c "$S"/prk/stencil/stencil_compute.c \
            "$S"/prk/common/prk.c "$S"/prk/common/comm_mpi.c -lm >"$logs/ompi-build.log" 2>&1; then
        step prk_stencil_openmpi 120 ck_prk $SRUN2 "$bin/stencil_ompi" 20 1000
    else
        record prk_stencil_openmpi 0 "skip: mpicc.openmpi missing or failed (see $logs/ompi-build.log)"
    fi
    have stencil_mpi prk_stencil_mpich &&
        step prk_stencil_mpich 120 ck_prk ${SRUN2/--mpi=pmix/--mpi=pmi2} "$bin/stencil_mpi" 20 1000
fi
rx0=$(rx_bytes)
iters=$MN_ITERS; [ "$quick" = 1 ] && iters=200
step coherence_2x2 240 ck_coherence $SRUN2 "$bin/coherence" -N 2 -i "$iters"
rx1=$(rx_bytes)
if [ -n "$rx0" ] && [ -n "$rx1" ]; then
    kb=$(((rx1 - rx0) / 1024))
    # Thousands of cross-node atomics: far more than PMIx and Slurm traffic.
    if [ "$kb" -ge 100 ]; then record bridge_traffic 0 "ok n2 received ${kb} KiB on simeth0"
    else record bridge_traffic 0 "only ${kb} KiB crossed the bridge to n2"; fi
else
    record bridge_traffic 0 "skip: cannot read simeth0 counters"
fi
if [ "$NODES" -ge 3 ] && [ "$quick" = 0 ]; then
    # Half the iterations: 6 PEs on 2 cores make each one slower.
    step coherence_3x2 300 ck_coherence $SRUN3 "$bin/coherence" -N 3 -i $((iters / 2 + 1))
fi

# ---- stop, and check that nothing is left ---------------------------------------
bash "$CLUSTER" stop >"$logs/stop.log" 2>&1
left=$(ip netns list | awk -v p="$PFX" 'index($1, p) == 1 { print $1 }')
procs=$(ps -eo pid=,stat=,args= | awk -v w="$W/bin/" '$2 !~ /^Z/ && index($3, w) == 1 { print $1 }')
if [ -z "$left$procs" ]; then record cluster_stopped 0 "ok no namespace or process left"
else record cluster_stopped 0 "left behind: namespaces [$left] processes [$procs]"; fi

total=$(awk -v a="$t_start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
echo "multinode-check summary ($NODES simulated nodes, ${total}s; logs in $logs):$summary"
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
