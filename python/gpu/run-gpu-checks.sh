#!/bin/sh
# The Python GPU checks of docs/python-gpu.md, in one call, on a machine
# with a real GPU where nothing can be installed (the project's device
# machine: an NVIDIA GPU, Python 3.12 with CuPy, PyTorch, numba-cuda,
# mpi4py and NVIDIA's NCCL and NVSHMEM wheels):
#
#   sh python/gpu/run-gpu-checks.sh [OUTDIR]       (from the tree's root)
#
# 1. builds weft._core for that machine's Python (a C compiler and the
#    interpreter's Python.h are all it needs: no setuptools, no network)
#    against the libweft of a GPU bundle (`make gpu-bundle`, carried as
#    weft-gpu-bundle/; docs/gpu.md), into a folder of its own;
# 2. runs the device tests of tests/python with SHMEM_DEVICE_BACKEND=cuda
#    on 2 PEs that share the GPU (IPC), CuPy and PyTorch arrays and streams
#    among them (test_device_frameworks.py);
# 3. runs python/gpu/device_pingpong.py on 2 PEs: weft's device ping-pong
#    (host-initiated and stream-ordered) beside CuPy's device-to-device
#    copy and NCCL's send/recv;
# and writes under OUTDIR (default $OUT, else a new folder under TMPDIR):
# summary.txt (one line per step: name, status, seconds), env.txt (the
# machine, the interpreter, the packages), setup.log, logs/STEP.log,
# and pingpong.csv.  Exit status: 0 when every
# step passed, 1 when one failed, 2 when nothing could run.
#
# Environment:
#   WEFT_BUNDLE  the GPU bundle (default: weft-gpu-bundle at the root)
#   PYTHON       the interpreter with the frameworks (default: python3)
#   BACKEND      device back end (cuda; hip on an AMD machine)
#   CUDART       libcudart the back end loads (default: the one the
#                frameworks bring, nvidia/cuda_runtime/lib or torch/lib, so
#                that one CUDA runtime serves the process; else the
#                bundle's)
#   GLIBC        target | bundle: which glibc the Python PEs run on
#                (default: target, falling back to the bundle's loader when
#                the bundle's libraries need a newer glibc than the target's)
#   PINGPONG_MAX largest ping-pong message (16777216)
#   PINGPONG_SCALE  fraction of the default iterations (1)
#   STEP_TIMEOUT seconds per test file (180); the ping-pong gets 300
#
# Plain sh: the target may have no bash.  Written without a GPU at hand:
# docs/python-gpu.md says what was and was not run.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd -P) || exit 2
out=${1:-${OUT:-}}
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/weft-py-gpu.XXXXXX") || exit 2
mkdir -p "$out/logs" || exit 2
out=$(cd "$out" && pwd -P)
work=$(mktemp -d "${TMPDIR:-/tmp}/weft-py-work.XXXXXX") || exit 2
bundle=${WEFT_BUNDLE:-$root/weft-gpu-bundle}
python=${PYTHON:-python3}
backend=${BACKEND:-cuda}
step_timeout=${STEP_TIMEOUT:-180}
summary=$out/summary.txt
setup=$out/setup.log
: >"$summary"
: >"$setup"
failed=0 ran=0

say() { echo "$*" | tee -a "$setup"; }
# record NAME STATUS SECONDS [NOTE]
record() {
    printf '%-28s %-5s %6s  %s\n' "$1" "$2" "$3" "${4:-}" | tee -a "$summary"
    ran=$((ran + 1))
    [ "$2" = fail ] && failed=1
    return 0
}
finish() {
    say "results in $out"
    rm -rf "$work"
    if [ "$ran" -eq 0 ]; then exit 2; fi
    exit "$failed"
}
now() { date +%s; }

# ---- what the machine has ------------------------------------------------
{
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "host: $(uname -a)"
    echo "glibc: $(getconf GNU_LIBC_VERSION 2>/dev/null || echo unknown)"
    command -v nvidia-smi >/dev/null &&
        nvidia-smi --query-gpu=name,driver_version,memory.total \
            --format=csv,noheader 2>&1
    echo "python: $(command -v "$python") $("$python" -c 'import sys; print(sys.version.split()[0])' 2>&1)"
    for m in numpy pytest cupy torch numba mpi4py nvidia.nccl nvshmem jax; do
        "$python" -c "import importlib, sys
try:
    mod = importlib.import_module('$m')
    print('$m', getattr(mod, '__version__', 'present'))
except Exception as e:
    print('$m', 'missing:', type(e).__name__, str(e).splitlines()[0] if str(e) else '')
" 2>&1
    done
    echo "bundle: $bundle"
    [ -f "$bundle/lib/glibc/version" ] && echo "bundle glibc: $(cat "$bundle/lib/glibc/version")"
} >"$out/env.txt" 2>&1
cat "$out/env.txt" >>"$setup"

if [ ! -f "$bundle/lib/libweft.so" ] || [ ! -x "$bundle/bin/oshrun" ]; then
    say "no GPU bundle at $bundle (make gpu-bundle; carry weft-gpu-bundle)"
    record setup fail 0 "no bundle"
    finish
fi
# shellcheck disable=SC1091
WEFT_HOME=$bundle . "$bundle/weft-env.sh" >/dev/null 2>&1 || {
    say "cannot source $bundle/weft-env.sh"; record setup fail 0 "bundle env"; finish; }
oshrun=$bundle/bin/oshrun
export FI_TCP_IFACE="${FI_TCP_IFACE:-lo}" FI_SOCKETS_IFACE="${FI_SOCKETS_IFACE:-lo}"
export SHMEM_DEVICE_BACKEND="$backend"
export SHMEM_SYMMETRIC_DEVICE_SIZE="${SHMEM_SYMMETRIC_DEVICE_SIZE:-256m}"
export PYTHONDONTWRITEBYTECODE=1

# ---- 1. weft._core for this Python ---------------------------------------
t0=$(now)
site=$work/site
mkdir -p "$site/weft" "$work/lib"
cp "$root"/python/weft/*.py "$site/weft/" || exit 2
pyinc=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>>"$setup")
suffix=$("$python" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>>"$setup")
cc=${CC:-}
for c in cc gcc clang; do
    [ -n "$cc" ] && break
    command -v "$c" >/dev/null && cc=$c
done
# The libraries of the bundle, linked into one folder the PEs' library
# path names; but the CUDA runtime (below), and the compiler's runtime and
# zlib, which the frameworks need in the target's own (newer) versions.
for f in "$bundle"/lib/*.so*; do
    case "${f##*/}" in
    libcudart* | libstdc++* | libgcc_s* | libatomic* | libz.so*) continue ;;
    esac
    ln -sf "$f" "$work/lib/${f##*/}"
done
if [ -z "$cc" ] || [ ! -f "$pyinc/Python.h" ]; then
    say "cannot build weft._core: compiler '${cc:-none}', Python.h in '$pyinc': $( [ -f "$pyinc/Python.h" ] && echo present || echo missing)"
    record build fail "$(( $(now) - t0 ))" "no C compiler or no Python.h"
    finish
fi
# shellcheck disable=SC2086
if "$cc" -shared -fPIC -O2 -std=gnu11 -I"$pyinc" -I"$root/include" \
    "$root"/python/weft/_core/*.c -L"$work/lib" -lweft \
    -o "$site/weft/_core$suffix" >"$out/logs/build.log" 2>&1; then
    record build pass "$(( $(now) - t0 ))" "$cc, $suffix"
else
    record build fail "$(( $(now) - t0 ))" "see logs/build.log"
    finish
fi

# ---- the CUDA runtime and the glibc the PEs use --------------------------
cudart=${CUDART:-}
if [ -z "$cudart" ] && [ "$backend" = cuda ]; then
    cudart=$("$python" - <<'EOF' 2>>"$setup"
import glob, os
found = []
try:
    import nvidia.cuda_runtime as m
    for p in m.__path__:
        found += sorted(glob.glob(os.path.join(p, "lib", "libcudart.so*")))
except Exception:
    pass
try:
    import importlib.util
    spec = importlib.util.find_spec("torch")
    if spec and spec.submodule_search_locations:
        for p in spec.submodule_search_locations:
            found += sorted(glob.glob(os.path.join(p, "lib", "libcudart*.so*")))
except Exception:
    pass
print(found[0] if found else "")
EOF
)
fi
[ -z "$cudart" ] && [ -f "$bundle/lib/libcudart.so.13" ] && cudart=$bundle/lib/libcudart.so.13
if [ -n "$cudart" ]; then
    ln -sf "$cudart" "$work/lib/libcudart.so"
    say "CUDA runtime for weft: $cudart"
fi
libpath=$work/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# The PEs' interpreter: the target's, with the bundle's libraries on its
# library path; or, when those need a newer glibc, the same interpreter
# started by the bundle's loader on the bundle's glibc.
py=$work/py
write_py() {
    if [ "$1" = bundle ]; then
        cat >"$py" <<EOF
#!/bin/sh
exec "$bundle/lib/glibc/ld-linux-x86-64.so.2" --library-path "$bundle/lib/glibc:$libpath:/usr/lib64:/usr/lib/x86_64-linux-gnu:/lib64:/lib/x86_64-linux-gnu" "$(command -v "$python")" "\$@"
EOF
    else
        cat >"$py" <<EOF
#!/bin/sh
LD_LIBRARY_PATH="$libpath" exec "$(command -v "$python")" "\$@"
EOF
    fi
    chmod 755 "$py"
}
mode=${GLIBC:-target}
write_py "$mode"
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
if ! WEFT_INIT=0 "$py" -c 'import weft._core' >>"$setup" 2>&1; then
    if [ "$mode" = target ] && [ -x "$bundle/lib/glibc/ld-linux-x86-64.so.2" ]; then
        say "import failed on the target's glibc: trying the bundle's loader"
        mode=bundle
        write_py bundle
        WEFT_INIT=0 "$py" -c 'import weft._core' >>"$setup" 2>&1 || mode=none
    else
        mode=none
    fi
fi
if [ "$mode" = none ]; then
    record import fail 0 "weft._core does not load: see setup.log"
    finish
fi
say "Python PEs run on the $mode glibc"

# pytest: the target's, else a copy carried in the bundle (python-site).
if ! "$py" -c 'import pytest' >/dev/null 2>&1 && [ -d "$bundle/python-site" ]; then
    export PYTHONPATH="$PYTHONPATH:$bundle/python-site"
    say "pytest from $bundle/python-site"
fi

# run NAME TIMEOUT NPES ARGS...: one job; its output in logs/NAME.log.
run() {
    name=$1 limit=$2 n=$3
    shift 3
    t0=$(now)
    timeout "$limit" "$oshrun" --tag-output -n "$n" "$py" "$@" \
        >"$out/logs/$name.log" 2>&1
    rc=$?
    t=$(( $(now) - t0 ))
    tailnote=$(grep -E '[0-9]+ (passed|failed|skipped)' "$out/logs/$name.log" | tail -n 1 | sed 's/^\[pe [0-9]*\] *//')
    case $rc in
    0) record "$name" pass "$t" "$tailnote" ;;
    124) record "$name" fail "$t" "timed out after ${limit}s" ;;
    *) record "$name" fail "$t" "status $rc; $tailnote" ;;
    esac
}

# ---- 2. smoke and the device tests ----------------------------------------
run smoke_1 60 1 -c 'import weft, weft.device as wd
info = wd.info()
print("device heap:", info)
assert info and info["backend"] == "'"$backend"'", info
a = wd.zeros(4); wd.free(a)'
if ! grep -q "^smoke_1 *pass" "$summary"; then
    say "no device heap with SHMEM_DEVICE_BACKEND=$backend: the device steps are skipped"
    finish
fi
"$py" -c 'import pytest' >/dev/null 2>&1 || {
    record pytest fail 0 "no pytest for $python (carry it: docs/python-gpu.md)"; }
if "$py" -c 'import pytest' >/dev/null 2>&1; then
    for f in test_device_array test_device_rma test_device_stream \
        test_device_frameworks test_device_stream_bad; do
        [ -f "$root/tests/python/$f.py" ] || continue
        run "${f#test_}_2" "$step_timeout" 2 -m pytest -q -p no:cacheprovider \
            -rs --rootdir "$root/tests/python" "$root/tests/python/$f.py"
    done
fi

# ---- 3. the ping-pong ------------------------------------------------------
run pingpong_2 300 2 "$root/python/gpu/device_pingpong.py" \
    --max "${PINGPONG_MAX:-16777216}" --csv "$out/pingpong.csv"
sed -n 's/^\[pe 0\] *//p' "$out/logs/pingpong_2.log" |
    grep -E '^(method|weft|cupy|nccl)' | tee -a "$setup"

echo
cat "$summary"
finish
