#!/bin/bash
# check_selftest.sh BUILDDIR: runs tests/common/check_selftest in each mode
# and checks its status, its closing line and what a failed check prints
# (the format scripts rely on: "FAIL", the place, the PE, the expression,
# the message).
B=${1:?usage: check_selftest.sh BUILDDIR}
prog="$B/tests/common/check_selftest"
[ -x "$prog" ] || { echo "FAIL: $prog is missing (make check builds it)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/weft-check-selftest.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
errs=0
bad() { echo "FAIL: $*"; errs=$((errs + 1)); }

# run MODE: status in $rc, stdout and stderr in $work/MODE.{out,err}
run() {
    "$prog" "$1" >"$work/$1.out" 2>"$work/$1.err"
    rc=$?
    echo "--- $1: status $rc"; cat "$work/$1.out" "$work/$1.err"
}
has() { grep -q -E -e "$2" "$work/$1" || bad "$1 lacks /$2/"; }

run pass
[ $rc = 0 ] || bad "pass: status $rc, expected 0"
[ -s "$work/pass.err" ] && bad "pass: something on stderr"
has pass.out '^check_selftest: passed \(0 failed checks\)$'

run fail
[ $rc = 1 ] || bad "fail: status $rc, expected 1"
has fail.err '^FAIL PE 3 \(nodeA\): [^ ]*tests/common/check_selftest\.c:[0-9]+: check failed: 1 \+ 1 == 3$'
has fail.err '^FAIL PE 3 \(nodeA\): [^ ]*check_selftest\.c:[0-9]+: check failed: x == 5: x is 4$'
[ "$(grep -c . "$work/fail.err")" = 2 ] || bad "fail: not exactly 2 lines on stderr"
has fail.out '^check_selftest: FAILED \(2 failed checks\)$'

run many
[ $rc = 1 ] || bad "many: status $rc, expected 1"
[ "$(grep -c 'check failed: i < 0: i is' "$work/many.err")" = 20 ] ||
    bad "many: not exactly 20 failures printed"
has many.err 'check failed: i < 0: i is 19$'
grep -q 'i is 20$' "$work/many.err" && bad "many: a 21st failure printed"
has many.err '^FAIL \(further failed checks are counted, not printed\)$'
has many.out '^check_selftest: FAILED \(25 failed checks\)$'

[ $errs = 0 ] || { echo "FAIL: $errs problems"; exit 1; }
echo "check.h: all modes as expected"
