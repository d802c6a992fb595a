#!/usr/bin/env bash
# PEs that exit before shmem_init without anybody left waiting for them, and
# children of PEs (tests/isolation/dead_pe.c):
#   - all 4 PEs exit(0) before shmem_init (a --help run): status 0, no
#     message, the job ends at once;
#   - the same when each PE first forks a child that exits, or runs a
#     program linked with the library that exits (not a PE of its own);
#   - every PE starts such a child before and after shmem_init, then
#     finalizes: status 0, no message.
# (A PE that exits before shmem_init while others called it: dead_pe.sh.)
#
#   early_exit.sh srun|oshrun|mpirun
#
# srun runs on the one-node Slurm of tests/launch/slurm-single.sh (started
# and stopped here unless one answers already; skipped, status 77, when it
# cannot start). Run by tests/run-tests.
set -u
launcher=${1:?usage: early_exit.sh srun|oshrun|mpirun}
S=${S:-..}; B=${B:-.}
OSHRUN=${OSHRUN:-$B/tools/oshrun}
prog=$B/tests/isolation/dead_pe
NP=4 LIMIT=10
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo
[ -x "$prog" ] || { echo "FAIL: $prog is missing (make check builds it)"; exit 1; }

. "$S/tests/isolation/dead_pe_setup.sh"
dead_pe_setup early

case $launcher in
oshrun) cmd=("$OSHRUN" -n $NP "$real") ;;
srun) slurm_up "$work"; cmd=(srun --mpi=pmix -K -n $NP "$real") ;;
mpirun)
    command -v mpirun.openmpi >/dev/null ||
        skip "Open MPI's mpirun.openmpi is not installed (Debian: openmpi-bin)"
    cmd=(mpirun.openmpi --allow-run-as-root --oversubscribe -np $NP "$real") ;;
*) echo "usage: early_exit.sh srun|oshrun|mpirun"; exit 2 ;;
esac

# run WHAT ARGS...: the job must end with status 0 within LIMIT s and
# print no message of the library; sets $work/out and $work/err.
run() {
    local what=$1 rc t0 secs
    shift
    t0=$EPOCHREALTIME
    timeout $((LIMIT * 3)) "${cmd[@]}" "$@" >"$work/out" 2>"$work/err" </dev/null
    rc=$?
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
    show() { sed 's/^/  out| /' "$work/out"; sed 's/^/  err| /' "$work/err"; }
    if [ "$rc" = 124 ]; then
        bad "$launcher $what: the job did not end (killed after $((LIMIT * 3)) s)"; show; return
    fi
    [ "$rc" = 0 ] || { bad "$launcher $what: exit status $rc"; show; return; }
    awk -v s="$secs" -v l=$LIMIT 'BEGIN { exit !(s < l) }' ||
        bad "$launcher $what: took ${secs}s"
    if grep -v "^failing at" "$work/err" | grep -q .; then
        bad "$launcher $what: unexpected messages"; show
    fi
    [ "$(grep -c '^PE [0-9]* pid' "$work/out")" = $NP ] ||
        { bad "$launcher $what: not every PE ran"; show; }
    echo "$launcher $what: status 0 in ${secs}s, no message"
}

# children CHILD COUNT: every PE saw COUNT children end with status 0.
children() {
    local n
    n=$(grep -c "^child [0-9]* ($1) ended, status 0$" "$work/out")
    [ "$n" = "$2" ] || { bad "$launcher $1 children: $n of $2 ended with status 0"; sed 's/^/  out| /' "$work/out"; }
}

run "all PEs exit before shmem_init" -r all -p start -f exit -d 0
[ "$(grep -c '^failing at' "$work/err")" = $NP ] ||
    bad "$launcher: not every PE reached its exit"
for child in fork exec; do
    run "all PEs exit before shmem_init (child: $child)" \
        -r all -p start -f exit -d 0 -c $child
    children $child $NP
    run "$child children before and after shmem_init" -p none -c $child
    children $child $((NP * 2))
done
[ $errs = 0 ] || { echo "FAIL: $errs problems"; exit 1; }
echo "ok: PEs that all exit before shmem_init, and children of PEs, leave the job alone under $launcher"
