#!/usr/bin/env bash
# Builds Weft with sanitizers in separate build directories and runs a subset
# of the test suite under them; any sanitizer or valgrind report fails.
#
#   scripts/sanitize-check.sh [--only asan|tsan|valgrind]... [--builddir-prefix P]
#                             [--filter REGEX] [--no-build]
#
#   asan      ASan + UBSan build (P-asan, CFLAGS/LDFLAGS "-O1 -g
#             -fsanitize=address,undefined -fno-omit-frame-pointer"): runs
#             the ASAN_FILTER cases and a short soak (tests/stress) on the
#             load/store path and on tcp;ofi_rxm with halt_on_error=1, then
#             checks the PEs of a hello and of the soak for leaks (all but
#             those inside PMIx, libevent, libfabric and hwloc:
#             tests/sanitize/lsan.supp).
#   tsan      TSan build (P-tsan) for the thread tests (dp_threads on the
#             load/store path and on shm, init_thread). Skipped with a note
#             when TSan cannot start on this kernel.
#   valgrind  plain -O1 -g static build (P-valgrind): memcheck on a 2-PE
#             hello and a 2-PE RMA test (dp_rma), --error-exitcode, with
#             suppressions for PMIx/libfabric/hwloc only
#             (tests/sanitize/valgrind.supp).
# --filter replaces the case list of asan/tsan; --no-build reuses the builds.
# Default: all three parts; P defaults to build-sanitize in the source tree.
# Exit status 0 when every part passed or was skipped, 1 otherwise.
# About 15 minutes from scratch on a busy 2-core machine (mostly the three
# builds), 5 when the build directories are up to date. JOBS=N: make -jN.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
prefix=$src/build-sanitize
parts=()
filter_override=""
build=1
while [ $# -gt 0 ]; do
    case "$1" in
    --only) parts+=("$2"); shift 2 ;;
    --builddir-prefix) prefix=$2; shift 2 ;;
    --filter) filter_override=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "sanitize-check: unknown option $1" >&2; exit 2 ;;
    esac
done
[ ${#parts[@]} -gt 0 ] || parts=(asan tsan valgrind)
supp=$src/tests/sanitize
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo
jobs=${JOBS:-2}

# Among the ASan cases, gpu_kernel_ops_mock_2 and _proxy_2: the device API's
# kernels as host threads on the mock, the proxy's ring and thread.
# gpu_stream_*: the streams (direct copies and lanes), their misuse
# (destroyed, unknown, bad buffers and sizes) and shmem_finalize's drain.
ASAN_FILTER='^(unit_size_parse|unit_env|heap_alloc_unit|heap_shm_unit|dp_unit|launch_shmem_oshrun_2|launch_shmem_fault_kill|heap_basic_2|heap_ptr_2|heap_static_2|heap_bad_free_2|dp_rma_2|dp_amo_2|dp_signal_2|dp_wait_2|dp_order_2|dp_rma_tcp_2|ofi_ops_shm_2|coll_barrier_2|coll_data_2|coll_reduce_2|coll_teams_2|coll_lock_2|badin_(put_pe|put_addr|free_private|free_inside|malloc_huge|finalize_some|provider_unknown|size_unmappable)|iso_concurrent|iso_kill|gpu_stream_order_mock_2|gpu_stream_order_shm_2|gpu_stream_reduce_mock_2|gpu_stream_bad_(destroy2|deadput|deadput_shm|deadsync|garbage|garbagehf|memcpy16|memcpybig|huge|hugecoll|hugered)_2|gpu_stream_finalize_(mock_2|shm_2|onebarrier_2|stuck_2)|gpu_kernel_ops_mock_2|gpu_kernel_ops_proxy_2|gpu_kernel_reserve_dev_p_2|gpu_kernel_proxy_(big_g|big_p|bad_src|ro_dst|sync_word)_2)$'
TSAN_FILTER='^(dp_threads_2|dp_threads_shm_2|launch_shmem_init_thread)$'

failed=()
note() { printf '\n== sanitize-check: %s\n' "$*"; }

# Programs (tests/...) the selected cases run, so only those are built.
programs_for() {
    local re=$1
    awk -v re="$re" '$1 !~ /^#/ && $1 ~ re { for (i = 3; i <= NF; i++) print $i }' \
        "$src"/tests/*/*.cases |
        tr -d "'\"" | sed 's|^\$B/||' | grep -E '^tests/[A-Za-z0-9_/-]+$' |
        sort -u
}

# configure_build DIR CFLAGS LDFLAGS [CONFIGURE ARGS...]
configure_build() {
    local dir=$1 cflags=$2 ldflags=$3
    shift 3
    mkdir -p "$dir" || return 1
    if [ ! -f "$dir/Makefile" ]; then
        (cd "$src" && { test -f configure || autoreconf -fi; }) || return 1
        (cd "$dir" && "$src/configure" -q CFLAGS="$cflags" CXXFLAGS="$cflags" \
            LDFLAGS="$ldflags" "$@") || { echo "configure failed in $dir"; return 1; }
    fi
}

# make_targets DIR TARGET...: the library, the launcher and the programs.
make_targets() {
    local dir=$1
    shift
    [ $build = 1 ] || return 0
    (cd "$dir" && make -j"$jobs" -s libweft.la tools/oshrun "$@") >"$dir/sanitize-build.log" 2>&1 ||
        { tail -n 30 "$dir/sanitize-build.log"; echo "build failed in $dir"; return 1; }
}

# run_cases DIR REGEX: the runner, then a scan of every log for reports
# (a report in a job that still exited 0 must not go unnoticed).
run_cases() {
    local dir=$1 re=$2 rc
    (cd "$dir" && bash "$src/tests/run-tests" --srcdir "$src" --builddir . --filter "$re")
    rc=$?
    if grep -l -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|WARNING: ThreadSanitizer' \
        "$dir"/tests/logs/*.log 2>/dev/null | grep -q .; then
        echo "sanitizer reports in:"
        grep -l -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|WARNING: ThreadSanitizer' \
            "$dir"/tests/logs/*.log
        rc=1
    fi
    return $rc
}

# run_logged LOG CMD...: runs in the build directory $dir; shows the last
# line, or the last 30 on failure.
run_logged() {
    local log=$1 r
    shift
    (cd "$dir" && "$@") >"$log" 2>&1 </dev/null
    r=$?
    if [ $r = 0 ]; then
        tail -n 1 "$log"
    else
        tail -n 30 "$log"
        echo "FAIL: status $r (log $log)"
    fi
    return $r
}

part_asan() {
    local dir=$prefix-asan re=${filter_override:-$ASAN_FILTER}
    local f="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer"
    note "ASan + UBSan in $dir"
    configure_build "$dir" "$f" "$f" || return 1
    make_targets "$dir" $(programs_for "$re") tests/stress/stress \
        tests/isolation/iso_job || return 1
    # halt_on_error: the first report ends the PE, so the job fails;
    # abort_on_error=0 keeps the status an exit code oshrun reports.
    # Leaks are a separate pass below: at exit, the test programs and the
    # launcher still hold memory they never meant to free.
    local base="halt_on_error=1:abort_on_error=0:exitcode=86:detect_stack_use_after_return=0:strict_string_checks=1"
    export ASAN_OPTIONS="$base:detect_leaks=0"
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=87:suppressions=$supp/ubsan.supp"
    local rc=0
    run_cases "$dir" "$re" || rc=1
    # A short soak: every kind of operation, on both paths.
    echo "-- stress, 4 PEs, load/store path"
    run_logged "$dir/stress-local.log" timeout 120 tools/oshrun -n 4 \
        tests/stress/stress --seconds 5 --max-size 262144 || rc=1
    echo "-- stress, 2 PEs, tcp;ofi_rxm"
    run_logged "$dir/stress-tcp.log" env SHMEM_LOCAL=0 SHMEM_OFI_PROVIDER='tcp;ofi_rxm' \
        timeout 180 tools/oshrun -n 2 tests/stress/stress --seconds 5 \
        --max-size 262144 --max-reduce 16384 || rc=1
    # Leaks of the PEs (the library's included) at exit; only PMIx,
    # libevent, libfabric and hwloc keep what they allocated
    # (tests/sanitize/lsan.supp). The launcher runs without leak checks.
    local leak_env=(env "ASAN_OPTIONS=$base:detect_leaks=1"
                    "LSAN_OPTIONS=suppressions=$supp/lsan.supp:print_suppressions=0")
    local prog
    for prog in "tests/launch/shmem_hello" "tests/stress/stress --seconds 3 --max-size 65536"; do
        echo "-- leaks: oshrun -n 2 $prog"
        (cd "$dir" && timeout 120 tools/oshrun -n 2 "${leak_env[@]}" $prog >"$dir/leaks.log" 2>&1)
        if [ $? != 0 ] || grep -q 'ERROR: LeakSanitizer' "$dir/leaks.log"; then
            tail -n 40 "$dir/leaks.log"
            echo "FAIL: leaks in $prog"
            rc=1
        else
            echo "PASS: no leaks in $prog"
        fi
    done
    unset ASAN_OPTIONS UBSAN_OPTIONS
    return $rc
}

# TSan cannot map its shadow memory with the high mmap randomization of
# recent kernels (it dies with "unexpected memory mapping").
tsan_usable() {
    local dir=$1 t=$dir/tsan-probe
    printf 'int main(void) { return 0; }\n' >"$t.c"
    gcc -fsanitize=thread -o "$t" "$t.c" 2>/dev/null && "$t" >/dev/null 2>&1
}

part_tsan() {
    local dir=$prefix-tsan re=${filter_override:-$TSAN_FILTER}
    local f="-O1 -g -fsanitize=thread -fno-omit-frame-pointer"
    note "TSan in $dir"
    mkdir -p "$dir"
    if ! tsan_usable "$dir"; then
        echo "skipped: a TSan program cannot start on this kernel (vm.mmap_rnd_bits=$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null)); try setarch -R"
        return 0
    fi
    configure_build "$dir" "$f" "$f" || return 1
    make_targets "$dir" $(programs_for "$re") || return 1
    export TSAN_OPTIONS="halt_on_error=1:exitcode=88:second_deadlock_stack=1:suppressions=$supp/tsan.supp"
    local rc=0
    run_cases "$dir" "$re" || rc=1
    unset TSAN_OPTIONS
    return $rc
}

part_valgrind() {
    local dir=$prefix-valgrind rc=0
    note "valgrind memcheck in $dir"
    command -v valgrind >/dev/null || { echo "skipped: valgrind is not installed (apt-get install valgrind)"; return 0; }
    # static: the test programs are real executables, not libtool wrappers
    configure_build "$dir" "-O1 -g" "" --disable-shared --enable-static || return 1
    make_targets "$dir" tests/launch/shmem_hello tests/dataplane/dp_rma || return 1
    local vg=(valgrind -q --error-exitcode=99 --track-origins=yes
              --leak-check=full --errors-for-leak-kinds=definite
              --show-leak-kinds=definite --suppressions="$supp/valgrind.supp")
    for prog in "tests/launch/shmem_hello" "tests/dataplane/dp_rma"; do
        echo "-- valgrind: oshrun -n 2 $prog"
        (cd "$dir" && timeout 600 tools/oshrun -n 2 "${vg[@]}" "$prog") >"$dir/valgrind-${prog##*/}.log" 2>&1
        local r=$?
        tail -n 15 "$dir/valgrind-${prog##*/}.log"
        if [ $r != 0 ] || grep -q '^==[0-9]*== ' "$dir/valgrind-${prog##*/}.log"; then
            echo "FAIL: valgrind on $prog (status $r; log $dir/valgrind-${prog##*/}.log)"
            rc=1
        else
            echo "PASS: valgrind on $prog"
        fi
    done
    return $rc
}

for p in "${parts[@]}"; do
    case "$p" in
    asan|tsan|valgrind) "part_$p" || failed+=("$p") ;;
    *) echo "sanitize-check: unknown part '$p' (asan, tsan, valgrind)" >&2; exit 2 ;;
    esac
done
note "done"
if [ ${#failed[@]} -gt 0 ]; then
    echo "failed: ${failed[*]}"
    exit 1
fi
echo "all passed: ${parts[*]}"
