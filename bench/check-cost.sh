#!/usr/bin/env bash
# What the hot-path argument checks (PE range, symmetric address range, NULL
# local buffer; see src/core/dataplane.h) cost at 8 bytes.
#
#   bench/check-cost.sh [--builddir DIR] [--nochecks-dir DIR] [--np "1 2"]
#                       [--launches R] [--batches B] [--iters N]
#                       [--csv FILE] [--no-build] [--no-instructions] [--aa]
#
# DIR (default: the current directory when it holds tools/oshrun) is a
# configured build with the checks (the default). A second tree configured
# like it plus --disable-checks is built out of tree in --nochecks-dir
# (default: a temporary directory, removed at the end; a given one is kept and
# rebuilt incrementally); both trees are brought up to date first. When the
# sources are configured in place (./configure in the source directory, as
# the README's set-up does), configure cannot make a second tree from them:
# the tree without checks is then a fresh copy of the sources in DIR/tree.
#
# Timing: for each PE count of --np (default "1 2"; with 1 PE the PE targets
# itself: the same checks without traffic between cores), R times (default
# 10), bench/check_cost of both trees runs at once, PE k of each bound to core
# k, and the two copies take turns batch by batch (A B A B ..., through two
# FIFOs; the copy that starts alternates between launches): each batch is N
# operations (default 20000, about 0.2-1 ms), B batches (default 101) per
# operation. Batch k of one tree and batch k of the other form a pair, run
# within a millisecond of each other on the same core; per operation the
# script prints the median of the pair ratios (with checks / without) as a
# cost in %, its interquartile range, the fastest batch of each tree and the
# cost from those, and the load average around the runs. Operations: put,
# p (shmem_long_p), get, g (shmem_long_g), put_quiet, msg_rate (ns per
# shmem_putmem_nbi, a quiet every 64) and fetch_add, at 8 bytes; pingpong
# (shmem_putmem_signal one-way latency) with 2 PEs.
#
# --aa runs the tree with checks against itself (A/A): every cost should be
# 0 within its interval, which shows what the method can resolve.
#
# Instructions: unless --no-instructions (or without valgrind), callgrind
# counts the instructions each operation executes per call in both trees (1
# PE): a figure no noise moves.
#
# CSV (stdout and FILE): np,figure,unit,pairs,with_checks_min,
# without_checks_min,with_checks_median,without_checks_median,cost_pct,
# cost_q1_pct,cost_q3_pct,min_cost_pct,load_lo,load_hi; then the instruction
# counts (1 PE) as rows "instr,figure,insn/op,with,without".
# The default run takes under a minute on 2 cores (--launches 40 for a
# tighter interval).
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
bdir=""
ndir=""
nps="1 2"
launches=10
batches=101
iters=20000
csv_out=""
build=1
instr=1
aa=0
while [ $# -gt 0 ]; do
    case "$1" in
    --builddir) bdir=$2; shift 2 ;;
    --nochecks-dir) ndir=$2; shift 2 ;;
    --np) nps=$2; shift 2 ;;
    --launches|--repeat) launches=$2; shift 2 ;;
    --batches) batches=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --csv) csv_out=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --no-instructions) instr=0; shift ;;
    --aa) aa=1; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) echo "check-cost: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
if [ -z "$bdir" ]; then
    [ -x tools/oshrun ] || { echo "check-cost: give --builddir (no tools/oshrun here)" >&2; exit 2; }
    bdir=$PWD
fi
bdir=$(cd "$bdir" && pwd) || exit 2
[ -x "$bdir/config.status" ] || { echo "check-cost: $bdir is not a configured build" >&2; exit 2; }
case "$launches$batches$iters$(echo "$nps" | tr -d ' ')" in
*[!0-9]*|"") echo "check-cost: counts and PE numbers must be numbers" >&2; exit 2 ;;
esac
[ "$launches" -ge 1 ] && [ "$batches" -ge 1 ] && [ "$iters" -ge 64 ] ||
    { echo "check-cost: --launches and --batches at least 1, --iters at least 64" >&2; exit 2; }
for np in $nps; do
    [ "$np" -ge 1 ] || { echo "check-cost: --np takes PE counts of at least 1" >&2; exit 2; }
done

tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/weft-check-cost.XXXXXX") || exit 1
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    rm -rf "$tmpdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
[ -n "$ndir" ] || ndir=$tmpdir/build
mkdir -p "$ndir" && ndir=$(cd "$ndir" && pwd) || exit 1
[ "$ndir" != "$bdir" ] || { echo "check-cost: the two trees must differ" >&2; exit 2; }
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo
targets="libweft.la tools/oshrun bench/check_cost"
# Where the tree without checks is built, and from which sources.
ntree=$ndir
ntree_src=$src
if [ -f "$src/config.status" ]; then
    ntree=$ndir/tree
    ntree_src=$ntree
fi

# A source directory that is itself a configured build (the README's
# set-up configures in the source tree) cannot configure a second tree:
# configure refuses. Then the second tree is a copy of the sources in
# $ndir/tree, cleaned of the first tree's build outputs and configured in
# place; it is made afresh on every run, since the copy would otherwise miss
# later changes to the sources.
copy_sources() {
    local tree=$ndir/tree rel=""
    case "$ndir/" in
    "$src"/*) rel=./${ndir#"$src"/} ;;
    esac
    rm -rf "$tree" && mkdir -p "$tree" || return 1
    tar -C "$src" ${rel:+--exclude="$rel"} -cf - . | tar -C "$tree" -xf - ||
        return 1
    (cd "$tree" && make -s distclean) >"$ndir/check-cost-distclean.log" 2>&1 ||
        { tail -n 20 "$ndir/check-cost-distclean.log"; return 1; }
}

# The second tree: the first one's configure arguments plus --disable-checks.
build_nochecks() {
    local args
    args=$("$bdir/config.status" --config) || return 1
    if [ "$ntree" != "$ndir" ]; then
        echo "check-cost: $src is configured in place: copying it to $ntree"
        copy_sources || return 1
    fi
    if [ ! -f "$ntree/Makefile" ]; then
        echo "check-cost: configuring $ntree with --disable-checks"
        (cd "$ntree" && eval "\"$ntree_src/configure\" -q $args --disable-checks") \
            >"$ndir/check-cost-configure.log" 2>&1 ||
            { tail -n 20 "$ndir/check-cost-configure.log"; return 1; }
    fi
    echo "check-cost: building $ntree (log: $ndir/check-cost-build.log)"
    (cd "$ntree" && make -j"${JOBS:-2}" $targets) \
        >"$ndir/check-cost-build.log" 2>&1 ||
        { tail -n 30 "$ndir/check-cost-build.log"; return 1; }
}
# Both trees from the same sources, or the comparison means nothing.
if [ $build = 1 ]; then
    (cd "$bdir" && make -j"${JOBS:-2}" $targets) \
        >"$ndir/check-cost-build-checked.log" 2>&1 ||
        { tail -n 30 "$ndir/check-cost-build-checked.log"; exit 1; }
    build_nochecks || { echo "check-cost: cannot build the tree without checks" >&2; exit 1; }
fi
grep -q '^#define WEFT_NO_CHECKS 1' "$bdir/config.h" &&
    { echo "check-cost: $bdir was configured with --disable-checks" >&2; exit 2; }
grep -q '^#define WEFT_NO_CHECKS 1' "$ntree/config.h" 2>/dev/null ||
    { echo "check-cost: $ntree is not a --disable-checks build" >&2; exit 2; }
for d in "$bdir" "$ntree"; do
    [ -x "$d/bench/check_cost" ] || { echo "check-cost: $d/bench/check_cost missing" >&2; exit 1; }
done

oshrun=$bdir/tools/oshrun
# the tree that runs as "nochecks"
rdir=$ntree
[ $aa = 0 ] || { rdir=$bdir; instr=0; echo "check-cost: A/A run: the tree with checks against itself"; }
raw=$tmpdir/raw.csv
: >"$raw"
loadavg() { cut -d' ' -f1 /proc/loadavg; }

# launch NP R: both trees at once, taking turns; appends
# "np,label,launch,op,batch,ns" rows and "load,np,value" rows to $raw.
launch() {
    local np=$1 r=$2 a=$tmpdir/turn.a b=$tmpdir/turn.b pa pb ok=1
    local opts="--iters $iters --batches $batches --raw"

    rm -f "$a" "$b" && mkfifo "$a" "$b" || return 1
    echo "load,$np,$(loadavg)" >>"$raw"
    exec 3<>"$a" 4<>"$b"
    # odd launches: the tree with checks takes the first turn
    if [ $((r % 2)) = 1 ]; then printf t >&3; else printf t >&4; fi
    timeout 300 "$oshrun" -n "$np" --bind core "$bdir/bench/check_cost" $opts \
        --turn "$a" "$b" >"$tmpdir/out.checks" 2>"$tmpdir/err.checks" &
    pa=$!
    timeout 300 "$oshrun" -n "$np" --bind core "$rdir/bench/check_cost" $opts \
        --turn "$b" "$a" >"$tmpdir/out.nochecks" 2>"$tmpdir/err.nochecks" &
    pb=$!
    pids="$pa $pb"
    # a copy that fails leaves the other waiting for its turn: stop it
    wait -n "$pa" "$pb" || { ok=0; kill "$pa" "$pb" 2>/dev/null; }
    wait "$pa" || ok=0
    wait "$pb" || ok=0
    pids=""
    exec 3>&- 4>&-
    if [ $ok = 0 ]; then
        echo "check-cost: check_cost failed ($np PEs):" >&2
        tail -n 5 "$tmpdir/err.checks" "$tmpdir/err.nochecks" >&2
        return 1
    fi
    for l in checks nochecks; do
        awk -F, -v p="$np,$l,$r" 'NF == 3 && $1 !~ /^#/ { print p "," $0 }' \
            "$tmpdir/out.$l" >>"$raw"
    done
    echo "load,$np,$(loadavg)" >>"$raw"
}

echo "check-cost: $launches launches x $batches batches x $iters operations," \
     "PEs: $nps; load average now $(loadavg)"
for np in $nps; do
    for r in $(seq 1 "$launches"); do
        launch "$np" "$r" || exit 1
    done
done

# Per (np, op): "np op kind value" for kind ratio (pair ratio), checks and
# nochecks (batch times), sorted, then the quantiles of each group.
stats=$(awk -F, '
$1 == "load" { if (!($2 in lo) || $3 < lo[$2]) lo[$2] = $3
               if (!($2 in hi) || $3 > hi[$2]) hi[$2] = $3; next }
{ k = $1 " " $4 " " $3 " " $5; v[$2, k] = $6; op[k] = $1 " " $4
  print $1, $4, $2, $6 }
END {
    for (k in op)
        if ((("checks", k) in v) && (("nochecks", k) in v) && v["nochecks", k] > 0)
            print op[k], "ratio", v["checks", k] / v["nochecks", k]
    for (n in lo) print n, "-", "load", lo[n] " " hi[n]
}' "$raw" | sort -k1,1n -k2,2 -k3,3 -k4,4g | awk '
function flush(   i, f, pos) {
    if (cnt == 0) return
    if (kind == "load") { load[key] = a[1]; cnt = 0; return }
    for (i = 1; i <= 3; i++) {
        f = i / 4; pos = 1 + f * (cnt - 1)
        q[key, kind, i] = a[int(pos)] + (pos - int(pos)) * (a[int(pos) + 1] - a[int(pos)])
    }
    q[key, kind, 0] = a[1]; n[key, kind] = cnt
    if (kind == "ratio") keys[++nk] = key
    cnt = 0
}
{ g = $1 " " $2 " " $3
  if (g != cur) { flush(); cur = g; key = $1 " " $2; kind = $3 }
  a[++cnt] = $3 == "load" ? $4 " " $5 : $4 }
END {
    flush()
    for (i = 1; i <= nk; i++) {
        split(keys[i], kk, " "); np = kk[1]
        c0 = q[keys[i], "checks", 0]; n0 = q[keys[i], "nochecks", 0]
        split(load[np " -"], ld, " ")
        printf "%s,%s,ns,%d,%.3f,%.3f,%.3f,%.3f,%.2f,%.2f,%.2f,%.2f,%s,%s\n", np, kk[2],
            n[keys[i], "ratio"], c0, n0, q[keys[i], "checks", 2], q[keys[i], "nochecks", 2],
            100 * (q[keys[i], "ratio", 2] - 1), 100 * (q[keys[i], "ratio", 1] - 1),
            100 * (q[keys[i], "ratio", 3] - 1), (n0 > 0 ? 100 * (c0 / n0 - 1) : 0), ld[1], ld[2]
    }
}')
[ -n "$stats" ] || { echo "check-cost: no figures" >&2; exit 1; }
# operations in the order check_cost runs them
order="put p get g put_quiet msg_rate fetch_add pingpong"
stats=$(printf '%s\n' "$stats" | awk -F, -v order="$order" '
    BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) rank[o[i]] = i }
    { print $1 * 100 + rank[$2] "," $0 }' | sort -t, -k1,1n | cut -d, -f2-)

printf '\n%-3s %-10s %6s | %9s %9s | %9s %9s | %7s %16s | %7s | %s\n' \
    np figure pairs "min chk" "min no" "med chk" "med no" "cost %" "IQR of cost %" \
    "min %" "load"
printf '%s\n' "$stats" | awk -F, '{
    printf "%-3s %-10s %6d | %9.2f %9.2f | %9.2f %9.2f | %7.2f [%6.2f, %6.2f] | %7.2f | %s-%s\n",
        $1, $2, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14 }'
echo "(ns per operation; cost % = median over pairs of (with checks / without) - 1;"
echo " min % = fastest batch with checks against fastest without)"

# Instructions per call, 1 PE: callgrind, inclusive count of each op_*
# loop of check_cost (the loop adds the same few instructions to both).
icount() {
    local d=$1 out=$tmpdir/cg
    rm -f "$out".*
    (cd "$d" && "$oshrun" -n 1 -x LD_LIBRARY_PATH="$d/.libs" valgrind -q \
        --tool=callgrind --callgrind-out-file="$out.%p" \
        "$d/bench/.libs/check_cost" --iters 10000 --batches 1) \
        >"$tmpdir/cg.log" 2>&1 || { tail -n 5 "$tmpdir/cg.log" >&2; return 1; }
    # warm-up and one batch: 20000 calls; a function may be listed twice
    # (once with the cost of its callers' cycle), the smaller is its own
    callgrind_annotate --inclusive=yes "$out".* 2>/dev/null | awk '
        /check_cost\.c:op_/ { n = $1; gsub(",", "", n); s = $0
            sub(/.*check_cost\.c:op_/, "", s); sub(/ .*/, "", s)
            if (!(s in m) || n + 0 < m[s]) m[s] = n + 0 }
        END { for (s in m) printf "%s %.1f\n", s, m[s] / 20000 }'
}
instr_rows=""
if [ $instr = 1 ]; then
    if [ -x "$bdir/bench/.libs/check_cost" ] && [ -x "$ntree/bench/.libs/check_cost" ] &&
       command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null; then
        ic=$(icount "$bdir") && in=$(icount "$ntree") &&
        instr_rows=$(join <(printf '%s\n' "$ic" | sort) <(printf '%s\n' "$in" | sort) |
            awk -v order="$order" 'BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) r[o[i]] = i }
                { print r[$1] ",instr," $1 ",insn/op," $2 "," $3 }' | sort -t, -k1,1n | cut -d, -f2-)
        if [ -n "$instr_rows" ]; then
            printf '\n%-10s %10s %10s %6s   (instructions per call, 1 PE, callgrind)\n' \
                figure "with" "without" extra
            printf '%s\n' "$instr_rows" | awk -F, '{ printf "%-10s %10.1f %10.1f %6.1f\n", $2, $4, $5, $4 - $5 }'
        fi
    else
        echo "check-cost: no instruction counts (needs valgrind and a shared build)"
    fi
fi

echo
header="np,figure,unit,pairs,with_checks_min,without_checks_min,with_checks_median,without_checks_median,cost_pct,cost_q1_pct,cost_q3_pct,min_cost_pct,load_lo,load_hi"
out=$(echo "$header"; printf '%s\n' "$stats"; [ -z "$instr_rows" ] || printf '%s\n' "$instr_rows")
printf '%s\n' "$out"
[ -z "$csv_out" ] || printf '%s\n' "$out" >"$csv_out"
exit 0
