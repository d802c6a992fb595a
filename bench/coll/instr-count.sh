#!/usr/bin/env bash
# Instructions per shmem_barrier_all and per 8-byte shmem_long_sum_reduce on
# 2 PEs of one node, counted by callgrind: a figure that no noise moves, for
# comparing two builds.
#
#   bench/coll/instr-count.sh [--builddir DIR]... [--calls N] [--np P]
#
# Each DIR (default: the current directory) is a build; its
# bench/coll/coll_instr is used, or, in a build that lacks it (an older
# tree), bench/coll/coll_instr.c is compiled against that build's library.
# Every PE runs under callgrind, collecting only inside the loop of N calls
# (default 2000; --toggle-collect). Per call, as the mean of the PEs:
#   total     every instruction, waits included
#   no_wait   without the waits (shmi_coll_wait, inclusive): a spin whose
#             length depends on when the other PE arrives, which under
#             callgrind can be anything; what is left is the collective's
#             own work
# CSV on stdout: build,figure,total,no_wait.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
dirs=()
calls=2000
np=2
while [ $# -gt 0 ]; do
    case "$1" in
    --builddir) dirs+=("$(cd "$2" && pwd)"); shift 2 ;;
    --calls) calls=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "instr-count.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ ${#dirs[@]} -gt 0 ] || dirs=("$(pwd)")
if ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
    echo "instr-count.sh: needs valgrind (callgrind_annotate)" >&2; exit 2
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export FI_TCP_IFACE=${FI_TCP_IFACE:-lo} FI_SOCKETS_IFACE=${FI_SOCKETS_IFACE:-lo}

prog_of() { # the coll_instr of build $1 (compiled into $tmp as $2 if none)
    if [ -x "$1/bench/coll/.libs/coll_instr" ]; then
        echo "$1/bench/coll/.libs/coll_instr"; return
    fi
    cc -O2 -I"$src/include" "$src/bench/coll/coll_instr.c" -o "$tmp/$2" \
        -L"$1/.libs" -lweft -Wl,-rpath,"$1/.libs" || return 1
    echo "$tmp/$2"
}

echo "build,figure,total,no_wait"
k=0
for d in "${dirs[@]}"; do
    k=$((k + 1))
    prog=$(prog_of "$d" "coll_instr.$k") || {
        echo "instr-count.sh: cannot build coll_instr for $d" >&2; exit 1; }
    for op in barrier_all long_sum_reduce; do
        rm -f "$tmp"/cg.*
        if ! timeout 900 "$d/tools/oshrun" -n "$np" -x LD_LIBRARY_PATH="$d/.libs" \
            valgrind -q --tool=callgrind --collect-atstart=no \
            --toggle-collect="op_$op" --callgrind-out-file="$tmp/cg.%p" \
            "$prog" "$op" "$calls" >"$tmp/run.log" 2>&1; then
            tail -n 5 "$tmp/run.log" >&2; exit 1
        fi
        for f in "$tmp"/cg.*; do
            callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$f" 2>/dev/null
        done | awk -v b="$d" -v op="$op" -v n="$calls" '
            function num(s) { gsub(",", "", s); return s + 0 }
            /PROGRAM TOTALS/ { tot += num($1); pes++ }
            # the wait as a function of the library (code inlined into it
            # from other files is listed again under their names: a part)
            /:shmi_coll_wait \[/ { v = num($1); if (v > w[pes]) w[pes] = v }
            END { for (p in w) wt += w[p]
                  if (pes == 0) exit 1
                  printf "%s,%s,%.1f,%.1f\n", b, op, tot / pes / n,
                         (tot - wt) / pes / n }'
    done
done
