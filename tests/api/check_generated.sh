#!/bin/sh
# The committed generated API matches scripts/gen_api.py, and --check really
# notices a difference (on a scratch copy of the tree).
S=${S:-.}
set -u
python3 "$S/scripts/gen_api.py" --check || exit 1

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/core"
cp -R "$S/scripts" "$S/include" "$S/docs" "$S/configure.ac" "$tmp/" || exit 1
mkdir -p "$tmp/src/api" "$tmp/tests"
cp -R "$S/src/api/gen" "$tmp/src/api/" && cp -R "$S/tests/gen" "$tmp/tests/" || exit 1
cp "$S/src/core/core_api.h" "$S/src/core/core_decl.h" "$tmp/src/core/" || exit 1
mkdir -p "$tmp/src/core/kernel"
cp "$S/src/core/kernel/routine_names.c" "$tmp/src/core/kernel/" || exit 1
python3 "$tmp/scripts/gen_api.py" --check || { echo "scratch copy differs"; exit 1; }
# The device outputs too, and the hand-written device headers next to them
# are neither stale nor stray.
for f in include/shmem/device/typed.h src/core/kernel/routine_names.c; do
    cp "$tmp/$f" "$tmp/saved" && echo '/* stray edit */' >>"$tmp/$f"
    out=$(python3 "$tmp/scripts/gen_api.py" --check 2>&1)
    case "$out" in *"$f"*) ;; *) echo "--check missed an edit of $f: $out"; exit 1 ;; esac
    mv "$tmp/saved" "$tmp/$f"
done
echo '/* hand-written */' >"$tmp/include/shmem/device/hand.h"
python3 "$tmp/scripts/gen_api.py" --check || { echo "--check refused a hand-written device header"; exit 1; }
echo '/* stray edit */' >>"$tmp/src/api/gen/amo.c"
out=$(python3 "$tmp/scripts/gen_api.py" --check 2>&1)
rc=$?
echo "$out"
if [ $rc = 0 ]; then echo "--check missed an edited file"; exit 1; fi
case "$out" in *src/api/gen/amo.c*) ;; *) echo "--check did not name the file"; exit 1 ;; esac
rm "$tmp/include/pshmem.h"
if python3 "$tmp/scripts/gen_api.py" --check >/dev/null 2>&1; then
    echo "--check missed a missing file"; exit 1
fi
# A part of shmem.h that the generator no longer writes is stale too.
echo '/* old part */' >"$tmp/include/shmem/stray.h"
out=$(python3 "$tmp/scripts/gen_api.py" --check 2>&1)
case "$out" in *include/shmem/stray.h*) ;; *) echo "--check missed a stray part: $out"; exit 1 ;; esac
python3 "$tmp/scripts/gen_api.py" >/dev/null && python3 "$tmp/scripts/gen_api.py" --check || exit 1
[ ! -e "$tmp/include/shmem/stray.h" ] || { echo "regenerating left a stray part"; exit 1; }
[ -e "$tmp/include/shmem/device/hand.h" ] || { echo "regenerating removed a hand-written device header"; exit 1; }
echo "generated API is current; --check detects edits, missing files and stray parts"
