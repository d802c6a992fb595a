#!/bin/sh
# Runs the GPU test cases and benchmarks of a Weft GPU bundle
# (scripts/gpu-bundle.sh) on the machine it was copied to, and prints one
# table: case, PEs, status (pass, fail or skip), seconds; then what each
# benchmark printed.
#
#   run-gpu-tests.sh [OUTDIR]
#
# The cases are those of tests/gpu/gpu.cases (the format of tests/run-tests:
# NAME TIMEOUT[:serial] COMMAND, exit status 77 a skip) that start their
# PEs with `$OSHRUN -n N`, N one of PES, whose programs are in the bundle,
# and that were written for the mock device or for BACKEND. The mock's
# cases run with SHMEM_DEVICE_BACKEND=BACKEND: on a real GPU they are the
# device-heap tests, the PEs sharing the one device through IPC. For
# another back end than the mock, the variables that only the mock knows
# (SHMEM_DEVICE_MOCK_DMA, the tests' GT_* expectations of its routes) are
# dropped, and a case that then repeats an earlier one is a skip. Then each
# program of bench/gpu runs on 2 PEs; one whose kernels are built for
# another back end skips (kernel_bench's are host code, for the mock only;
# kernel_bench_cuda's are CUDA code, never for the mock).
#
# Environment:
#   BACKEND        device back end (cuda; also hip, mock)
#   PES            PE counts to run ("2 4")
#   CASES          shell patterns of the case names to run (all)
#   CASE_TIMEOUT   seconds per case (the case's own TIMEOUT)
#   BENCH          no: leave the benchmarks out
#   BENCH_ARGS     arguments of every benchmark (none)
#   BENCH_TIMEOUT  seconds per benchmark (600)
#   PREFLIGHT      no: run the cases even when BACKEND finds no device
#                  (first checked with device_smoke on 1 PE)
#   OUT            output folder when OUTDIR is not given (else a new
#                  folder under TMPDIR)
# OUTDIR gets logs/NAME.log per case and benchmark and results.csv, the
# table. The exit status is 1 when a case or benchmark failed, 2 when
# nothing ran.
#
# Plain sh and coreutils only: the target machine may have nothing else.
set -u

here=$(cd "$(dirname "$0")" && pwd -P) || exit 2
WEFT_HOME=$here
export WEFT_HOME
. "$here/weft-env.sh" || exit 2

backend=${BACKEND:-cuda}
pes=${PES:-2 4}
patterns=${CASES:-*}
out=${1:-${OUT:-}}
if [ -z "$out" ]; then
    out=$(mktemp -d "${TMPDIR:-/tmp}/weft-gpu-results.XXXXXX") || exit 2
fi
mkdir -p "$out/logs" || exit 2
out=$(cd "$out" && pwd -P) || exit 2
csv=$out/results.csv
rows=$out/.rows
: >"$rows"
echo "case,pes,status,seconds,backend,log" >"$csv"

# What the cases of tests/run-tests expect: $B and $S (the bundle has the
# files they name at the same paths), $OSHRUN, loopback for tcp and sockets.
B=$WEFT_HOME S=$WEFT_HOME OSHRUN=$WEFT_HOME/bin/oshrun
FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo
export B S OSHRUN FI_TCP_IFACE FI_SOCKETS_IFACE
nl='
'

# Nanoseconds since the epoch where date has %N, else whole seconds.
now_ns() {
    t=$(date +%s%N)
    case "$t" in *N | '') t=$(($(date +%s) * 1000000000)) ;; esac
    echo "$t"
}

# Runs COMMAND (a string, for sh -c) with a limit of LIMIT seconds, output
# added to LOG; sets rc and secs. timeout(1) signals the whole process group, the
# PEs too; without it a watchdog stops the shell at least.
run_limited() {
    limit=$1
    log=$2
    t0=$(now_ns)
    if command -v timeout >/dev/null 2>&1; then
        (cd "$out" && timeout -k 5 "$limit" sh -c "$3") >>"$log" 2>&1 </dev/null
        rc=$?
    else
        (cd "$out" && exec sh -c "$3") >>"$log" 2>&1 </dev/null &
        pid=$!
        (sleep "$limit"; kill -TERM "$pid" 2>/dev/null; sleep 5; kill -KILL "$pid" 2>/dev/null) &
        dog=$!
        wait "$pid"
        rc=$?
        kill "$dog" 2>/dev/null
        [ $rc -ge 128 ] && rc=124
    fi
    t1=$(now_ns)
    ms=$(((t1 - t0) / 1000000))
    secs=$((ms / 1000)).$((ms % 1000 / 100))$((ms % 100 / 10))
    [ $rc = 124 ] && echo "timed out after ${limit}s" >>"$log"
}

# Notes one row of the table.
row() {
    printf '%s %s %s %s\n' "$1" "$2" "$3" "$4" >>"$rows"
    echo "$1,$2,$3,$4,$backend,logs/$1.log" >>"$csv"
}

status_of() {
    case "$1" in
    0) echo pass ;;
    77) echo skip ;;
    *) echo fail ;;
    esac
}

# Removes every word of $cmd that starts with $1 (an assignment such as
# GT_DEVICE_ROUTE=ipc: no spaces in its value).
drop_words() {
    rest=$cmd cmd=
    while :; do
        case "$rest" in
        "$1"*) rest=${rest#"$1"} ;;
        *" $1"*) cmd=$cmd${rest%%" $1"*}" " rest=${rest#*" $1"} ;;
        *) break ;;
        esac
        case "$rest" in *" "*) rest=${rest#* } ;; *) rest= ;; esac
    done
    cmd=$cmd$rest
}

# Replaces every $1 in $cmd with $2.
replace() {
    rest=$cmd cmd=
    while :; do
        case "$rest" in
        *"$1"*) cmd=$cmd${rest%%"$1"*}$2 rest=${rest#*"$1"} ;;
        *) break ;;
        esac
    done
    cmd=$cmd$rest
}

# Whether every file the command names under $B or $S is in the bundle;
# prints the first that is not.
files_present() {
    set -f
    for w in $1; do
        case "$w" in
        *'$B/'* | *'$S/'*) ;;
        *) continue ;;
        esac
        p=${w#*'$'[BS]/}
        p=${p%%[!A-Za-z0-9_./-]*}
        if [ ! -e "$WEFT_HOME/$p" ]; then
            set +f
            echo "$p"
            return 1
        fi
    done
    set +f
    return 0
}

selected() {
    set -f
    for p in $patterns; do
        # shellcheck disable=SC2254
        case "$1" in $p) set +f; return 0 ;; esac
    done
    set +f
    return 1
}

# A back end that finds no device makes every case a skip, and the cases
# that expect an error of the device heap failures: say so once, instead.
smoke=$WEFT_HOME/tests/gpu/device_smoke
if [ "${PREFLIGHT:-yes}" != no ] && [ -x "$smoke" ]; then
    echo "+ SHMEM_DEVICE_BACKEND=$backend \$OSHRUN -n 1 \$B/tests/gpu/device_smoke" >"$out/logs/preflight.log"
    run_limited 120 "$out/logs/preflight.log" \
        "SHMEM_DEVICE_BACKEND=$backend \"\$OSHRUN\" -n 1 \"$smoke\""
    if [ $rc != 0 ]; then
        cat "$out/logs/preflight.log" >&2
        echo "run-gpu-tests.sh: SHMEM_DEVICE_BACKEND=$backend does not work here (status $rc, above); no case was run (PREFLIGHT=no runs them anyway)" >&2
        exit 2
    fi
fi

cases_file=$WEFT_HOME/tests/gpu/gpu.cases
[ -f "$cases_file" ] || { echo "run-gpu-tests.sh: no $cases_file" >&2; exit 2; }
have_bash=0
command -v bash >/dev/null 2>&1 && have_bash=1
seen=$nl
ran=0 failed=0 left=0 repeats=0
glibc='?'
[ -f "$WEFT_HOME/lib/glibc/version" ] && read -r glibc <"$WEFT_HOME/lib/glibc/version"
echo "run-gpu-tests.sh: SHMEM_DEVICE_BACKEND=$backend, PEs: $pes; the bundle's glibc $glibc; output in $out" >&2
while read -r name timeout cmd; do
    case "$name" in '' | '#'*) continue ;; esac
    selected "$name" || continue
    limit=${CASE_TIMEOUT:-${timeout%%:*}}
    case "$cmd" in
    *'$OSHRUN -n '*)
        n=${cmd#*'$OSHRUN -n '}
        n=${n%% *} ;;
    *) left=$((left + 1)); continue ;;
    esac
    case " $pes " in *" $n "*) ;; *) left=$((left + 1)); continue ;; esac
    case "$cmd" in
    *SHMEM_DEVICE_BACKEND=*)
        b=${cmd#*SHMEM_DEVICE_BACKEND=}
        b=${b%% *} ;;
    *) b= ;;
    esac
    # The stand-in runtime of the build tree (fakert) is not a GPU.
    case "$cmd" in *fakert*) left=$((left + 1)); continue ;; esac
    if [ "$b" = mock ] && [ "$backend" != mock ]; then
        replace SHMEM_DEVICE_BACKEND=mock "SHMEM_DEVICE_BACKEND=$backend"
        drop_words SHMEM_DEVICE_MOCK_DMA=
        drop_words GT_
    elif [ "$b" != "$backend" ]; then
        left=$((left + 1))
        continue
    fi
    if ! p=$(files_present "$cmd"); then
        left=$((left + 1))
        continue
    fi
    log=$out/logs/$name.log
    case "$seen" in
    *"$nl$cmd$nl"*)
        echo "skipped: the same run as an earlier case with SHMEM_DEVICE_BACKEND=$backend" >"$log"
        row "$name" "$n" skip 0.00
        repeats=$((repeats + 1))
        continue ;;
    esac
    seen=$seen$cmd$nl
    case "$cmd" in
    *.sh*)
        if [ $have_bash = 0 ]; then
            echo "skipped: needs bash" >"$log"
            row "$name" "$n" skip 0.00
            continue
        fi ;;
    esac
    echo "running $name ($n PEs)" >&2
    echo "+ $cmd" >"$log"
    run_limited "$limit" "$log" "$cmd"
    st=$(status_of $rc)
    ran=$((ran + 1))
    [ "$st" = fail ] && failed=$((failed + 1))
    row "$name" "$n" "$st" "$secs"
done <"$cases_file"

benches=
if [ "${BENCH:-yes}" != no ]; then
    for prog in "$WEFT_HOME"/bench/gpu/*; do
        [ -f "$prog" ] && [ -x "$prog" ] || continue
        name=bench_$(basename "$prog")
        selected "$name" || continue
        log=$out/logs/$name.log
        echo "running $name (2 PEs)" >&2
        : >"$log"
        run_limited "${BENCH_TIMEOUT:-600}" "$log" \
            "SHMEM_DEVICE_BACKEND=$backend \"\$OSHRUN\" -n 2 \"$prog\" ${BENCH_ARGS:-}"
        st=$(status_of $rc)
        ran=$((ran + 1))
        [ "$st" = fail ] && failed=$((failed + 1))
        row "$name" 2 "$st" "$secs"
        benches="$benches $name"
    done
fi

# The table: the widest name sets the first column.
w=4
while read -r name n st secs; do
    [ ${#name} -gt $w ] && w=${#name}
done <"$rows"
printf "%-${w}s  %3s  %-6s  %8s\n" case PEs status seconds
pass=0 skip=0
while read -r name n st secs; do
    printf "%-${w}s  %3s  %-6s  %8s\n" "$name" "$n" "$st" "$secs"
    case "$st" in pass) pass=$((pass + 1)) ;; skip) skip=$((skip + 1)) ;; esac
done <"$rows"
rm -f "$rows"
echo "$pass passed, $failed failed, $skip skipped ($repeats of them repeats of an earlier run; SHMEM_DEVICE_BACKEND=$backend; $left cases of gpu.cases not for this run; logs and results.csv in $out)"
for name in $benches; do
    echo
    echo "== $name (2 PEs, SHMEM_DEVICE_BACKEND=$backend) =="
    cat "$out/logs/$name.log"
done

[ $ran -gt 0 ] || { echo "run-gpu-tests.sh: no case ran" >&2; exit 2; }
[ $failed = 0 ]
