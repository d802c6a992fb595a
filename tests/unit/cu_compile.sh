#!/usr/bin/env bash
# Every CUDA source of the tree compiles: each .cu that git tracks, or
# that is new and not ignored, is compiled (-c) by nvcc for sm_80 and
# sm_90 with warnings as errors, and, where hipcc exists, as HIP (-x hip)
# for gfx90a. Most of these files are built only on a machine with nvcc
# (bench/gpu/kernel_bench.cu, examples/gpu/halo_stencil.cu), and the
# device API they include (include/shmemx_device.h) is plain C to the
# rest of the build: without this test a change to either would break
# them unseen.
#
#   cu_compile.sh SRCDIR BUILDDIR
#
# NVCC: the compiler (default /usr/local/cuda/bin/nvcc, else nvcc on the
# PATH); HIPCC: likewise (default hipcc on the PATH). Exit status 77 (a
# skip) without nvcc; 1 when a file fails, with the compiler's words.
set -u

S=${1:?usage: cu_compile.sh SRCDIR BUILDDIR}
B=${2:?usage: cu_compile.sh SRCDIR BUILDDIR}
S=$(cd "$S" && pwd) || exit 1
B=$(cd "$B" && pwd) || exit 1

# Files that cannot be HIP, each with the reason the skip prints (the
# CUDA-only API it calls): FILE<tab>REASON. None so far: every .cu of the
# tree includes the HIP runtime header under __HIPCC__ and keeps to what HIP
# has.
hip_skip=''

nvcc=${NVCC:-}
if [ -z "$nvcc" ]; then
    if [ -x /usr/local/cuda/bin/nvcc ]; then
        nvcc=/usr/local/cuda/bin/nvcc
    else
        nvcc=$(command -v nvcc) || nvcc=
    fi
fi
if [ -z "$nvcc" ] || ! [ -x "$nvcc" ]; then
    echo "no nvcc (/usr/local/cuda/bin/nvcc, PATH, NVCC): skipped"
    exit 77
fi
hipcc=${HIPCC:-$(command -v hipcc || true)}

# The .cu files, relative to S: git's lists, or outside a checkout (a
# release tarball) every .cu under S.
list_files() {
    if git -C "$S" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        (cd "$S" && git ls-files '*.cu' &&
            git ls-files --others --exclude-standard '*.cu') | sort -u
    else
        (cd "$S" && find . -name '*.cu' -not -path './build*' | sed 's|^\./||') |
            sort -u
    fi
}

# The reason FILE is not compiled as HIP, if it is listed.
hip_skip_reason() {
    printf '%s\n' "$hip_skip" | awk -F'\t' -v f="$1" '$1 == f { print $2 }'
}

t=$(mktemp -d "${TMPDIR:-/tmp}/weft-cu.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT
incs=(-I "$S/include" -I "$B" -I "$S" -I "$S/src")
nv_flags=(-c -gencode arch=compute_80,code=sm_80
    -gencode arch=compute_90,code=sm_90 -Werror all-warnings
    -Xcompiler -Wall,-Wextra,-Werror)
hip_flags=(-c -x hip --offload-arch=gfx90a -Wall -Wextra -Werror)

files=$(list_files)
[ -n "$files" ] || { echo "no .cu file under $S"; exit 1; }
n=0 bad=0
# compile WHAT FILE CMD...: runs CMD, prints ok or the failure and its output.
compile() {
    local what=$1 f=$2
    shift 2
    if "$@" >"$t/out" 2>&1; then
        echo "ok   $f ($what)"
    else
        echo "FAIL $f ($what): $*"
        sed 's/^/    /' "$t/out"
        bad=$((bad + 1))
    fi
}
while read -r f; do
    n=$((n + 1))
    compile "nvcc sm_80 sm_90" "$f" "$nvcc" "${nv_flags[@]}" "${incs[@]}" \
        -o "$t/nv.o" "$S/$f"
    if [ -z "$hipcc" ]; then
        continue
    fi
    why=$(hip_skip_reason "$f")
    if [ -n "$why" ]; then
        echo "skip $f (hipcc): $why"
        continue
    fi
    compile "hipcc gfx90a" "$f" "$hipcc" "${hip_flags[@]}" "${incs[@]}" \
        -o "$t/hip.o" "$S/$f"
done <<<"$files"
[ -n "$hipcc" ] || echo "(no hipcc: the HIP compiles were not tried)"
echo "$n .cu files, $bad failed compiles"
[ $bad = 0 ]
