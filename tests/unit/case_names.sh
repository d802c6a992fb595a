#!/usr/bin/env bash
# Every test case of tests/*/*.cases (the runner's list, tests/run-tests)
# has a name of one convention, lower-case words and digits joined by "_"
# (^[a-z0-9]+(_[a-z0-9]+)*$, as in dp_ctx_invalid_tcp_2), used once in the
# whole tree: a name is what --filter and TESTS_FILTER match, what CI and
# the documents cite, and the name of the case's log file, which two cases
# running at once must not share. The second field is the runner's
# TIMEOUT, SECONDS or SECONDS:serial; a misspelt mark would otherwise
# stop the runner only when it reads that line.
#
#   case_names.sh SRCDIR        check the tree
#   case_names.sh --self-test   check that the checker catches a name of
#                               another form, a name used twice and a bad
#                               TIMEOUT field
set -u

# Prints "FILE:LINE: ..." for each bad name or TIMEOUT and for each second
# use of a name; exit status 1 when it printed anything.
check_tree() {
    local root=$1 files
    files=$(cd "$root" && ls tests/*/*.cases 2>/dev/null)
    [ -n "$files" ] || { echo "$root: no tests/*/*.cases found"; return 1; }
    # shellcheck disable=SC2086
    (cd "$root" && awk '
        /^[ \t]*(#|$)/ { next }
        {
            where = FILENAME ":" FNR
            n++
            if ($1 !~ /^[a-z0-9]+(_[a-z0-9]+)*$/) {
                print where ": " $1 ": not lower-case words and digits joined by _"
                bad = 1
            }
            if ($2 !~ /^[0-9]+(:serial)?$/) {
                print where ": " $1 ": TIMEOUT \"" $2 "\" is not SECONDS or SECONDS:serial"
                bad = 1
            }
            if ($1 in first) {
                print where ": " $1 ": already the name of the case at " first[$1]
                bad = 1
            } else {
                first[$1] = where
            }
        }
        END {
            print n " case names checked"
            exit bad
        }' $files)
}

# expect LINE PATTERN WHAT (self-test): the tree $t with LINE added to its
# second list of cases must fail, with output matching PATTERN.
expect() {
    local rc
    printf '%s\n' "$1" >>"$t/tests/b/b.cases"
    check_tree "$t" >"$t/out"; rc=$?
    if [ $rc = 0 ] || ! grep -q -E -- "$2" "$t/out"; then
        echo "self-test: $3 was not caught"
        cat "$t/out"; exit 1
    fi
    printf 'b1 30 true\n' >"$t/tests/b/b.cases"
}

self_test() {
    t=$(mktemp -d "${TMPDIR:-/tmp}/weft-case-names.XXXXXX") || exit 1
    trap 'rm -rf "$t"' EXIT
    mkdir -p "$t/tests/a" "$t/tests/b"
    printf '# a comment: Not-A-Name 1 x\n\na_one 30 true\na_2_pes 60:serial true\n' \
        >"$t/tests/a/a.cases"
    printf 'b1 30 true\n' >"$t/tests/b/b.cases"
    check_tree "$t" >"$t/out" || { cat "$t/out"; echo "self-test: a valid tree failed"; exit 1; }
    expect 'gpu-direct-2 30 true' 'tests/b/b.cases:2: gpu-direct-2: not lower-case' "a name with hyphens"
    expect 'Heap_basic 30 true' 'tests/b/b.cases:2: Heap_basic: not lower-case' "a name with a capital"
    expect 'heap__basic 30 true' 'tests/b/b.cases:2: heap__basic: not lower-case' "a doubled _"
    expect 'heap_basic_ 30 true' 'tests/b/b.cases:2: heap_basic_: not lower-case' "a trailing _"
    expect 'a_one 30 true' 'tests/b/b.cases:2: a_one: already the name of the case at tests/a/a.cases:3' \
        "a name used in two files"
    expect 'b1 30 false' 'tests/b/b.cases:2: b1: already the name of the case at tests/b/b.cases:1' \
        "a name used twice in one file"
    expect 'b2 60:serail true' 'tests/b/b.cases:2: b2: TIMEOUT "60:serail" is not' "a misspelt serial mark"
    expect 'b2 true' 'tests/b/b.cases:2: b2: TIMEOUT "true" is not' "a missing TIMEOUT"
    echo "self-test passed"
}

case "${1:-}" in
--self-test) self_test ;;
'') echo "usage: $0 SRCDIR | --self-test" >&2; exit 2 ;;
*) check_tree "$1" ;;
esac
