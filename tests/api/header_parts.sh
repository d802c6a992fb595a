#!/bin/sh
# shmem.h and pshmem.h are short files that include their parts, one per
# area, from include/shmem/ and include/pshmem/ (scripts/gen_api.py).  Checks
# that every public header stays under 800 lines, that each part is included
# by its parent, that no part compiles on its own (not even after its
# parent), and that the parents may be included twice, in C11 and C++, and
# leave no marker macro behind.
S=${S:-.}
set -u
inc="-I$S/include"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

nparts=0
for h in "$S"/include/*.h "$S"/include/shmem/*.h "$S"/include/pshmem/*.h; do
    [ -f "$h" ] || { bad "no headers found as $h"; continue; }
    n=$(wc -l <"$h")
    [ "$n" -lt 800 ] || bad "${h#"$S"/} has $n lines (at most 799)"
done

for parent in shmem pshmem; do
    for h in "$S"/include/$parent/*.h; do
        part="$parent/$(basename "$h")"
        nparts=$((nparts + 1))
        grep -q "^#include \"$part\"\$" "$S/include/$parent.h" ||
            bad "$part is not included by $parent.h"
        for before in "" "#include <$parent.h>"; do
            printf '%s\n#include <%s>\n' "$before" "$part" >"$tmp/t.c"
            if gcc -std=c11 -fsyntax-only $inc "$tmp/t.c" 2>"$tmp/err"; then
                bad "<$part> compiles on its own${before:+ after <$parent.h>}"
            elif ! grep -q "is a part of <$parent.h>: include <$parent.h> instead" "$tmp/err"; then
                bad "<$part> included alone fails without saying why:"
                head -5 "$tmp/err"
            fi
        done
    done
done
[ "$nparts" -gt 0 ] || bad "no parts under include/shmem or include/pshmem"

cat >"$tmp/twice.c" <<'EOS'
#include <shmem.h>
#include <pshmem.h>
#include <shmem.h>
#include <shmemx.h>
#include <pshmem.h>
#if defined(SHMEMI_INSIDE_SHMEM_H) || defined(SHMEMI_INSIDE_PSHMEM_H)
#error a part marker leaked out of shmem.h or pshmem.h
#endif
#ifndef __cplusplus
static long d, s;
int use(void);
int use(void) { shmem_put(&d, &s, 1, 0); pshmem_long_put(&d, &s, 1, 0); return 0; }
#endif
EOS
gcc -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only $inc "$tmp/twice.c" ||
    bad "the parents included twice do not compile as C11"
g++ -std=c++11 -Wall -Wextra -Werror -pedantic -fsyntax-only -x c++ $inc "$tmp/twice.c" ||
    bad "the parents included twice do not compile as C++"
printf '#include <shmem.h>\n#ifdef shmem_put\n#error generic in C99\n#endif\n' |
    gcc -std=c99 -x c -fsyntax-only $inc - || bad "C99 sees a C11 generic selection"

[ $fail = 0 ] && echo "$nparts header parts: each under 800 lines, included by its parent, refused alone"
exit $fail
