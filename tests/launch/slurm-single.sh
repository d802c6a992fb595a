#!/bin/bash
# One-node Slurm + PMIx for CI (Debian 12, root). Usage: slurm-single.sh start|stop
# Env: D (work dir), AUTH=munge|none
set -euo pipefail
D=${D:-/tmp/weft-slurm1}; AUTH=${AUTH:-munge}
export SLURM_CONF=$D/slurm.conf
case "${1:-start}" in
start)
  # libpmix-dev is needed at run time: mpi_pmix_v4.so dlopens .../pmix2/lib/libpmix.so
  command -v slurmd >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      slurmctld slurmd slurm-client slurm-wlm-basic-plugins munge libpmix-dev
  if [ "$AUTH" = munge ] && ! munge -n >/dev/null 2>&1; then
    [ -s /etc/munge/munge.key ] || { mungekey --create --force 2>/dev/null || dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=128; chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key; }
    install -d -o munge -g munge -m 755 /run/munge
    runuser -u munge -- /usr/sbin/munged
  fi
  H=$(hostname -s)
  # Job ids that no earlier test Slurm used: the pmix plugin's per-step
  # directories (/tmp/spmix_appdir_<uid>_<job>.<step>) of a step that did
  # not clean up would otherwise make the first steps of this one fail.
  first_job=$(( $(date +%s) % 6000000 * 10 + 1 ))
  mkdir -p $D/state $D/spool/$H $D/log $D/run
  cat > $SLURM_CONF <<CONF
ClusterName=ci
SlurmctldHost=$H(127.0.0.1)
CommunicationParameters=NoInAddrAny
SlurmUser=root
SlurmdUser=root
AuthType=auth/$AUTH
CredType=cred/$AUTH
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
FirstJobId=$first_job
KillOnBadExit=1
ReturnToService=2
SlurmdParameters=config_overrides
NodeName=$H NodeAddr=127.0.0.1 CPUs=8 RealMemory=2000 State=UNKNOWN
PartitionName=ci Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
  slurmctld
  slurmd
  for i in $(seq 1 100); do sinfo -h -o %T 2>/dev/null | grep -qx idle && exit 0; sleep 0.2; done
  echo "slurm did not come up"; tail -n 20 $D/log/*.log; exit 1;;
stop)
  for f in $D/run/slurmd.*.pid $D/run/slurmctld.pid; do [ -f $f ] && kill "$(cat $f)" 2>/dev/null || true; done;;
esac
