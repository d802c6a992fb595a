#!/usr/bin/env bash
# What the hot-path argument checks (PE range, symmetric address range, NULL
# local buffer; see src/core/dataplane.h) cost at 8 bytes.
#
#   bench/check-cost.sh [--builddir DIR] [--nochecks-dir DIR] [--repeat R]
#                       [--iters N] [--warmup N] [--np N] [--csv FILE]
#                       [--no-build]
#
# DIR (default: the current directory when it holds tools/oshrun) is a
# configured build with the checks (the default). A second tree configured
# like it plus --disable-checks is built out of tree in --nochecks-dir
# (default: a temporary directory, removed at the end; a given one is kept and
# rebuilt incrementally; both trees are brought up to date first). Then,
# R times (default 7), every benchmark program
# runs once per tree, alternating which tree goes first, under the same
# oshrun: put one-way latency (put_signal ping-pong), put + quiet, get,
# 8-byte message rate and fetch-add, all at 8 bytes on 2 PEs.
# Prints, per figure, the median of each tree and the cost of the checks in %
# (positive: slower with checks), the same from the best run of each tree,
# then CSV ("figure,unit,with_checks,without_checks,cost_pct,best_cost_pct",
# medians) on stdout and in FILE.
# The machine must be quiet for the figures to mean anything; the cost is
# within the noise when |cost| stays under the spread printed beside it.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
bdir=""
ndir=""
repeat=7
iters=100000
warmup=10000
np=2
csv_out=""
build=1
while [ $# -gt 0 ]; do
    case "$1" in
    --builddir) bdir=$2; shift 2 ;;
    --nochecks-dir) ndir=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --csv) csv_out=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "check-cost: unknown option $1" >&2; exit 2 ;;
    esac
done
if [ -z "$bdir" ]; then
    [ -x tools/oshrun ] || { echo "check-cost: give --builddir (no tools/oshrun here)" >&2; exit 2; }
    bdir=$PWD
fi
bdir=$(cd "$bdir" && pwd) || exit 2
[ -x "$bdir/config.status" ] || { echo "check-cost: $bdir is not a configured build" >&2; exit 2; }
case "$repeat$iters$warmup$np" in *[!0-9]*) echo "check-cost: counts must be numbers" >&2; exit 2 ;; esac
[ "$repeat" -ge 1 ] && [ "$iters" -ge 1 ] && [ "$np" -ge 2 ] ||
    { echo "check-cost: --repeat and --iters at least 1, --np at least 2" >&2; exit 2; }

tmpdir=""
cleanup() { [ -z "$tmpdir" ] || rm -rf "$tmpdir"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ -z "$ndir" ]; then
    tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/weft-check-cost.XXXXXX") || exit 1
    ndir=$tmpdir/build
fi
mkdir -p "$ndir" && ndir=$(cd "$ndir" && pwd) || exit 1
[ "$ndir" != "$bdir" ] || { echo "check-cost: the two trees must differ" >&2; exit 2; }
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo
progs="bench/shmem_latency bench/shmem_bandwidth bench/shmem_atomic"
figures="put_signal_pingpong put_quiet get msg_rate fetch_add"

# The second tree: the first one's configure arguments plus --disable-checks.
build_nochecks() {
    local args
    args=$("$bdir/config.status" --config) || return 1
    if [ ! -f "$ndir/Makefile" ]; then
        echo "check-cost: configuring $ndir with --disable-checks"
        (cd "$ndir" && eval "\"$src/configure\" -q $args --disable-checks") \
            >"$ndir/check-cost-configure.log" 2>&1 ||
            { tail -n 20 "$ndir/check-cost-configure.log"; return 1; }
    fi
    echo "check-cost: building $ndir (log: $ndir/check-cost-build.log)"
    (cd "$ndir" && make -j"${JOBS:-2}" libweft.la $progs) \
        >"$ndir/check-cost-build.log" 2>&1 ||
        { tail -n 30 "$ndir/check-cost-build.log"; return 1; }
}
# Both trees from the same sources, or the comparison means nothing.
if [ $build = 1 ]; then
    (cd "$bdir" && make -j"${JOBS:-2}" libweft.la tools/oshrun $progs) \
        >"$ndir/check-cost-build-checked.log" 2>&1 ||
        { tail -n 30 "$ndir/check-cost-build-checked.log"; exit 1; }
    build_nochecks || { echo "check-cost: cannot build the tree without checks" >&2; exit 1; }
fi
grep -q '^#define WEFT_NO_CHECKS 1' "$bdir/config.h" &&
    { echo "check-cost: $bdir was configured with --disable-checks" >&2; exit 2; }
grep -q '^#define WEFT_NO_CHECKS 1' "$ndir/config.h" 2>/dev/null ||
    { echo "check-cost: $ndir is not a --disable-checks build" >&2; exit 2; }
for p in $progs; do
    [ -x "$ndir/$p" ] || { echo "check-cost: $ndir/$p missing" >&2; exit 1; }
done

oshrun=$bdir/tools/oshrun
raw=$ndir/check-cost-raw.csv
: >"$raw"
# run TREE-LABEL TREE-DIR PROGRAM: appends "label,rep,name,value,unit" rows.
run() {
    local label=$1 dir=$2 prog=$3 out
    out=$(timeout 300 "$oshrun" -n "$np" "$dir/$prog" --min 8 --max 8 \
          --iters "$iters" --warmup "$warmup" --csv 2>"$ndir/check-cost-err.log") ||
        { echo "check-cost: $prog ($label) failed:" >&2; tail -n 20 "$ndir/check-cost-err.log" >&2; return 1; }
    printf '%s\n' "$out" | awk -F, -v l="$label" -v r="$rep" \
        -v want=" $figures " 'NF == 4 && $2 == 8 && index(want, " " $1 " ") {
            print l "," r "," $1 "," $3 "," $4 }' >>"$raw"
}
echo "check-cost: $repeat repetitions, $iters iterations, $np PEs, 8 bytes"
for rep in $(seq 1 "$repeat"); do
    for p in $progs; do
        if [ $((rep % 2)) = 1 ]; then
            run checks "$bdir" "$p" && run nochecks "$ndir" "$p"
        else
            run nochecks "$ndir" "$p" && run checks "$bdir" "$p"
        fi || exit 1
    done
done

# Median per (tree, figure) (median() also leaves the lowest and highest
# value in lo and hi); the spread is the half-range of the tree with checks
# relative to its median, a hint of the noise.
report=$(awk -F, '
function median(k,   n, i, j, t, a) {
    n = cnt[k]
    for (i = 1; i <= n; i++) a[i] = v[k, i]
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    lo = a[1]; hi = a[n]
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ k = $1 SUBSEP $3; cnt[k]++; v[k, cnt[k]] = $4; unit[$3] = $5
  if (!($3 in seen)) { seen[$3] = 1; order[++nf] = $3 } }
END {
    for (i = 1; i <= nf; i++) {
        f = order[i]
        if (!(("nochecks" SUBSEP f) in cnt) || !(("checks" SUBSEP f) in cnt)) continue
        mn = median("nochecks" SUBSEP f)
        mc = median("checks" SUBSEP f); spread = mc > 0 ? 50 * (hi - lo) / mc : 0
        # latencies: more is worse; rates (MB/s, Mmsg/s): less is worse
        rate = unit[f] ~ /\/s$/
        cost = mn > 0 ? 100 * (rate ? (mn - mc) / mn : (mc - mn) / mn) : 0
        # best of each tree (least disturbed run): max rate, min latency
        median("checks" SUBSEP f); bc = rate ? hi : lo
        median("nochecks" SUBSEP f); bn = rate ? hi : lo
        bcost = bn > 0 ? 100 * (rate ? (bn - bc) / bn : (bc - bn) / bn) : 0
        printf "%s,%s,%.4f,%.4f,%.2f,%.2f,%.2f\n", f, unit[f], mc, mn, cost, bcost, spread
    }
}' "$raw")
[ -n "$report" ] || { echo "check-cost: no figures (see $raw)" >&2; exit 1; }
printf '\n%-20s %-7s %12s %12s %8s %8s %7s\n' figure unit "with checks" "without" "cost %" "best %" "+/- %"
printf '%s\n' "$report" | awk -F, '{ printf "%-20s %-7s %12.4f %12.4f %8.2f %8.2f %7.2f\n", $1, $2, $3, $4, $5, $6, $7 }'
echo
header="figure,unit,with_checks,without_checks,cost_pct,best_cost_pct"
echo "$header"
printf '%s\n' "$report" | cut -d, -f1-6
if [ -n "$csv_out" ]; then
    { echo "$header"; printf '%s\n' "$report" | cut -d, -f1-6; } >"$csv_out"
fi
exit 0
