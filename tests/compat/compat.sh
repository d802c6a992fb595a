#!/usr/bin/env bash
# What programs and build systems written for other OpenSHMEMs expect
# (tests/compat/compat.cases). Run from the build directory; S, B and OSHRUN
# come from tests/run-tests.
#
#   compat.sh headers  <mpp/shmem.h> and <mpp/shmemx.h> give the API, also
#                      when -I names include/mpp itself; WEFT_MAJOR_VERSION,
#                      _MINOR_, _PATCH_, WEFT_VERSION and WEFT_NUMVERSION
#                      agree with each other and with configure's version;
#                      a program built that way runs; both headers install
#                      under $(includedir)/mpp
#   compat.sh oshcxx   tools/oshcxx is oshc++ under its other name: same
#                      commands, builds and runs a C++ program, installed
#                      beside oshc++
set -u
S=${S:-..}; B=${B:-.}
OSHRUN=${OSHRUN:-$B/tools/oshrun}
export FI_TCP_IFACE=${FI_TCP_IFACE:-lo} FI_SOCKETS_IFACE=${FI_SOCKETS_IFACE:-lo}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-compat.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; [ -s "$tmp/log" ] && sed 's/^/  | /' "$tmp/log" | head -n 30; exit 1; }

version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$B/config.h")
[ -n "$version" ] || fail "no PACKAGE_VERSION in $B/config.h"

cat >"$tmp/mpp.c" <<'PROG'
#include <mpp/shmem.h>
#include <mpp/shmemx.h>
#include <stdio.h>

#if !defined(WEFT_NUMVERSION) || !defined(WEFT_VERSION)
#error "no WEFT_NUMVERSION or WEFT_VERSION"
#endif
#if WEFT_NUMVERSION != WEFT_MAJOR_VERSION * 10000 + WEFT_MINOR_VERSION * 100 + WEFT_PATCH_VERSION
#error "WEFT_NUMVERSION disagrees with WEFT_MAJOR/MINOR/PATCH_VERSION"
#endif

int main(void)
{
    char v[32];

    snprintf(v, sizeof(v), "%d.%d.%d", WEFT_MAJOR_VERSION, WEFT_MINOR_VERSION,
             WEFT_PATCH_VERSION);
    shmem_init();
    if (shmem_my_pe() == 0)
        printf("%s %s %d\n", WEFT_VERSION, v, shmem_n_pes());
    shmem_finalize();
    return 0;
}
PROG

case ${1:-} in
headers)
    "$B/tools/oshcc" -std=c11 -Wall -Wextra -Werror -o "$tmp/mpp" "$tmp/mpp.c" >"$tmp/log" 2>&1 ||
        fail "a program including <mpp/shmem.h> and <mpp/shmemx.h> does not build with oshcc"
    "$B/tools/oshcc" -std=c11 -Wall -Werror -I"$S/include/mpp" -fsyntax-only "$tmp/mpp.c" >"$tmp/log" 2>&1 ||
        fail "with -I.../include/mpp the mpp headers do not compile"
    timeout 60 "$OSHRUN" -n 2 "$tmp/mpp" >"$tmp/log" 2>&1 || fail "the program did not run"
    [ "$(cat "$tmp/log")" = "$version $version 2" ] ||
        fail "WEFT_VERSION and WEFT_*_VERSION should say $version (configure's version)"
    env -u MAKEFLAGS -u MFLAGS make -s -C "$B" DESTDIR="$tmp/root" install-mppHEADERS >"$tmp/log" 2>&1 ||
        fail "make install-mppHEADERS failed"
    for h in shmem.h shmemx.h; do
        [ -n "$(find "$tmp/root" -path "*/include/mpp/$h")" ] || fail "mpp/$h is not installed"
    done
    echo "ok: <mpp/shmem.h> and <mpp/shmemx.h> build and install; WEFT_VERSION $version"
    ;;
oshcxx)
    [ -x "$B/tools/oshcxx" ] || fail "$B/tools/oshcxx is missing (make builds it)"
    a=$("$B/tools/oshc++" --showme -O2 x.cc) b=$("$B/tools/oshcxx" --showme -O2 x.cc)
    [ "$a" = "$b" ] || fail "oshcxx --showme ($b) differs from oshc++ --showme ($a)"
    cat >"$tmp/hello.cc" <<'PROG'
#include <mpp/shmem.h>
#include <iostream>
int main()
{
    shmem_init();
    std::cout << "PE " << shmem_my_pe() << " of " << shmem_n_pes() << std::endl;
    shmem_finalize();
    return 0;
}
PROG
    "$B/tools/oshcxx" -O2 -o "$tmp/hello" "$tmp/hello.cc" >"$tmp/log" 2>&1 || fail "oshcxx cannot build a C++ program"
    timeout 60 "$OSHRUN" -n 2 "$tmp/hello" >"$tmp/log" 2>&1 || fail "the C++ program did not run"
    [ "$(sort "$tmp/log" | tr '\n' ' ')" = "PE 0 of 2 PE 1 of 2 " ] || fail "unexpected output"
    "$B/tools/oshcxx" --showme:bad-option-x >"$tmp/log" 2>&1
    grep -q "^oshcxx: unknown option" "$tmp/log" || fail "oshcxx does not name itself in its messages"
    env -u MAKEFLAGS -u MFLAGS make -s -C "$B" DESTDIR="$tmp/root" install-binSCRIPTS >"$tmp/log" 2>&1 ||
        fail "make install-binSCRIPTS failed"
    [ -x "$(find "$tmp/root" -path '*/bin/oshcxx' | head -n 1)" ] || fail "oshcxx is not installed"
    [ -x "$(find "$tmp/root" -path '*/bin/oshc++' | head -n 1)" ] || fail "oshc++ is not installed"
    echo "ok: oshcxx is oshc++ under its other name, in the build tree and installed"
    ;;
*) echo "usage: compat.sh headers|oshcxx"; exit 2 ;;
esac
