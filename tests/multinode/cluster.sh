#!/bin/bash
# N simulated Slurm nodes on one Debian 12 machine (root), for the launch
# tests, the multi-node checks and the benchmarks: each node is its own
# network namespace with an IP on a private bridge, its own hostname and its
# own /tmp (Slurm's pmix plugin keeps per-step files there). The namespaces
# carry a prefix (PFX) and the bridge its own subnet (NET), so that two
# clusters can run side by side; `stop` also ends every process still
# inside the namespaces (job steps, stray PEs) before deleting them.
#
# Usage: cluster.sh start|stop|run CMD...|on HOST CMD...
# Env: D (work dir, outside /tmp unless under KEEP), NODES (default 2),
#      PFX (default mn), NET (default 10.78.0), CPUS (per node, default 4),
#      KEEP (a directory under /tmp that stays visible inside the nodes, e.g.
#      a build tree whose libweft the programs load; default: none)
set -euo pipefail
D=${D:-/var/tmp/weft-mn}; NODES=${NODES:-2}; PFX=${PFX:-mn}; NET=${NET:-10.78.0}
CPUS=${CPUS:-4}; KEEP=${KEEP:-}
export SLURM_CONF=$D/slurm.conf
case "$KEEP" in /tmp/*|'') ;; *) KEEP= ;; esac  # only /tmp is private
case "$D" in /tmp/*)
    case "$D/" in "${KEEP:-/nowhere}"/*) ;;
    *) echo "cluster.sh: D=$D is under /tmp: the nodes would not see it" >&2; exit 2;;
    esac;;
esac
case "$PFX" in *[!a-z0-9]*|'') echo "cluster.sh: PFX must be lower-case letters and digits" >&2; exit 2;; esac

# Run a command "on" host $1 (ctl or nK): its network namespace, its own
# hostname and /etc/hosts, its private /tmp (with KEEP bound at the same
# place inside it). nsenter --net, not 'ip netns exec': the latter remounts
# /sys and hides /sys/fs/cgroup.
on() {
    local n=$1; shift
    local T=$D/tmp-$n
    mkdir -p "$T"
    [ -z "$KEEP" ] || mkdir -p "$T/${KEEP#/tmp/}"
    nsenter --net="/run/netns/$PFX$n" unshare --uts --mount sh -c '
        hostname "$0"; mount --bind "$1/hosts" /etc/hosts
        [ -z "$3" ] || mount --bind "$3" "$2/${3#/tmp/}"
        mount --rbind "$2" /tmp
        shift 3; exec "$@"' "$n" "$D" "$T" "$KEEP" "$@"
}

namespaces() { ip netns list | awk -v p="$PFX" '$1 ~ "^" p "(ctl|n[0-9]+|sw)$" { print $1 }'; }

stop() {
    local f ns pids
    for f in "$D"/run/slurmd.*.pid "$D"/run/slurmctld.pid; do
        [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
    done
    # Whatever is still running inside a node (slurmstepd, PEs) goes too.
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        pids=$(for ns in $(namespaces); do ip netns pids "$ns"; done 2>/dev/null)
        [ -z "$pids" ] && break
        kill $pids 2>/dev/null || true
        sleep 0.2
    done
    pids=$(for ns in $(namespaces); do ip netns pids "$ns"; done 2>/dev/null)
    [ -n "$pids" ] && kill -9 $pids 2>/dev/null || true
    for ns in $(namespaces); do ip netns del "$ns" 2>/dev/null || true; done
    return 0
}

start() {
    local hosts h n ip i
    command -v slurmd >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        slurmctld slurmd slurm-client slurm-wlm-basic-plugins munge libpmix-dev iproute2
    if [ -n "$(namespaces)" ]; then
        echo "cluster.sh: namespaces $PFX* exist already (another cluster with PFX=$PFX?)" >&2
        return 1
    fi
    mkdir -p "$D/state" "$D/log" "$D/run"
    if ! munge -n >/dev/null 2>&1; then
        [ -s /etc/munge/munge.key ] || { mungekey --create --force 2>/dev/null ||
            dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=128 2>/dev/null
            chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key; }
        install -d -o munge -g munge /run/munge
        runuser -u munge -- /usr/sbin/munged
    fi
    # The bridge lives in its own namespace; the root namespace is untouched.
    ip netns add "${PFX}sw"; ip -n "${PFX}sw" link add br0 type bridge
    ip -n "${PFX}sw" link set br0 up
    printf '127.0.0.1 localhost\n%s.1 ctl\n' "$NET" >"$D/hosts"
    hosts="ctl:1"
    for i in $(seq 1 "$NODES"); do
        hosts="$hosts n$i:$((10 + i))"; echo "$NET.$((10 + i)) n$i" >>"$D/hosts"
    done
    for h in $hosts; do
        n=${h%%:*}; ip=$NET.${h##*:}
        ip netns add "$PFX$n"; ip -n "$PFX$n" link set lo up
        ip -n "$PFX$n" link add simeth0 type veth peer name "p-$PFX$n"
        ip -n "$PFX$n" link set "p-$PFX$n" netns "${PFX}sw"
        ip -n "${PFX}sw" link set "p-$PFX$n" master br0 up
        ip -n "$PFX$n" addr add "$ip/24" dev simeth0; ip -n "$PFX$n" link set simeth0 up
    done
    write_conf
    on ctl slurmctld
    for i in $(seq 1 "$NODES"); do mkdir -p "$D/spool/n$i"; on "n$i" slurmd -N "n$i"; done
    for _ in $(seq 1 150); do
        [ "$(on ctl sinfo -h -o '%T %D' 2>/dev/null)" = "idle $NODES" ] && return 0
        sleep 0.2
    done
    echo "cluster.sh: nodes not idle"; on ctl sinfo -N || true; tail -n 20 "$D"/log/*.log
    return 1
}

write_conf() {
    local i
    { cat <<CONF
ClusterName=mn$PFX
SlurmctldHost=ctl($NET.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd.%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.%n.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmix
KillOnBadExit=1
ReturnToService=2
SlurmdParameters=config_overrides
CONF
    for i in $(seq 1 "$NODES"); do
        echo "NodeName=n$i NodeAddr=$NET.$((10 + i)) CPUs=$CPUS RealMemory=2000 State=UNKNOWN"
    done
    echo "PartitionName=sim Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES"
    } >"$SLURM_CONF"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
run) shift; on ctl "$@" ;;
on) shift; on "$@" ;;
*) echo "usage: cluster.sh start|stop|run CMD...|on HOST CMD..." >&2; exit 2 ;;
esac
