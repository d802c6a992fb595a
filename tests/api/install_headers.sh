#!/bin/sh
# `make install` puts every public header, with the parts of shmem.h and
# pshmem.h (include/shmem/, include/pshmem/), of the device API
# shmemx_device.h (include/shmem/device/) and the <mpp/*.h> names
# (include/mpp/), under $(includedir), and a
# program compiles against the installed copy alone: the C11 generics in C,
# the three headers in C++, shmemx_device.h as host code in C and C++.
S=$(cd "${S:-.}" && pwd)
B=$(cd "${B:-.}" && pwd)
set -u
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

env -u MAKEFLAGS -u MFLAGS make -s -C "$B" DESTDIR="$tmp/root" \
    install-includeHEADERS install-shmempartsHEADERS install-pshmempartsHEADERS \
    install-shmemdeviceHEADERS install-mppHEADERS \
    >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; echo "installing the headers failed"; exit 1; }
top=$(find "$tmp/root" -path '*/include/shmem.h' | head -1)
[ -n "$top" ] || { echo "no shmem.h installed under $tmp/root"; exit 1; }
incdir=$(dirname "$top")

(cd "$S/include" && find . -name '*.h' | sort) >"$tmp/want"
(cd "$incdir" && find . -name '*.h' | sort) >"$tmp/got"
missing=$(comm -23 "$tmp/want" "$tmp/got")
[ -z "$missing" ] || bad "not installed:" $missing
for h in $(cat "$tmp/want"); do
    cmp -s "$S/include/$h" "$incdir/$h" || bad "installed $h differs from the source tree"
done
# The device API by name, so that its absence from the tree fails too.
for h in shmemx_device.h shmem/device/abi.h shmem/device/platform.h \
        shmem/device/routines.h shmem/device/typed.h shmem/device/rma.h \
        shmem/device/amo.h shmem/device/sync.h shmem/device/proxy.h; do
    [ -f "$incdir/$h" ] || bad "device header $h not installed"
done

# Only the installed headers (and the test's own type lists) are visible.
gcc -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$incdir" \
    -I"$S/tests/gen" "$S/tests/api/generic_all.c" ||
    bad "generic_all.c does not compile against the installed headers"
g++ -std=c++11 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$incdir" \
    "$S/tests/api/cxx_header.cc" ||
    bad "cxx_header.cc does not compile against the installed headers"
printf '#include <shmemx_device.h>\nint f(long *x);\nint f(long *x) { shmemd_long_p(x, 1, 0); return (int)shmemd_int_atomic_fetch_inc((int *)x, 0); }\n' >"$tmp/dev.c"
gcc -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$incdir" "$tmp/dev.c" ||
    bad "shmemx_device.h does not compile as C against the installed headers"
g++ -std=c++11 -Wall -Wextra -Werror -pedantic -fsyntax-only -x c++ -I"$incdir" "$tmp/dev.c" ||
    bad "shmemx_device.h does not compile as C++ against the installed headers"

[ $fail = 0 ] && echo "$(wc -l <"$tmp/want") headers installed in ${incdir#"$tmp/root"}; C11, C++ and the device API as host code compile against them"
exit $fail
