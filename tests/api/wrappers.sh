#!/bin/sh
# Builds the generated typed wrappers with a recording stand-in core
# (tests/api/wrappers_stub.c) and runs it: every wrapper must pass the
# right name, sizes, tags and kinds down to the core.
S=${S:-.}
CC=${CC:-gcc}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
gen="$S/src/api/gen"
$CC -std=c11 -Wall -Wextra -Werror -O0 -I"$S/include" -I"$S/src" -I"$S" \
    -I"$S/tests/gen" -o "$tmp/wrappers" "$S/tests/api/wrappers_stub.c" \
    "$gen/rma.c" "$gen/rma_strided.c" "$gen/signal.c" "$gen/amo.c" \
    "$gen/amo_nbi.c" "$gen/amo_deprecated.c" \
    "$gen/sync.c" "$gen/coll.c" "$gen/coll_deprecated.c" \
    "$S/src/services/dtype.c" || exit 1
exec "$tmp/wrappers"
