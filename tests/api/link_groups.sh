#!/bin/sh
# libweft exports every routine of shmem.h as a weak shmem_X over a defined
# pshmem_X, and a program calling one routine of each group links against it.
# Skips (77) while libweft.so is not built or still lacks core shmi_ functions.
S=${S:-.}
B=${B:-.}
lib="$B/.libs/libweft.so"
[ -f "$lib" ] || { echo "libweft.so is not built yet"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# Names declared in shmem.h, its parts (include/shmem/*.h) and shmemx.h: "ret
# name(params);" lines at the start of a line.
sed -n 's/^[a-z_][a-z0-9_ ]*[ *]\([a-z_][a-z0-9_]*\)(.*);.*/\1/p' \
    "$S/include/shmem.h" "$S"/include/shmem/*.h "$S/include/shmemx.h" |
    grep -v '^shmemi_' | sort -u >"$tmp/declared"
nm -D --defined-only "$lib" | awk '{print $2, $3}' >"$tmp/nm"
missing=""
while read -r name; do
    grep -q "^[WT] $name\$" "$tmp/nm" || missing="$missing $name"
    grep -q "^T p$name\$" "$tmp/nm" || missing="$missing p$name"
done <"$tmp/declared"
if [ -n "$missing" ]; then
    echo "not exported by libweft.so (check libweft.map):$missing"
    exit 1
fi
echo "$(wc -l <"$tmp/declared") routines exported with their p-names"

if ! ${CC:-gcc} -std=c11 -I"$S/include" "$S/tests/api/link_groups.c" \
        -o "$tmp/link_groups" -L"$B/.libs" -lweft -Wl,-rpath,"$B/.libs" \
        2>"$tmp/err"; then
    # Undefined references inside libweft.so, and to the library-owned
    # handle objects (shmem_impl_*), are parts of the core other areas have
    # not finished; any other one from the program is a missing API routine.
    inlib=$(grep "undefined reference" "$tmp/err" |
        grep "libweft\.so[^:]*: undefined\|\`shmem_impl_" |
        grep -o "\`[A-Za-z_0-9]*'" | sort -u)
    other=$(grep "undefined reference" "$tmp/err" |
        grep -v "libweft\.so[^:]*: undefined" | grep -vc "\`shmem_impl_")
    if [ -n "$inlib" ] && [ "$other" = 0 ]; then
        echo "$inlib" | head -20 | tr '\n' ' '; echo
        echo "libweft.so still lacks $(echo "$inlib" | grep -c .) internal functions"
        exit 77
    fi
    cat "$tmp/err"
    exit 1
fi
echo "one routine of each group links against libweft"
