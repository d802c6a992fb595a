#!/usr/bin/env bash
# `make gpu-bundle` (scripts/gpu-bundle.sh) writes a folder that runs
# without anything of this machine but glibc:
#   1. it is built into a temporary folder, then moved elsewhere (every path
#      must come from where it lies, not from where it was built);
#   2. every library of every ELF file in it resolves inside it or to glibc
#      (ldd with the bundle's lib folder as LD_LIBRARY_PATH);
#   3. a 2-PE job through libfabric opens no shared object outside it but
#      glibc's (strace, where installed);
#   4. its run-gpu-tests.sh passes a few cases on 2 and 4 PEs and the
#      benchmarks with the mock device, under `env -i`, and as root in a
#      mount namespace where this machine's libfabric, libpmix, libhwloc,
#      their plug-ins and the build tree's libweft are empty files, so that
#      a bundle that still used them fails.
# Run by tests/run-tests with S and B set (tests/unit/unit.cases).
set -u
: "${S:?S (the source folder) must be set}" "${B:?B (the build folder) must be set}"

# A few cases of tests/gpu/gpu.cases, on the load/store path and through
# libfabric's shm and tcp providers, 2 and 4 PEs; then the benchmarks.
cases='gpu_smoke_mock_2 gpu_alloc_mock_4 gpu_amo_mock_2 gpu_api_mock_shm_2 gpu_alloc_mock_tcp_2 gpu_bad_free_2'
glibc_re='^(linux-vdso\.so|ld-linux[^ ]*\.so|lib(c|m|dl|pthread|rt|resolv|util|mvec|anl)\.so)'

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
for p in "$B"/bench/gpu/* "$B"/tests/gpu/*; do
    [ -f "$p" ] && [ -x "$p" ] || continue
    [ -e "$bd/${p#"$B"/}" ] || fail "the bundle has no ${p#"$B"/}"
done

# 2. Libraries: inside the bundle, or glibc's, or the GPU driver's.
echo "== ldd of every ELF file of the bundle"
elves=0
while read -r f; do
    [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
    elves=$((elves + 1))
    out=$(LD_LIBRARY_PATH=$bd/lib ldd "$f" 2>&1) || fail "ldd $f: $out"
    while read -r name arrow path _; do
        [ "$arrow" = '=>' ] || continue
        [[ "$name" =~ $glibc_re ]] && continue
        case "$name" in libcuda.so* | libnvidia-*) continue ;; esac
        case "$path" in
        "$bd"/*) ;;
        *) fail "${f#"$bd"/} loads $name from ${path}, outside the bundle" ;;
        esac
    done <<<"$out"
done < <(find "$bd" -type f)
[ $elves -ge 3 ] || fail "only $elves ELF files in the bundle"
echo "$elves ELF files: every library inside the bundle or glibc's"

# 3. What a job opens: every shared object from the bundle or glibc.
if command -v strace >/dev/null 2>&1; then
    echo "== strace of a 2-PE job through libfabric (tcp)"
    (cd "$t" && env -i PATH=/usr/bin:/bin HOME="${HOME:-/}" FI_TCP_IFACE=lo \
        SHMEM_DEVICE_BACKEND=mock SHMEM_LOCAL=0 SHMEM_OFI_PROVIDER='tcp;ofi_rxm' \
        strace -f -qq -e trace=openat -o "$t/trace" \
        "$bd/bin/weft" oshrun -n 2 "$bd/tests/gpu/device_smoke") ||
        fail "the job under strace failed"
    grep -q "\"$bd/lib/libfabric.so.1\".* = [0-9]" "$t/trace" ||
        fail "the job did not load the bundle's libfabric"
    outside=$(grep -v ' = -1 ' "$t/trace" | grep -o 'openat([^"]*"[^"]*"' |
        sed 's/.*"\(.*\)"/\1/' | grep -E '\.so(\.[0-9]+)*$|/(pmix|hwloc|libfabric)$' |
        grep -v "^$bd/" | while read -r p; do
            [[ "$(basename "$p")" =~ $glibc_re ]] || echo "$p"
        done | sort -u)
    [ -z "$outside" ] || fail "the job opened, outside the bundle: $outside"
    echo "no shared object or plug-in folder outside the bundle but glibc's"
else
    echo "== strace is not installed: the check of what a job opens is skipped"
fi

# 4. The bundle's own test script, with nothing of this shell's environment;
# as root, with this machine's copies of the libraries made unusable.
hide=()
for f in /usr/lib/x86_64-linux-gnu/libfabric.so* /usr/lib/x86_64-linux-gnu/libpmix.so* \
    /usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so* /usr/lib/x86_64-linux-gnu/libhwloc.so* \
    "$B"/.libs/libweft.so*; do
    [ -e "$f" ] && hide+=("$(readlink -f "$f")")
done
mapfile -t hide < <(printf '%s\n' "${hide[@]}" | sort -u)
: >"$t/empty"
run=(env -i PATH=/usr/bin:/bin HOME="${HOME:-/}" BACKEND=mock
    CASES="$cases bench_*" BENCH_ARGS=65536 sh "$bd/run-gpu-tests.sh" "$t/results")
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
    echo "== run-gpu-tests.sh under env -i, in a mount namespace hiding ${#hide[@]} files:"
    printf '   %s\n' "${hide[@]}"
    # The mounts are made and the tests run in the namespace's one shell.
    unshare -m bash -c '
        set -e
        mount --make-rprivate /
        empty=$1; shift
        while [ "$1" != -- ]; do mount --bind "$empty" "$1"; shift; done
        shift
        for d in /usr/lib/x86_64-linux-gnu/pmix2/lib/pmix /usr/lib/x86_64-linux-gnu/hwloc; do
            [ -d "$d" ] && mount -t tmpfs none "$d"
        done
        if [ -s /usr/lib/x86_64-linux-gnu/libfabric.so.1 ]; then
            echo "the system libfabric is still readable" >&2; exit 1
        fi
        set +e
        "$@"
    ' hide "$t/empty" "${hide[@]}" -- "${run[@]}" >"$t/table" 2>"$t/progress"
    rc=$?
else
    if [ "$(id -u)" != 0 ]; then
        echo "== not root: the mount namespace hiding the system's libraries is skipped"
    else
        echo "== unshare -m is refused here: the mount namespace hiding the system's libraries is skipped"
    fi
    echo "== run-gpu-tests.sh under env -i"
    "${run[@]}" >"$t/table" 2>"$t/progress"
    rc=$?
fi
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
for c in $cases $benches; do
    grep -Eq "^$c +[0-9]+ +pass " "$t/table" || fail "the table has no passing row for $c"
done
grep -q ',fail,' "$t/results/results.csv" && fail "results.csv lists a failure"
grep -Eq '^[0-9]+ passed, 0 failed' "$t/table" || fail "no '0 failed' summary"
echo "bundle: $(du -sh "$bd" | cut -f1); every case passed"
