#!/usr/bin/env bash
# Start-up and launch tests (cases in launch.cases). Run from the build
# directory; S, B and OSHRUN come from tests/run-tests.
#
#   launch.sh oshrun PROG N        N PEs under oshrun say hello and agree
#   launch.sh singleton PROG       the program alone, without a launcher
#   launch.sh mpirun PROG N        under Open MPI's mpirun (and oshrun --launcher=mpirun)
#   launch.sh srun PROG N          under srun --mpi=pmix on a one-node Slurm
#   launch.sh srun-multi PROG      srun over two simulated nodes
#   launch.sh hydra PROG           MPICH's mpiexec.hydra is refused clearly
#   launch.sh orphan PROG          a PE whose launcher's PMIx server is gone
#                                  or refuses it stops; it does not run alone
#   launch.sh fault PROG HOW STATUS REGEX
#                                  PE 2 of 4 fails (HOW); the job must end
#                                  within 2 s with STATUS, saying REGEX
#   launch.sh misuse PROG          queries before init / after finalize are fatal
#   launch.sh init-thread PROG     shmem_init_thread levels
#   launch.sh env PROG             what every PE gets; bad-variable messages
#   launch.sh options | io | exec | order
set -u
S=${S:-..}; B=${B:-.}
OSHRUN=${OSHRUN:-$B/tools/oshrun}
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo
out=$(mktemp -d "${TMPDIR:-/tmp}/weft-launch.XXXXXX")
trap 'rm -rf "$out"' EXIT

fail() {
    echo "FAIL: $*"
    [ -s "$out/stdout" ] && sed 's/^/  stdout| /' "$out/stdout"
    [ -s "$out/stderr" ] && sed 's/^/  stderr| /' "$out/stderr"
    exit 1
}
skip() { echo "skipped: $*"; exit 77; }

# run CMD...: output in $out/stdout and $out/stderr, status in $rc,
# wall time in $secs.
run() {
    local t0=$EPOCHREALTIME
    "$@" >"$out/stdout" 2>"$out/stderr" </dev/null
    rc=$?
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
}

need() { [ -x "$1" ] || fail "$1 is missing (make check builds it)"; }

# Every PE 0..n-1 said hello exactly once and nobody reported a failure.
check_hello() {
    local n=$1 p c
    [ "$rc" = 0 ] || fail "exit status $rc"
    grep -q "FAIL" "$out/stdout" "$out/stderr" && fail "a PE reported a failure"
    for ((p = 0; p < n; p++)); do
        c=$(grep -c "hello from PE $p of $n[ )]\|hello from PE $p of $n\$" "$out/stdout")
        [ "$c" = 1 ] || fail "PE $p said hello $c times"
    done
    c=$(grep -c "hello from PE" "$out/stdout")
    [ "$c" = "$n" ] || fail "$c hello lines for $n PEs"
}

case_oshrun() {
    need "$1"
    run "$OSHRUN" -n "$2" "$1" -n "$2"
    check_hello "$2"
    case "$1" in *boot_hello) grep -q "launcher oshrun" "$out/stdout" ||
        fail "launcher not recognised as oshrun";; esac
    echo "ok: $2 PEs under oshrun in ${secs}s"
}

case_singleton() {
    need "$1"
    run env -u PMIX_NAMESPACE -u PMIX_RANK -u PMIX_SERVER_URI41 "$1" -n 1
    check_hello 1
    case "$1" in *boot_hello) grep -q "launcher singleton" "$out/stdout" ||
        fail "not started as a singleton";; esac
    echo "ok: singleton in ${secs}s"
}

case_mpirun() {
    need "$1"
    command -v mpirun.openmpi >/dev/null || skip "Open MPI's mpirun.openmpi is not installed (Debian: openmpi-bin)"
    run mpirun.openmpi --allow-run-as-root --oversubscribe -np "$2" "$1" -n "$2"
    check_hello "$2"
    run "$OSHRUN" --launcher=mpirun -n "$2" "$1" -n "$2"
    check_hello "$2"
    echo "ok: $2 PEs under mpirun.openmpi, directly and through oshrun"
}

. "$S/tests/launch/slurm-test.sh"

# Another user of this machine's test Slurm may stop it under us.
slurm_gone() {
    if [ "$rc" != 0 ] && grep -q -E "Unable to contact slurm controller|Unable to process configuration file" "$out/stderr"; then
        skip "the test Slurm went away during the test (stopped by another user?)"
    fi
}

case_srun() {
    need "$1"
    slurm_up "$out"
    trap 'slurm_down; rm -rf "$out"' EXIT
    run timeout 60 srun --mpi=pmix -K -n "$2" "$1" -n "$2"
    slurm_gone
    check_hello "$2"
    case "$1" in *boot_hello) grep -q "launcher srun" "$out/stdout" ||
        fail "launcher not recognised as srun";; esac
    run timeout 60 "$OSHRUN" --launcher=srun -n "$2" "$1" -n "$2"
    check_hello "$2"
    echo "ok: $2 PEs under srun --mpi=pmix, directly and through oshrun"
}

# Two simulated nodes (network namespaces, tests/multinode/cluster.sh): locality and
# node numbers must come out right across nodes, with block and cyclic
# placement.
case_srun_multi() {
    local prog=$1
    need "$prog"
    [ "$(id -u)" = 0 ] || skip "simulated nodes need root"
    command -v nsenter >/dev/null && command -v ip >/dev/null || skip "needs nsenter and ip (util-linux, iproute2)"
    # Each node has a private /tmp: the program and the work dir live in /var/tmp.
    base=$(mktemp -d /var/tmp/weft-multi.XXXXXX)
    # A libtool wrapper script cannot be copied: copy the program it runs.
    local real=$prog
    if [ -x "$(dirname "$prog")/.libs/${prog##*/}" ]; then
        real=$(dirname "$prog")/.libs/${prog##*/}
        export LD_LIBRARY_PATH=$B/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    fi
    cp "$real" "$base/" || fail "cannot copy $real"
    # Prefix and subnet of their own: the multi-node check's cluster may run
    # at the same time. KEEP: a build tree under /tmp stays visible inside
    # the nodes (the programs load libweft from it).
    export D=$base/slurm NODES=2 PFX=sl NET=10.77.0 KEEP=$PWD
    local cluster=$S/tests/multinode/cluster.sh
    # The nodes talk over their private bridge (never leaving this machine);
    # loopback cannot join them.
    unset FI_TCP_IFACE FI_SOCKETS_IFACE
    trap 'timeout 10 bash "$S/tests/multinode/cluster.sh" run scancel -u "$(id -un)" >/dev/null 2>&1
          bash "$S/tests/multinode/cluster.sh" stop >/dev/null 2>&1; rm -rf "$base" "$out"' EXIT
    if ! timeout 600 bash "$cluster" start >"$out/slurm.log" 2>&1; then
        tail -n 5 "$out/slurm.log"
        skip "the simulated two-node Slurm did not start (see above)"
    fi
    run timeout 60 bash "$cluster" run srun -K -N 2 -n 4 "$base/${prog##*/}" -n 4
    check_hello 4
    case "$prog" in *boot_hello)
        [ "$(grep -c 'node [01] of 2' "$out/stdout")" = 4 ] || fail "node numbers";;
    esac
    run timeout 60 bash "$cluster" run srun -K -N 2 -n 3 -m cyclic "$base/${prog##*/}" -n 3
    check_hello 3
    case "$prog" in *boot_hello)
        grep -q "PE 1 of 3 (local 0 of 1, node 1 of 2" "$out/stdout" || fail "cyclic placement";;
    esac
    echo "ok: 2 simulated nodes under srun, block and cyclic"
}

case_hydra() {
    need "$1"
    command -v mpiexec.hydra >/dev/null || skip "MPICH's mpiexec.hydra is not installed"
    run timeout 30 mpiexec.hydra -n 2 "$1" -n 2
    [ "$rc" != 0 ] || fail "started under mpiexec.hydra with status 0"
    grep -q "PMI-1/PMI-2 launcher" "$out/stderr" || fail "no clear refusal"
    grep -q "oshrun, srun --mpi=pmix, or Open MPI's mpirun" "$out/stderr" ||
        fail "the refusal does not say what to use"
    echo "ok: refused under mpiexec.hydra (status $rc)"
}

case_orphan() {
    need "$1"
    # The environment a launcher gives its PEs, with a server that is not
    # there (a closed loopback port): what a PE sees whose launcher died or
    # refused its connection.
    run env PMIX_NAMESPACE=weft-gone.$$ PMIX_RANK=1 \
        PMIX_SERVER_URI41="weft-gone.$$.0;tcp4://127.0.0.1:1" \
        PMIX_SERVER_URI4="weft-gone.$$.0;tcp4://127.0.0.1:1" timeout 30 "$1"
    [ "$rc" = 1 ] || fail "status $rc, expected 1 (no crash, no run alone)"
    grep -q "hello from PE" "$out/stdout" && fail "it ran as a single PE"
    grep -q "PMIx server (job weft-gone.$$, rank 1) refused or did not answer" \
        "$out/stderr" || fail "no message naming the job and rank"
    echo "ok: a PE without its launcher's server stops with status 1"
}

# Processes of this job still alive (zombies excluded): those whose pids
# the job printed, and any process running prog that lost its parent (a
# PE oshrun failed to stop). Other jobs running prog at the same time
# still have their launcher as parent.
alive() {
    local name=${1##*/} pids
    pids=$(cat "$out/stdout" "$out/stderr" | sed -n 's/.*pid \([0-9][0-9]*\).*/\1/p' | sort -u)
    ps -eo pid=,ppid=,stat=,comm= | awk -v n="${name:0:15}" -v l="lt-${name:0:12}" \
        -v mine=" $(echo $pids) " '$3 !~ /^Z/ &&
            (index(mine, " " $1 " ") || ($2 == 1 && ($4 == n || $4 == l)))'
}

case_fault() {
    local prog=$1 how=$2 want=$3 regex=$4 pid t_fail t_end t_gone late
    need "$prog"
    # The limit counts this machine's time; what is left in /dev/shm is what
    # the job made (tests/isolation/sched_delay.sh, leftovers.sh).
    . "$S/tests/isolation/sched_delay.sh"
    . "$S/tests/isolation/leftovers.sh"
    sched_probe_start "$out"
    ls /dev/shm | sort >"$out/shm.before" 2>/dev/null
    t0=$EPOCHREALTIME
    "$OSHRUN" -n 4 "$prog" -n 4 -r 2 -f "$how" >"$out/stdout" 2>"$out/stderr" </dev/null &
    pid=$!
    wait $pid
    rc=$?
    t_end=$EPOCHREALTIME
    [ "$rc" = "$want" ] || fail "exit status $rc, expected $want"
    grep -q -E "$regex" "$out/stderr" || fail "no message matching '$regex'"
    t_fail=$(sed -n 's/^\(\[pe [0-9]*\] \)\?failing at //p' "$out/stderr" | head -n 1)
    [ -n "$t_fail" ] || fail "the PE did not report when it failed"
    secs=$(awk -v a="$t_fail" -v b="$t_end" 'BEGIN { printf "%.2f", b - a }')
    late=$(sched_late "$t_fail" "$t_end")
    sched_within "$t_fail" "$t_end" 2.0 ||
        fail "the job took ${secs}s to end after the failure (scheduling delay meanwhile ${late}s)"
    [ -z "$(alive "$prog")" ] || fail "processes left behind: $(alive "$prog")"
    sched_probe_stop
    t_gone=$EPOCHREALTIME
    ls -d "${TMPDIR:-/tmp}"/oshrun.$pid.* 2>/dev/null && fail "oshrun left its temporary directory"
    # Only what this job could have made: new names with one of its PEs'
    # pids, made before it was gone (other jobs on this machine may come and
    # go meanwhile, and get those pids again).
    ls /dev/shm | sort >"$out/shm.after" 2>/dev/null
    comm -13 "$out/shm.before" "$out/shm.after" |
        while read -r n; do made_by "/dev/shm/$n" "$t_gone" && echo "$n"; done >"$out/shm.new"
    pids=$(cat "$out/stdout" "$out/stderr" | sed -n 's/.*pid \([0-9][0-9]*\).*/\1/p' | sort -u)
    for p in $pids; do
        new=$(grep -E "(^|[^0-9])$p([^0-9]|$)" "$out/shm.new")
        [ -z "$new" ] || fail "left in /dev/shm: $new"
    done
    # Weft's own names carry their maker's pid (judged above); anything
    # else of PMIx or oshrun counts.
    grep -v -E "^weft" "$out/shm.new" | grep -i -E "pmix|oshrun" &&
        fail "left in /dev/shm (above)"
    echo "ok: $how ended the job with status $rc ${secs}s after the failure"
}

# Each option error: status 2 and a message naming the problem.
# A query before shmem_init or after shmem_finalize ends the job clearly.
case_misuse() {
    need "$1"
    run timeout 20 "$OSHRUN" -n 2 "$1" -n 2 -m before
    [ "$rc" != 0 ] || fail "a call before shmem_init went unnoticed"
    grep -q "shmem_my_pe: called before shmem_init" "$out/stderr" || fail "no clear message (before)"
    grep -q "my_pe before init" "$out/stdout" && fail "shmem_my_pe returned before shmem_init"
    run timeout 20 "$OSHRUN" -n 2 "$1" -n 2 -m after
    [ "$rc" != 0 ] || fail "a call after shmem_finalize went unnoticed"
    grep -q "shmem_n_pes: called after shmem_finalize" "$out/stderr" || fail "no clear message (after)"
    echo "ok: calls before shmem_init and after shmem_finalize are fatal"
}

# shmem_init_thread grants each valid level and refuses an invalid one.
case_init_thread() {
    local level
    need "$1"
    for level in 0 1 2 3; do
        run timeout 20 "$OSHRUN" -n 2 "$1" -n 2 -t $level
        check_hello 2
    done
    run timeout 20 "$1" -t 9
    [ "$rc" = 0 ] && grep -q "invalid thread level refused" "$out/stdout" ||
        fail "shmem_init_thread(9) was not refused"
    echo "ok: shmem_init_thread levels 0-3 granted, 9 refused"
}

case_options() {
    local args expect
    while IFS='|' read -r args expect; do
        run "$OSHRUN" $args
        [ "$rc" = 2 ] || fail "oshrun $args: status $rc, expected 2"
        grep -q -- "$expect" "$out/stderr" || fail "oshrun $args: no '$expect'"
    done <<'LIST'
-n 0 true|at least 1
-n x true|at least 1
-n|needs a value
true|give the number of PEs
-n 2|no program to run
-n 2 --bogus true|unknown option '--bogus'
-n 2 --bind sideways true|--bind takes core, numa or none
-n 2 --launcher=pbs true|--launcher takes local, srun or mpirun
-n 2 -x =1 true|-x needs VAR or VAR=VALUE
-n 2 /nonexistent/prog|cannot run '/nonexistent/prog'
LIST
    run "$OSHRUN" --help
    [ "$rc" = 0 ] && grep -q "usage: oshrun" "$out/stdout" || fail "--help"
    run "$OSHRUN" -np 3 true
    [ "$rc" = 0 ] || fail "-np 3 true: status $rc"
    echo "ok: option errors"
}

case_io() {
    # Lines written in pieces are never cut by other PEs' lines.
    run "$OSHRUN" -n 4 sh -c 'printf "aaaa"; sleep 0.2; printf "bbbb\n"'
    [ "$rc" = 0 ] || fail "status $rc"
    [ "$(grep -c '^aaaabbbb$' "$out/stdout")" = 4 ] || fail "lines were mixed"
    # --tag-output, stdin to PE 0 only, -x, the loopback default.
    printf 'line1\nline2\n' >"$out/in"
    "$OSHRUN" -n 3 --tag-output -x WEFT_T1=yes -x FI_TCP_IFACE=eth9 sh -c \
        'wc -l | tr -d " "; echo "$WEFT_T1 $FI_TCP_IFACE $FI_SOCKETS_IFACE"' \
        <"$out/in" >"$out/stdout" 2>"$out/stderr"
    rc=$?
    [ "$rc" = 0 ] || fail "status $rc"
    grep -qx '\[pe 0\] 2' "$out/stdout" || fail "PE 0 did not read stdin"
    [ "$(grep -c '^\[pe [12]\] 0$' "$out/stdout")" = 2 ] || fail "other PEs read stdin"
    [ "$(grep -c '^\[pe [0-2]\] yes eth9 lo$' "$out/stdout")" = 3 ] || fail "environment"
    [ "$(grep -vc '^\[pe [0-2]\] ' "$out/stdout")" = 0 ] || fail "untagged lines"
    # -x VAR passes this environment's value; --bind sets SHMEM_BIND.
    WEFT_T2="two words" run "$OSHRUN" -n 2 -x WEFT_T2 --bind numa sh -c 'echo "$WEFT_T2/$SHMEM_BIND"'
    [ "$rc" = 0 ] && [ "$(grep -c '^two words/numa$' "$out/stdout")" = 2 ] || fail "-x VAR or --bind"
    # A SIGTERM to oshrun reaches every PE; status 128+15.
    "$OSHRUN" -n 2 sleep 30 >"$out/stdout" 2>"$out/stderr" </dev/null &
    pid=$!
    sleep 0.5
    kill -TERM $pid
    wait $pid
    rc=$?
    [ "$rc" = 143 ] || fail "after SIGTERM: status $rc, expected 143"
    echo "ok: output lines, tags, stdin, environment, signals"
}

# Output that waited in the pipes while oshrun was stopped comes out in
# rank order, before what a PE's exit brings (its last lines, oshrun's
# message about it): PE 0's line was written first and must come first.
case_order() {
    local pid
    "$OSHRUN" -n 3 sh -c 'case $PMIX_RANK in
        0) sleep 0.8; echo "first from 0"; sleep 1.5 ;;
        1) sleep 2.3 ;;
        2) sleep 1.2; echo "last from 2"; exit 4 ;;
        esac' >"$out/stdout" 2>&1 </dev/null &
    pid=$!
    sleep 0.4
    kill -STOP $pid
    sleep 1.6
    kill -CONT $pid
    wait $pid
    rc=$?
    [ "$rc" = 4 ] || fail "status $rc, expected 4"
    grep -n . "$out/stdout" | sed 's/^/  /'
    [ "$(grep -n 'first from 0' "$out/stdout" | cut -d: -f1)" = 1 ] &&
        [ "$(grep -n 'last from 2' "$out/stdout" | cut -d: -f1)" = 2 ] ||
        fail "lines out of the order they were written in"
    grep -q 'PE 2 (pid [0-9]*) exited with status 4' "$out/stdout" || fail "no message"
    echo "ok: pending output comes out in order, before the exit is handled"
}

# What oshrun puts in every PE's environment, and the PE number in messages
# about bad variables (before the PE has connected to the launcher).
case_env() {
    need "$1"
    run "$OSHRUN" -n 2 sh -c 'echo "ipath=$IPATH_NO_BACKTRACE"'
    [ "$rc" = 0 ] && [ "$(grep -c '^ipath=1$' "$out/stdout")" = 2 ] ||
        fail "IPATH_NO_BACKTRACE=1 is not in the PEs' environment"
    run "$OSHRUN" -n 2 -x IPATH_NO_BACKTRACE=0 sh -c 'echo "ipath=$IPATH_NO_BACKTRACE"'
    [ "$rc" = 0 ] && [ "$(grep -c '^ipath=0$' "$out/stdout")" = 2 ] ||
        fail "the user's IPATH_NO_BACKTRACE was replaced"
    run env SHMEM_LOCAL=maybe "$OSHRUN" -n 2 "$1" -n 2
    [ "$rc" != 0 ] || fail "a bad variable went unnoticed"
    grep -q "pe -1" "$out/stderr" && fail "a message without the PE number"
    grep -q "^weft\[pe [01]\] .*SHMEM_LOCAL='maybe' is invalid" "$out/stderr" ||
        fail "no message naming the PE and the variable"
    run env -u PMIX_RANK SHMEM_LOCAL=maybe "$1" -n 1
    [ "$rc" != 0 ] || fail "a bad variable went unnoticed (singleton)"
    grep -q "^weft: .*SHMEM_LOCAL='maybe' is invalid" "$out/stderr" ||
        fail "singleton: no message starting with 'weft: '"
    echo "ok: PE environment; messages about bad variables name the PE"
}

case_exec() {
    # A PE that cannot even start: named, and the job ends non-zero.
    printf '\177ELF broken' >"$out/broken"
    chmod +x "$out/broken"
    run timeout 10 "$OSHRUN" -n 3 "$out/broken"
    [ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "status $rc"
    grep -q "oshrun: PE [0-2] (pid [0-9]*) exited with status 127" "$out/stderr" ||
        fail "the failed PE is not named"
    # PEs that ignore SIGTERM are killed all the same, within 2 s.
    run timeout 20 "$OSHRUN" -n 3 sh -c \
        'if [ "$PMIX_RANK" = 1 ]; then sleep 0.3; exit 6; fi; trap "" TERM; sleep 30'
    [ "$rc" = 6 ] || fail "status $rc, expected 6"
    awk -v s="$secs" 'BEGIN { exit !(s < 2.3) }' || fail "took ${secs}s to stop PEs that ignore SIGTERM"
    # Programs that do not use PMIx run and succeed.
    run "$OSHRUN" -n 2 sh -c 'exit 0'
    [ "$rc" = 0 ] || fail "a plain program: status $rc"
    run "$OSHRUN" -n 2 sh -c 'exit 4'
    [ "$rc" = 4 ] || fail "a plain program exiting 4: status $rc"
    echo "ok: exec failures and plain programs"
}

what=${1:-}
shift || true
case "$what" in
oshrun | singleton | mpirun | srun | hydra | orphan | fault | options | io | exec | order | env) "case_$what" "$@" ;;
srun-multi) case_srun_multi "$@" ;;
misuse) case_misuse "$@" ;;
init-thread) case_init_thread "$@" ;;
*) echo "usage: launch.sh oshrun|singleton|mpirun|srun|hydra|orphan|fault|options|io|exec|order|env ..." >&2; exit 2 ;;
esac
