#!/usr/bin/env bash
# Fails when a shared library exports a symbol outside the public names:
# shmem_*, shmemx_*, pshmem_*, pshmemx_* and the deprecated routines the
# specification still lists (start_pes, _my_pe, _num_pes, shmalloc, shfree,
# shrealloc, shmemalign, and their p* profiling names), as libweft.map
# intends.
#
# Usage: exported_symbols.sh [LIBRARY]   (default: $B/.libs/libweft.so)
#        exported_symbols.sh --self-test (proves the check rejects a leak)
set -u

deprecated='start_pes|_my_pe|_num_pes|shmalloc|shfree|shrealloc|shmemalign'
allowed="^(shmem_|shmemx_|pshmem_|pshmemx_)|^($deprecated)\$|^p($deprecated)\$"

# Prints the symbols of $1 that break the rule; fails if nm fails or the
# library exports no public symbol at all.
check() {
    local lib=$1 syms bad
    if ! syms=$(nm -D --defined-only "$lib" | awk 'NF >= 3 && $2 != "A" { print $3 }'); then
        echo "nm failed on $lib"
        return 1
    fi
    syms=$(printf '%s\n' "$syms" | sed 's/@.*//' | sort -u)
    if ! printf '%s\n' "$syms" | grep -Eq "$allowed"; then
        echo "$lib exports no public OpenSHMEM symbol"
        return 1
    fi
    bad=$(printf '%s\n' "$syms" | grep -Ev "$allowed" | grep -v '^$')
    if [ -n "$bad" ]; then
        echo "$lib exports $(printf '%s\n' "$bad" | wc -l) symbol(s) outside the public prefixes:"
        printf '%s\n' "$bad" | head -n 50 | sed 's/^/  /'
        return 1
    fi
    echo "$lib: $(printf '%s\n' "$syms" | wc -l) exported symbols, all public"
}

if [ "${1:-}" = --self-test ]; then
    tmp=$(mktemp -d) || exit 1
    trap 'rm -rf "$tmp"' EXIT
    printf 'int shmem_ok(void) { return 1; }\nint shmi_leak(void) { return 2; }\n' >"$tmp/a.c"
    ${CC:-cc} -shared -fPIC -o "$tmp/liba.so" "$tmp/a.c" || exit 1
    if check "$tmp/liba.so"; then
        echo "self-test: a leaked shmi_leak was not detected"
        exit 1
    fi
    printf 'int shmem_ok(void) { return 1; }\nstatic int hidden(void) { return 2; }\nint pshmem_ok(void) { return hidden(); }\n' >"$tmp/b.c"
    ${CC:-cc} -shared -fPIC -Wl,--version-script="${S:-.}/libweft.map" -o "$tmp/libb.so" "$tmp/b.c" || exit 1
    check "$tmp/libb.so" || { echo "self-test: a clean library was rejected"; exit 1; }
    echo "self-test passed"
    exit 0
fi

lib=${1:-${B:-.}/.libs/libweft.so}
if [ ! -f "$lib" ]; then
    echo "$lib not found (build the library first)"
    exit 1
fi
check "$lib"
