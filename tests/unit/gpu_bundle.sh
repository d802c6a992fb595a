#!/usr/bin/env bash
# `make gpu-bundle` (scripts/gpu-bundle.sh) writes a folder that runs
# without anything of this machine but the GPU driver, glibc included:
#   1. it is built into a temporary folder, then moved elsewhere (every path
#      must come from where it lies, not from where it was built); every
#      program in it is a script that starts the real one through the
#      bundle's loader;
#   2. every library of every ELF file in it resolves inside it (the
#      bundle's loader with --list), glibc's too;
#   3. in a 2-PE job through libfabric (strace, where installed), oshrun
#      and both PEs are started by the bundle's loader, load its libc.so.6,
#      and open no ELF file outside it; no other process of the job (the
#      shells, timeout) loads anything of the bundle, so nothing handed the
#      bundle's glibc to them;
#   4. after a second move, and through a link to one of its programs, its
#      run-gpu-tests.sh passes a few cases on 2 and 4 PEs and the
#      benchmarks with the mock device, under `env -i` (those whose kernels
#      are GPU code, *_cuda and *_hip, skip).
# As root, 3 and 4 run in a mount namespace where this machine's libfabric,
# libpmix, libhwloc, their plug-ins and the build tree's libweft are empty
# files, and so are this machine's glibc libraries but libc.so.6 and the
# loader (which the namespace's own shell, timeout and strace need) and
# /etc/ld.so.cache (as on a machine whose cache another glibc wrote): a
# bundle that still used any of them fails.
# Run by tests/run-tests with S and B set (tests/unit/unit.cases).
set -u
: "${S:?S (the source folder) must be set}" "${B:?B (the build folder) must be set}"

# A few cases of tests/gpu/gpu.cases, on the load/store path and through
# libfabric's shm and tcp providers, 2 and 4 PEs; then the benchmarks.
cases='gpu_smoke_mock_2 gpu_alloc_mock_4 gpu_amo_mock_2 gpu_api_mock_shm_2 gpu_alloc_mock_tcp_2 gpu_bad_free_2'

fail() {
    echo "FAIL: $*"
    exit 1
}

# The bundle's point is to carry libfabric: without it here, nothing to do.
if ! { /sbin/ldconfig -p 2>/dev/null || ldconfig -p 2>/dev/null; } | grep -q 'libfabric\.so\.1 '; then
    echo "no libfabric.so.1 on this machine: skipped"
    exit 77
fi

t=$(mktemp -d "${TMPDIR:-/tmp}/weft-bundle.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT
# Without links, so that the paths strace shows are these.
t=$(cd "$t" && pwd -P) || exit 1

# 1. Built through make, as a user would, without the make that runs the
# tests passing its jobserver down.
echo "== make gpu-bundle BUNDLE_DIR=$t/built/weft-gpu-bundle"
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$B" gpu-bundle \
    BUNDLE_DIR="$t/built/weft-gpu-bundle" || fail "make gpu-bundle failed"
mkdir -p "$t/elsewhere"
mv "$t/built/weft-gpu-bundle" "$t/elsewhere/bundle" || exit 1
rmdir "$t/built"
bd=$t/elsewhere/bundle
for f in bin/oshrun bin/shmem_info bin/weft lib/libweft.so.0 lib/libfabric.so.1 \
    run-gpu-tests.sh weft-env.sh tests/gpu/gpu.cases; do
    [ -e "$bd/$f" ] || fail "the bundle has no $f"
done
progs=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$B" \
    gpu-bundle-programs) || fail "make gpu-bundle-programs failed"
[ -n "$progs" ] || fail "make gpu-bundle-programs listed nothing"
for p in $progs; do
    [ -e "$bd/$p" ] || fail "the bundle has no $p"
done

# 1b. The programs are scripts; their ELF files are under libexec.
for f in bin/oshrun bin/shmem_info tests/gpu/device_smoke; do
    head -n 1 "$bd/$f" | grep -q '^#!/bin/sh' || fail "$f is not the script that starts libexec/$f"
done
ld=$bd/lib/glibc/ld-linux-x86-64.so.2
[ -x "$ld" ] || fail "the bundle has no loader lib/glibc/ld-linux-x86-64.so.2"
grep -Eq '^[0-9]+\.[0-9]+' "$bd/lib/glibc/version" 2>/dev/null ||
    fail "lib/glibc/version does not say which glibc the bundle carries"

# 2. Libraries: inside the bundle, the GPU driver's aside.
echo "== the bundle's loader --list on every ELF file of the bundle"
elves=0
while read -r f; do
    [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
    [ "$f" = "$ld" ] && continue
    case "$f" in "$bd"/libexec/* | "$bd"/lib/*) ;; *) fail "${f#"$bd"/} is an ELF file outside lib and libexec: it would start with this machine's glibc" ;; esac
    elves=$((elves + 1))
    out=$("$ld" --library-path "$bd/lib/glibc:$bd/lib" --list "$f" 2>&1)
    while read -r name arrow path _; do
        [ "$arrow" = '=>' ] || continue
        case "$name" in libcuda.so* | libnvidia-*) continue ;; esac
        case "$path" in
        "$bd"/*) ;;
        *) fail "${f#"$bd"/} loads $name from ${path}, outside the bundle" ;;
        esac
    done <<<"$out"
done < <(find "$bd" -type f)
[ $elves -ge 3 ] || fail "only $elves ELF files in the bundle"
echo "$elves ELF files: every library inside the bundle, glibc's too"

# The namespace of 3 and 4 (as root): what it hides.
hide=()
for f in /usr/lib/x86_64-linux-gnu/libfabric.so* /usr/lib/x86_64-linux-gnu/libpmix.so* \
    /usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so* /usr/lib/x86_64-linux-gnu/libhwloc.so* \
    "$B"/.libs/libweft.so* /etc/ld.so.cache; do
    [ -e "$f" ] && hide+=("$(readlink -f "$f")")
done
for n in libm.so.6 libmvec.so.1 libdl.so.2 libpthread.so.0 librt.so.1 libresolv.so.2 \
    libutil.so.1 libanl.so.1 libnss_files.so.2 libnss_dns.so.2; do
    for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64 /usr/lib64; do
        [ -e "$d/$n" ] && hide+=("$(readlink -f "$d/$n")")
    done
done
mapfile -t hide < <(printf '%s\n' "${hide[@]}" | sort -u)
: >"$t/empty"
ns=0
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
    ns=1
    echo "== 3 and 4 run in a mount namespace hiding ${#hide[@]} files:"
    printf '   %s\n' "${hide[@]}"
elif [ "$(id -u)" != 0 ]; then
    echo "== not root: the mount namespace hiding this machine's libraries is skipped"
else
    echo "== unshare -m is refused here: the mount namespace hiding this machine's libraries is skipped"
fi

# Runs a command, in the namespace when there is one. The mounts are made
# and the command run in the namespace's one shell.
in_ns() {
    if [ $ns = 0 ]; then
        "$@"
        return
    fi
    unshare -m bash -c '
        set -e
        mount --make-rprivate /
        empty=$1; shift
        while [ "$1" != -- ]; do mount --bind "$empty" "$1"; shift; done
        shift
        for d in /usr/lib/x86_64-linux-gnu/pmix2/lib/pmix /usr/lib/x86_64-linux-gnu/hwloc; do
            [ -d "$d" ] && mount -t tmpfs none "$d"
        done
        for f in /usr/lib/x86_64-linux-gnu/libfabric.so.1 /lib/x86_64-linux-gnu/libm.so.6; do
            if [ -s "$f" ]; then echo "$f is still readable" >&2; exit 1; fi
        done
        set +e
        "$@"
    ' hide "$t/empty" "${hide[@]}" -- "$@"
}

# 3. What each process of a job runs and opens: strace -ff writes one
# file per process, so each line is in the order that process ran it.
if command -v strace >/dev/null 2>&1; then
    echo "== strace of a 2-PE job through libfabric (tcp)"
    mkdir "$t/st"
    (cd "$t" && in_ns env -i PATH=/usr/bin:/bin HOME="${HOME:-/}" FI_TCP_IFACE=lo \
        SHMEM_DEVICE_BACKEND=mock SHMEM_LOCAL=0 SHMEM_OFI_PROVIDER='tcp;ofi_rxm' \
        strace -ff -qq -s 256 -e trace=open,openat,execve,clone,clone3,fork,vfork \
        -o "$t/st/trace" "$bd/bin/weft" oshrun -n 2 "$bd/tests/gpu/device_smoke") ||
        fail "the job under strace failed"
    # Per process (PID) and per program it ran (after each execve), the
    # files it opened: "O PID IMAGE PATH", IMAGE the program run then
    # (inherited from the parent until the first execve); and each program
    # run: "X PID PATH ARGV0", ARGV0 what followed --argv0.
    awk '
        function image(p, k) {
            if (k > 0) return ex[p, k]
            return (p in par) ? image(par[p], pseg[p]) : "-"
        }
        FNR == 1 { pid = FILENAME; sub(/.*\./, "", pid); nseg[pid] = 0; pids[++np] = pid }
        /^execve\(/ && / = 0$/ {
            path = $0; sub(/^execve\("/, "", path); sub(/".*/, "", path)
            a0 = "-"
            if (index($0, "\"--argv0\", \"")) {
                a0 = substr($0, index($0, "\"--argv0\", \"") + 12); sub(/".*/, "", a0)
            }
            nseg[pid]++; ex[pid, nseg[pid]] = path; ea[pid, nseg[pid]] = a0; next
        }
        /^(clone3?|v?fork)\(/ && $NF ~ /^[0-9]+$/ { par[$NF] = pid; pseg[$NF] = nseg[pid]; next }
        /^open(at)?\(/ && !/ = -1 / {
            path = $0; sub(/^[^"]*"/, "", path); sub(/".*/, "", path)
            n++; op[n] = pid; os[n] = nseg[pid]; on[n] = path
        }
        END {
            for (i = 1; i <= n; i++) print "O\t" op[i] "\t" image(op[i], os[i]) "\t" on[i]
            for (i = 1; i <= np; i++)
                for (k = 1; k <= nseg[pids[i]]; k++)
                    print "X\t" pids[i] "\t" ex[pids[i], k] "\t" ea[pids[i], k]
        }' "$t"/st/trace.* >"$t/events"
    # oshrun and the two PEs, each under its own name.
    ours=$(awk -F'\t' -v ld="$ld" '$1 == "X" && $3 == ld { print $2 }' "$t/events")
    names=$(awk -F'\t' -v ld="$ld" '$1 == "X" && $3 == ld { print $4 }' "$t/events" | sort | tr '\n' ' ')
    [ "$names" = "$bd/bin/oshrun $bd/tests/gpu/device_smoke $bd/tests/gpu/device_smoke " ] ||
        fail "the bundle's loader did not start oshrun and 2 PEs under their names: $names"
    for p in $ours; do
        awk -F'\t' -v p="$p" -v ld="$ld" -v libc="$bd/lib/glibc/libc.so.6" \
            '$1 == "O" && $2 == p && $3 == ld && $4 == libc { f = 1 } END { exit !f }' "$t/events" ||
            fail "process $p did not load the bundle's libc.so.6"
    done
    # What the bundle's programs opened outside it: data, never code.
    while IFS=$'\t' read -r _ p img path; do
        [ "$img" = "$ld" ] || continue
        case "$path" in "$bd"/* | /proc/* | /sys/* | /dev/*) continue ;; /*) ;; *) path=$t/$path ;; esac
        case "$path" in "$bd"/*) continue ;; esac
        if [[ "$path" =~ \.so(\.[0-9]+)*$ ]] ||
            { [ -f "$path" ] && [ "$(head -c 4 "$path" | od -An -c | tr -d ' ')" = '177ELF' ]; }; then
            fail "process $p of the bundle opened $path, outside it"
        fi
    done < <(grep '^O' "$t/events")
    # And the other processes nothing of the bundle's libraries, nor ran its
    # ELF files but through its loader.
    leak=$(awk -F'\t' -v ld="$ld" -v bd="$bd" '
        $1 == "O" && $3 != ld && (index($4, bd "/libexec/") == 1 ||
            (index($4, bd "/lib/") == 1 && $4 ~ /\.so(\.[0-9]+)*$/)) { print $3 " opened " $4 }
        $1 == "X" && $3 != ld && (index($3, bd "/lib/") == 1 || index($3, bd "/libexec/") == 1) { print "ran " $3 }' \
        "$t/events" | sort -u)
    [ -z "$leak" ] || fail "outside the bundle's loader: $leak"
    echo "oshrun and 2 PEs: the bundle's loader and libc.so.6, no ELF file from outside;" \
        "$(awk -F'\t' -v ld="$ld" '$1 == "X" && $3 != ld' "$t/events" | wc -l) other programs: nothing of the bundle's"
else
    echo "== strace is not installed: the check of what a job runs and opens is skipped"
fi

# 4. Moved again, and through a link to its oshrun from elsewhere: the
# bundle's own test script, with nothing of this shell's environment.
mkdir -p "$t/moved"
mv "$bd" "$t/moved/bundle" || exit 1
bd=$t/moved/bundle
mkdir -p "$t/links"
ln -s "$bd/bin/oshrun" "$t/links/oshrun"
(cd "$t/links" && env -i PATH=/usr/bin:/bin SHMEM_DEVICE_BACKEND=mock \
    ./oshrun -n 2 "$bd/tests/gpu/device_smoke") >"$t/link.log" 2>&1 ||
    { cat "$t/link.log"; fail "oshrun through a link to it failed"; }
echo "== run-gpu-tests.sh under env -i, after a second move"
in_ns env -i PATH=/usr/bin:/bin HOME="${HOME:-/}" BACKEND=mock \
    CASES="$cases bench_*" BENCH_ARGS=65536 sh "$bd/run-gpu-tests.sh" "$t/results" \
    >"$t/table" 2>"$t/progress"
rc=$?
cat "$t/table"
benches=
for p in "$bd"/bench/gpu/*; do
    [ -f "$p" ] && benches="$benches bench_$(basename "$p")"
done
if [ $rc != 0 ]; then
    tail -n 20 "$t/progress"
    grep ',fail,' "$t/results/results.csv" 2>/dev/null | cut -d, -f1 | while read -r c; do
        echo "--- $c"
        tail -n 20 "$t/results/logs/$c.log"
    done
    fail "run-gpu-tests.sh exited with status $rc"
fi
# A benchmark whose kernels are GPU code (bench/gpu/*_cuda, *_hip) cannot
# run on the mock: it must say so with a skip, and every other must pass.
for c in $cases $benches; do
    want=pass
    case "$c" in bench_*_cuda | bench_*_hip) want=skip ;; esac
    grep -Eq "^$c +[0-9]+ +$want " "$t/table" || fail "the table has no $want row for $c"
done
grep -q ',fail,' "$t/results/results.csv" && fail "results.csv lists a failure"
grep -Eq '^[0-9]+ passed, 0 failed' "$t/table" || fail "no '0 failed' summary"
echo "bundle: $(du -sh "$bd" | cut -f1); every case passed"
