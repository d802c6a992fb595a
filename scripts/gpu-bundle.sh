#!/usr/bin/env bash
# Writes one relocatable folder that runs Weft's GPU tests and benchmarks on
# a machine where nothing can be installed: the programs, every shared
# library they load from this machine's packages (the GPU driver aside,
# which must match the target's kernel module), the libraries that are
# loaded with dlopen (libfabric, its providers, the PMIx and hwloc plug-ins,
# the CUDA and HIP runtimes), and the scripts that run them from wherever the
# folder lies (scripts/bundle/). `make gpu-bundle` (scripts/bundle.mk) calls
# it.
#
# The target may run another distribution with an older glibc than the one
# the programs and Debian's libraries were linked against, so this
# machine's glibc comes too (lib/glibc/), and every program starts through
# the bundle's loader: the real ELF files are under libexec/, and in their
# place (bin/oshrun, tests/gpu/X, ...) a small sh script runs
# `lib/glibc/ld-linux-x86-64.so.2 --library-path ... libexec/X`. A
# --library-path, unlike LD_LIBRARY_PATH, is not inherited, so the system
# programs the job starts (the shell that runs a PE's script, timeout) keep
# the target's own glibc; nothing puts the bundle's folders on
# LD_LIBRARY_PATH.
#
#   gpu-bundle.sh --srcdir S --builddir B --out DIR [PROGRAM...]
#
# PROGRAMs are paths relative to B (tests/gpu/device_api); without them
# every program of B/tests/gpu, B/bench/gpu and B/examples/gpu is taken.
# libweft, oshrun and shmem_info are always taken. A program that libtool
# wrapped is taken from its .libs folder: the wrapper is a script that only
# works in the build tree. A program linked by nvcc (bench/gpu/
# kernel_bench_cuda) is itself an ELF file; its RUNPATH to the build's
# .libs comes after the --library-path of its launcher, so it loads the
# bundle's libweft.
#
# Environment: CUDA_HOME (default /usr/local/cuda) is where libcudart is
# looked for; BUNDLE_HIP=no leaves the HIP runtime out.
set -u

die() {
    echo "gpu-bundle: $*" >&2
    exit 1
}

S=; B=; out=
while [ $# -gt 0 ]; do
    case "$1" in
    --srcdir) S=$2; shift 2 ;;
    --builddir) B=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; break ;;
    -*) die "unknown option $1" ;;
    *) break ;;
    esac
done
[ -n "$S" ] && [ -n "$B" ] && [ -n "$out" ] ||
    die "usage: gpu-bundle.sh --srcdir S --builddir B --out DIR [PROGRAM...]"
S=$(cd "$S" && pwd) || exit 1
B=$(cd "$B" && pwd) || exit 1
mkdir -p "$(dirname "$out")" || exit 1
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
cuda_home=${CUDA_HOME:-/usr/local/cuda}

# glibc's libraries: they must come from one build with the loader, so
# they are taken as a set into lib/glibc (below), never one by one.
glibc_libs='libc.so.6 libm.so.6 libmvec.so.1 libdl.so.2 libpthread.so.0
    librt.so.1 libresolv.so.2 libutil.so.1 libanl.so.1 libnss_files.so.2
    libnss_dns.so.2'
is_glibc_lib() {
    case "$1" in
    linux-vdso.so.* | ld-linux*.so.* | libc.so.* | libm.so.* | libdl.so.* | \
        libpthread.so.* | librt.so.* | libresolv.so.* | libutil.so.* | \
        libmvec.so.* | libanl.so.* | libnss_*.so.* | libthread_db.so.*) return 0 ;;
    esac
    return 1
}

# The GPU driver's libraries, which the target brings: they must match its
# kernel module.
is_driver_lib() {
    case "$1" in
    libcuda.so* | libnvidia-*) return 0 ;;
    esac
    return 1
}

is_elf() {
    [ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ]
}

# The ELF file behind a program of the build tree: itself, or for a libtool
# wrapper script the real program in .libs beside it.
real_program() {
    local p=$1 d b
    if is_elf "$p"; then
        echo "$p"
        return 0
    fi
    d=$(dirname "$p") b=$(basename "$p")
    if grep -q 'libtool' "$p" 2>/dev/null && is_elf "$d/.libs/$b"; then
        echo "$d/.libs/$b"
        return 0
    fi
    return 1
}

# The path of a library as the dynamic loader of this machine finds it
# (ldconfig is in sbin, which a user's PATH may lack), else in the usual
# folders.
find_lib() {
    local l p
    for l in ldconfig /sbin/ldconfig /usr/sbin/ldconfig; do
        p=$("$l" -p 2>/dev/null | awk -v n="$1" '$1 == n && /x86-64/ { print $NF; exit }')
        [ -n "$p" ] && { echo "$p"; return 0; }
    done
    for p in /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/lib64 /usr/local/lib; do
        [ -e "$p/$1" ] && { echo "$p/$1"; return 0; }
    done
    return 1
}

# Every library the given ELF files load at start, as "NAME PATH FILE"
# lines (FILE: the first file that needs it; PATH "-": not found here).
needed_libs() {
    local f
    for f in "$@"; do
        LD_LIBRARY_PATH='' ldd "$f" | awk -v f="$f" '
            $2 == "=>" && $3 == "not" { print $1 " - " f; next }
            $2 == "=>" && $3 ~ /^\// { print $1 " " $3 " " f }'
    done | sort -u -k1,2
}

# An earlier bundle is replaced; any other folder is left alone, since
# BUNDLE_DIR may name anything.
if [ -e "$out" ]; then
    if [ -f "$out/MANIFEST" ] && head -n 1 "$out/MANIFEST" | grep -q '^# Weft GPU bundle'; then
        rm -rf "$out" || exit 1
    elif [ -n "$(ls -A "$out" 2>/dev/null)" ] || [ ! -d "$out" ]; then
        die "$out exists and is not a bundle: give an empty or new folder"
    fi
fi
mkdir -p "$out/bin" "$out/lib" "$out/lib/glibc" "$out/lib/libfabric" \
    "$out/libexec" "$out/tests/gpu" "$out/bench/gpu" "$out/tests/heap" \
    "$out/share/doc" || exit 1
manifest=$out/MANIFEST
{
    echo "# Weft GPU bundle: built $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n)"
    echo "# from $S (build $B)"
    echo "# bytes  path  origin"
} >"$manifest"

# Copies FILE to the bundle path DEST (relative to $out), following links,
# and notes where it came from.
take() {
    local src=$1 dest=$2
    mkdir -p "$out/$(dirname "$dest")" || exit 1
    cp -L "$src" "$out/$dest" || die "cannot copy $src"
    chmod u+w "$out/$dest"
    printf '%s  %s  %s\n' "$(wc -c <"$out/$dest")" "$dest" "$(readlink -f "$src")" \
        >>"$manifest"
}

# Writes the script that stands at the bundle path REL (bin/oshrun) for the
# program libexec/REL. PEs are started by exec'ing the path given to oshrun,
# and nothing in Weft re-executes itself through /proc/self/exe (which would
# name the loader), so a script in the program's place is enough.
write_launcher() {
    local rel=$1 up
    up=$(dirname "$rel" | sed 's|[^/][^/]*|..|g')
    mkdir -p "$out/$(dirname "$rel")" || exit 1
    sed -e "s|@REL@|$rel|g" -e "s|@UP@|$up|g" >"$out/$rel" <<'EOF'
#!/bin/sh
# Starts this Weft GPU bundle's libexec/@REL@ with the bundle's own
# glibc (lib/glibc), whatever glibc this machine has. --library-path, unlike
# LD_LIBRARY_PATH, is not inherited: what this program starts keeps the
# machine's glibc. Written by gpu-bundle.sh.
self=$0
# Through links too (a link to bin/oshrun on the PATH); by hand where
# readlink has no -f.
if r=$(readlink -f -- "$self" 2>/dev/null) && [ -n "$r" ]; then
    self=$r
else
    while [ -L "$self" ]; do
        l=$(ls -ld -- "$self") && l=${l#* -> }
        case $l in /*) self=$l ;; *) self=$(dirname -- "$self")/$l ;; esac
    done
fi
B=$(cd "$(dirname -- "$self")/@UP@" && pwd -P) || exit 127
# The bundle's libraries first; then the caller's library path and the
# folders of this machine where the GPU driver (libcuda.so.1, which the
# bundle lacks) and what it loads may lie, ldconfig's first: the bundle's
# loader may not read this machine's ld.so.cache, which another glibc may
# write in another format.
p=$B/lib/glibc:$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for l in ldconfig /sbin/ldconfig /usr/sbin/ldconfig; do
    command -v "$l" >/dev/null 2>&1 || continue
    d=$("$l" -p 2>/dev/null |
        sed -n 's|^[[:space:]]*libcuda\.so\.1 (.*x86-64.*) => \(/.*\)/libcuda\.so\.1$|\1|p' |
        head -n 1)
    [ -n "$d" ] && p=$p:$d
    break
done
p=$p:/usr/lib64:/usr/lib/x86_64-linux-gnu:/lib64:/lib/x86_64-linux-gnu:/usr/lib/wsl/lib
exec "$B/lib/glibc/ld-linux-x86-64.so.2" --library-path "$p" --argv0 "$0" \
    "$B/libexec/@REL@" "$@"
EOF
    chmod 755 "$out/$rel"
}

# --- Weft's own files --------------------------------------------------------
if [ $# = 0 ]; then
    for d in tests/gpu bench/gpu examples/gpu; do
        for p in "$B/$d"/*; do
            [ -f "$p" ] && [ -x "$p" ] || continue
            case "$p" in *.sh | *.la | *.lo | *.o) continue ;; esac
            set -- "$@" "$d/$(basename "$p")"
        done
    done
fi
[ $# -gt 0 ] || die "no program under $B/tests/gpu, $B/bench/gpu or $B/examples/gpu: build them first (make gpu-bundle does)"

roots=()
libweft=$(readlink -f "$B/.libs/libweft.so") || die "no $B/.libs/libweft.so: build Weft first"
soname=$(readelf -d "$libweft" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
take "$libweft" "lib/$soname"
ln -s "$soname" "$out/lib/libweft.so"
roots+=("$out/lib/$soname")
for p in tools/oshrun tools/shmem_info; do
    elf=$(real_program "$B/$p") || die "no program $B/$p: build Weft first"
    take "$elf" "libexec/bin/$(basename "$p")"
    write_launcher "bin/$(basename "$p")"
    roots+=("$out/libexec/bin/$(basename "$p")")
done
for p in "$@"; do
    elf=$(real_program "$B/$p") || die "$B/$p is neither a program nor a libtool wrapper of one"
    take "$elf" "libexec/$p"
    write_launcher "$p"
    roots+=("$out/libexec/$p")
done
# The case list run-gpu-tests.sh reads, and the helper its cases call.
take "$S/tests/gpu/gpu.cases" tests/gpu/gpu.cases
take "$S/tests/heap/expect_fatal.sh" tests/heap/expect_fatal.sh
take "$S/scripts/bundle/weft-env.sh" weft-env.sh
take "$S/scripts/bundle/run-gpu-tests.sh" run-gpu-tests.sh
take "$S/scripts/bundle/weft" bin/weft
chmod 755 "$out/weft-env.sh" "$out/run-gpu-tests.sh" "$out/bin/weft" \
    "$out/tests/heap/expect_fatal.sh"

# --- glibc --------------------------------------------------------------------
# The loader the programs were linked for, and the libraries of its build
# that a program or a library may load at start or with dlopen (the NSS
# modules: getpwuid, getaddrinfo).
interp=$(readelf -l "$out/libexec/bin/oshrun" | sed -n 's/.*program interpreter: \(.*\)\]/\1/p')
[ -n "$interp" ] && [ -e "$interp" ] || die "cannot tell the loader of oshrun ($interp)"
take "$interp" lib/glibc/ld-linux-x86-64.so.2
chmod 755 "$out/lib/glibc/ld-linux-x86-64.so.2"
for n in $glibc_libs; do
    f=$(find_lib "$n") || die "$n not found: glibc is incomplete here"
    take "$f" "lib/glibc/$n"
done
# Which glibc it is, for weft-env.sh and a reader of the bundle: the
# version, then the loader's own words.
glibc_banner=$("$out/lib/glibc/ld-linux-x86-64.so.2" --version | head -n 1)
glibc=$(echo "$glibc_banner" | sed -n 's/.*version \([0-9][0-9.]*[0-9]\).*/\1/p')
[ -n "$glibc" ] || die "cannot tell the version of $interp: $glibc_banner"
printf '%s\n%s\n' "$glibc" "$glibc_banner" >"$out/lib/glibc/version"

# --- What is loaded with dlopen ----------------------------------------------
# libfabric: transports/ofi/ofi_dl.c opens it only when a job needs a
# fabric, so no program names it. Its provider folder is kept (empty when the
# package has none) so that FI_PROVIDER_PATH never falls back to a folder of
# the target machine, whose providers belong to another libfabric.
if ! fabric=$(find_lib libfabric.so.1); then
    echo "gpu-bundle: warning: no libfabric.so.1 here: the bundle's jobs cannot use a fabric (SHMEM_LOCAL=0, the tcp and shm cases fail)" >&2
else
    take "$fabric" lib/libfabric.so.1
    roots+=("$out/lib/libfabric.so.1")
    fabric_dir=$(dirname "$(readlink -f "$fabric")")/libfabric
fi
if [ -n "$fabric" ] && [ -d "$fabric_dir" ]; then
    for f in "$fabric_dir"/*.so; do
        [ -f "$f" ] || continue
        take "$f" "lib/libfabric/$(basename "$f")"
        roots+=("$out/lib/libfabric/$(basename "$f")")
    done
fi

# PMIx opens its plug-ins (pmix_mca_*.so) from its install prefix and reads
# its parameter file and help texts from there: the prefix's lib/pmix and
# share move into lib/pmix2, and PMIX_PREFIX points there (weft-env.sh).
pmix=$(find_lib libpmix.so.2) || die "libpmix.so.2 not found: install libpmix"
pmix=$(readlink -f "$pmix")
pmix_prefix=$(strings "$pmix" | grep -m1 -E '^/.*/pmix[0-9]*$' || true)
if [ -n "$pmix_prefix" ] && [ -d "$pmix_prefix/lib/pmix" ]; then
    for f in "$pmix_prefix"/lib/pmix/*.so; do
        [ -f "$f" ] || continue
        take "$f" "lib/pmix2/lib/pmix/$(basename "$f")"
        roots+=("$out/lib/pmix2/lib/pmix/$(basename "$f")")
    done
    if [ -d "$pmix_prefix/share" ]; then
        mkdir -p "$out/lib/pmix2"
        cp -RL "$pmix_prefix/share" "$out/lib/pmix2/share" || die "cannot copy $pmix_prefix/share"
        rm -rf "$out/lib/pmix2/share/doc" "$out/lib/pmix2/share/man"
    fi
fi

# hwloc loads every plug-in of its folder at start. Only the PCI one is of
# use here (the devices near each PE); the OpenGL, OpenCL and libxml ones
# would bring X11, OpenCL and ICU (40 MB) for nothing: hwloc has its own
# XML parser.
hwloc_dir=
hwloc=$(find_lib libhwloc.so.15) && hwloc_dir=$(dirname "$(readlink -f "$hwloc")")/hwloc
if [ -n "$hwloc_dir" ] && [ -f "$hwloc_dir/hwloc_pci.so" ]; then
    take "$hwloc_dir/hwloc_pci.so" lib/hwloc/hwloc_pci.so
    roots+=("$out/lib/hwloc/hwloc_pci.so")
else
    mkdir -p "$out/lib/hwloc"
fi

# The GPU runtimes src/gpu/gpu_cuda.c and gpu_hip.c open by name. The
# unversioned names are links, so that the first name tried is the
# bundle's and not some other runtime of the target machine.
gpu_rt=
cudart=
for d in "$cuda_home/lib64" "$cuda_home/targets/x86_64-linux/lib"; do
    [ -f "$d/libcudart.so.13" ] && { cudart=$d/libcudart.so.13; break; }
done
if [ -n "$cudart" ]; then
    take "$cudart" lib/libcudart.so.13
    ln -s libcudart.so.13 "$out/lib/libcudart.so"
    roots+=("$out/lib/libcudart.so.13")
    gpu_rt="$gpu_rt cuda"
else
    echo "gpu-bundle: warning: no libcudart.so.13 under $cuda_home: the bundle cannot run SHMEM_DEVICE_BACKEND=cuda" >&2
fi
if [ "${BUNDLE_HIP:-yes}" != no ]; then
    for n in libamdhip64.so.6 libamdhip64.so.5; do
        hip=$(find_lib "$n") || continue
        take "$hip" "lib/$n"
        ln -s "$n" "$out/lib/libamdhip64.so"
        roots+=("$out/lib/$n")
        gpu_rt="$gpu_rt hip"
        break
    done
fi

# --- Every library they load -------------------------------------------------
# ldd lists a file's libraries and theirs, so one pass over the roots finds
# them all; the libraries of the roots copied above are among them.
missing=
while read -r name path from; do
    is_glibc_lib "$name" && continue
    is_driver_lib "$name" && continue
    [ -e "$out/lib/$name" ] && continue
    if [ "$path" = - ]; then
        missing="$missing
  $name (needed by ${from#"$out"/})"
        continue
    fi
    take "$path" "lib/$name"
done < <(needed_libs "${roots[@]}")
[ -z "$missing" ] || die "libraries this machine lacks:$missing"

# The licences of the packages the libraries come from, which their
# redistribution asks to keep beside them; and the source tree's own.
if command -v dpkg >/dev/null 2>&1; then
    awk '$2 ~ /^lib\// { print $3 }' "$manifest" |
        xargs -r dpkg -S 2>/dev/null | cut -d: -f1 | sort -u |
        while read -r pkg; do
            c=/usr/share/doc/$pkg/copyright
            [ -f "$c" ] && take "$c" "share/doc/$pkg/copyright"
        done
fi
[ -f "$S/LICENSE" ] && take "$S/LICENSE" share/doc/weft/LICENSE
if [ -n "$cudart" ]; then
    for f in "$cuda_home/EULA.txt" "$cuda_home/../EULA.txt"; do
        [ -f "$f" ] && { take "$f" share/doc/cuda/EULA.txt; break; }
    done
fi

echo "${gpu_rt# }" >"$out/lib/gpu-runtimes"

echo "gpu-bundle: $out ($(du -sh "$out" | cut -f1), $(find "$out/lib" -name '*.so*' -type f | wc -l) libraries," \
    "$(($# + 2)) programs; GPU runtimes: ${gpu_rt# }; glibc $glibc, its own)"
