#!/bin/sh
# Compile-only checks of the public headers.
#   c11      generic_all.c with gcc -std=c11 -Wall -Wextra -Werror -pedantic
#   clang    the same with clang (skipped when clang is not installed)
#   reject   calls with a type the specification does not allow must not compile
#   cxx      shmem.h, shmemx.h, pshmem.h as C++ (g++ -fsyntax-only)
#   parts    the parts of shmem.h and pshmem.h (include/shmem/, include/pshmem/):
#            each under 800 lines, each included by its parent, none usable
#            on its own; the parents may be included twice and leave no
#            marker macro behind
S=${S:-.}
what=$1
inc="-I$S/include -I$S/tests/gen"
cflags="-std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only"
case $what in
c11)
    exec gcc $cflags $inc "$S/tests/api/generic_all.c" ;;
clang)
    command -v clang >/dev/null || { echo "clang is not installed"; exit 77; }
    exec clang $cflags $inc "$S/tests/api/generic_all.c" ;;
cxx)
    g++ -std=c++11 -Wall -Wextra -Werror -pedantic -fsyntax-only $inc \
        "$S/tests/api/cxx_header.cc" || exit 1
    # A C++ program may not see any C11 generic selection.
    printf '#include <shmem.h>\n#ifdef shmem_put\n#error generic in C++\n#endif\n' |
        g++ -x c++ -fsyntax-only $inc - || exit 1
    echo "headers compile as C++" ;;
reject)
    tmp=$(mktemp -d) || exit 1
    trap 'rm -rf "$tmp"' EXIT
    fail=0
    # Each line: a statement that must be rejected (type outside the class).
    while IFS= read -r stmt; do
        printf '#include <shmem.h>\nvoid f(shmem_ctx_t ctx);\n%s\n' \
            "void f(shmem_ctx_t ctx) { (void)ctx; $stmt }" >"$tmp/t.c"
        if gcc -std=c11 -fsyntax-only $inc "$tmp/t.c" 2>/dev/null; then
            echo "accepted but must not compile: $stmt"; fail=1
        fi
    done <<'LIST'
static float d; shmem_atomic_add(&d, 1.0f, 0);
static float d; shmem_atomic_add(ctx, &d, 1.0f, 0);
static double d; shmem_atomic_fetch_and(&d, 1.0, 0);
static long double d; shmem_atomic_swap(&d, 1.0L, 0);
static short d; shmem_atomic_fetch_inc(&d, 0);
static short d; shmem_wait_until_all(&d, 1, NULL, SHMEM_CMP_EQ, 1);
static float d, s; shmem_and_reduce(SHMEM_TEAM_WORLD, &d, &s, 1);
static double d, s; shmem_xor_reduce(SHMEM_TEAM_WORLD, &d, &s, 1);
static double _Complex d, s; shmem_max_reduce(SHMEM_TEAM_WORLD, &d, &s, 1);
static double _Complex d, s; shmem_put(&d, &s, 1, 0);
static void *d; shmem_put(ctx, &d, &d, 1, 0);
LIST
    # ... and the same file with an allowed type compiles (the harness works).
    printf '#include <shmem.h>\nvoid f(shmem_ctx_t ctx);\n%s\n' \
        "void f(shmem_ctx_t ctx) { static long d; shmem_atomic_add(ctx, &d, 1L, 0); }" \
        >"$tmp/t.c"
    gcc -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only $inc "$tmp/t.c" || fail=1
    [ $fail = 0 ] && echo "wrong types are rejected"
    exit $fail ;;
parts)
    exec sh "$S/tests/api/header_parts.sh" ;;
*)
    echo "usage: compile_checks.sh c11|clang|cxx|reject|parts"; exit 2 ;;
esac
