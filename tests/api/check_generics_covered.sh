#!/bin/sh
# Every C11 generic selection that shmem.h defines (in its parts
# include/shmem/generic_*.h) is called by
# tests/api/generic_all.c, so the compile test covers the whole interface.
# The test is preprocessed against empty stand-in headers: its own X-macros
# expand, the shmem_ generic names stay visible as calls.
S=${S:-.}
CC=${CC:-gcc}
defined=$(sed -n 's/^#define \(shmem_[a-z0-9_]*\)(\.\.\.).*/\1/p' \
    "$S/include/shmem.h" "$S"/include/shmem/*.h | sort -u)
[ -n "$defined" ] || { echo "no generic selections found in shmem.h"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/shmem.h"
: >"$tmp/shmemx.h"
$CC -E -P -I"$tmp" -I"$S/tests/gen" "$S/tests/api/generic_all.c" >"$tmp/out.c" || exit 1
missing=""
for g in $defined; do
    grep -q "\b$g *(" "$tmp/out.c" || missing="$missing $g"
done
if [ -n "$missing" ]; then
    echo "generic selections not called by tests/api/generic_all.c:$missing"
    exit 1
fi
echo "all $(echo "$defined" | wc -l) generic selections are called"
