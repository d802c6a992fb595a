#!/usr/bin/env bash
# Runs the examples of examples/ as a new user would and checks what they
# print (tests/examples/examples.cases). Run from the build directory with
# S, B and OSHRUN set (tests/run-tests).
#
#   examples.sh c PROG N       examples/PROG (built by make) on N PEs
#   examples.sh python PROG N  the Python PROG of examples/python/ on N
#                              PEs, with the Python and the package this
#                              build made (python/python.mk; skipped, 77,
#                              without them)
#   examples.sh oshcc          the three C examples built with tools/oshcc
#                              as the README says, each run on 2 PEs
#   examples.sh readme oshrun|mpirun.openmpi
#                              the README's Usage line that starts with
#                              that launcher, run as written (4 PEs), with
#                              examples/hello.c as app.c built by the
#                              README's oshcc line, and this build's tools
#                              first on the PATH
#
# hello: one line "Hello from PE i of N (Weft, OpenSHMEM 1.6)" per PE;
# ring: each PE's "PE i got 1000 longs from PE i-1: ok" and PE 0's summary;
# stencil: PE 0's line with the difference from the serial result 0, "ok".
# Every program exits 0 and prints nothing on stderr.
set -u
S=${S:-..}; B=${B:-.}
OSHRUN=${OSHRUN:-$B/tools/oshrun}
export FI_TCP_IFACE=${FI_TCP_IFACE:-lo} FI_SOCKETS_IFACE=${FI_SOCKETS_IFACE:-lo}
out=$(mktemp -d "${TMPDIR:-/tmp}/weft-examples.XXXXXX")
trap 'rm -rf "$out"' EXIT

fail() {
    echo "FAIL: $*"
    [ -s "$out/stdout" ] && sed 's/^/  stdout| /' "$out/stdout" | head -n 40
    [ -s "$out/stderr" ] && sed 's/^/  stderr| /' "$out/stderr" | head -n 40
    exit 1
}
skip() { echo "skipped: $*"; exit 77; }

# run N CMD...: on N PEs; output in $out/stdout and $out/stderr.
run() {
    local n=$1
    shift
    timeout 120 "$OSHRUN" -n "$n" "$@" >"$out/stdout" 2>"$out/stderr" </dev/null
    rc=$?
}

# check PROG N: what PROG printed on N PEs.
check() {
    local prog=$1 n=$2 p c
    [ "$rc" = 0 ] || fail "$prog on $n PEs: exit status $rc"
    [ -s "$out/stderr" ] && fail "$prog on $n PEs: messages on stderr"
    case $prog in
    hello)
        for ((p = 0; p < n; p++)); do
            c=$(grep -c -x "Hello from PE $p of $n (Weft, OpenSHMEM 1.6)" "$out/stdout")
            [ "$c" = 1 ] || fail "hello: PE $p said hello $c times"
        done
        [ "$(wc -l <"$out/stdout")" = "$n" ] || fail "hello: not $n lines"
        ;;
    ring)
        for ((p = 0; p < n; p++)); do
            grep -q -x "PE $p got 1000 longs from PE $(((p + n - 1) % n)): ok" "$out/stdout" ||
                fail "ring: PE $p did not get its left neighbour's message intact"
        done
        grep -q -x "ring of $n PEs: every message arrived intact" "$out/stdout" ||
            fail "ring: no summary from PE 0"
        ;;
    stencil)
        grep -q -E -x "stencil: [0-9]+ cells, [0-9]+ steps on $n PEs?: largest difference from the serial result 0: ok" "$out/stdout" ||
            fail "stencil: the result differs from the serial one"
        ;;
    *) echo "examples.sh: unknown example $prog" >&2; exit 2 ;;
    esac
    echo "ok: $prog on $n PEs: $(tail -n 1 "$out/stdout")"
}

what=${1:-}
case $what in
c)
    prog=$2 n=$3
    [ -x "$B/examples/$prog" ] || fail "$B/examples/$prog is missing (make builds it)"
    run "$n" "$B/examples/$prog"
    check "$prog" "$n"
    ;;
python)
    prog=$2 n=$3
    [ -s "$B/python/build/python" ] ||
        skip "the weft Python package was not built (see the end of configure's output)"
    python=$(head -n 1 "$B/python/build/python")
    export PYTHONPATH="$B/python/build/tree/lib${PYTHONPATH:+:$PYTHONPATH}"
    export PYTHONDONTWRITEBYTECODE=1
    run "$n" "$python" "$S/examples/python/$prog.py"
    check "$prog" "$n"
    ;;
oshcc)
    for prog in hello ring stencil; do
        "$B/tools/oshcc" -O2 -o "$out/$prog" "$S/examples/$prog.c" >"$out/stdout" 2>"$out/stderr" ||
            fail "oshcc -O2 -o $prog $prog.c failed"
        [ -s "$out/stderr" ] && fail "oshcc $prog.c: warnings"
        run 2 "$out/$prog"
        check "$prog" 2
    done
    ;;
readme)
    launcher=$2
    line=$(sed -n '/^## Usage/,/^## /p' "$S/README.md" | grep -m 1 "^$launcher .*\./app")
    [ -n "$line" ] || fail "README.md's Usage has no line starting with $launcher and running ./app"
    cmd=${line%%#*}
    cmd=${cmd%"${cmd##*[![:space:]]}"} # without the comment and the blanks
    command -v "$launcher" >/dev/null || [ "$launcher" = oshrun ] ||
        skip "$launcher is not installed"
    build=$(sed -n '/^## Usage/,/^## /p' "$S/README.md" | grep -m 1 '^oshcc .* app\.c$')
    [ -n "$build" ] || fail "README.md's Usage has no line 'oshcc ... app.c'"
    cp "$S/examples/hello.c" "$out/app.c"
    (cd "$out" && PATH="$B/tools:$PATH" bash -c "$build") >"$out/stdout" 2>"$out/stderr" ||
        fail "README: $build failed"
    (cd "$out" && PATH="$B/tools:$PATH" timeout 120 bash -c "$cmd") \
        >"$out/stdout" 2>"$out/stderr" </dev/null
    rc=$?
    echo "README: $build; $cmd"
    check hello 4
    ;;
*) echo "usage: examples.sh c|python PROG N | oshcc | readme LAUNCHER"; exit 2 ;;
esac
