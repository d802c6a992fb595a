#!/usr/bin/env bash
# The compiler wrappers, run from the build tree: --showme and friends,
# compiling without link flags (-c, -E, -M), linking a program and a shared
# object against libweft, the OSHCC_CC override, and (with --installed) the
# copy `make install DESTDIR=...` writes, which must name the prefix.
#
# Usage: oshcc.sh [c|c++|installed]   (run with $S and $B set, as make check does)
set -u
B=$(cd "${B:-.}" && pwd)
S=$(cd "${S:-..}" && pwd)
mode=${1:-c}
fails=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

if [ "$mode" = installed ]; then
    # make install into a scratch root; the installed wrapper must use the
    # configured prefix, not the build tree.
    prefix=$(sed -n 's/^prefix="\(.*\)"$/\1/p' "$B/tools/oshcc")
    env -u MAKEFLAGS -u MFLAGS make -s -C "$B" install-binSCRIPTS DESTDIR="$tmp/root" >"$tmp/install.log" 2>&1 ||
        { cat "$tmp/install.log"; fail "make install-binSCRIPTS DESTDIR=... failed"; exit 1; }
    w="$tmp/root$prefix/bin/oshcc"
    [ -x "$w" ] || { fail "installed oshcc missing at $w"; exit 1; }
    link=$("$w" --showme:link)
    case "$link" in
    *"$B"* | *"$(cd "$B" && pwd -P)"*) fail "installed oshcc links the build tree: $link" ;;
    *-lweft*) ok "installed oshcc links from the prefix: $link" ;;
    *) fail "installed oshcc has no -lweft: $link" ;;
    esac
    case "$link" in
    *"-lweft -lm") ok "installed oshcc links libm after libweft" ;;
    *) fail "installed oshcc does not end its link flags with -lweft -lm: $link" ;;
    esac
    [ $fails = 0 ]
    exit
fi

if [ "$mode" = c++ ]; then
    w="$B/tools/oshc++"; ext=cc
else
    w="$B/tools/oshcc"; ext=c
fi
[ -x "$w" ] || { echo "$w not built"; exit 1; }

cat >"$tmp/hello.$ext" <<'EOS'
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    printf("PE %d of %d\n", shmem_my_pe(), shmem_n_pes());
    shmem_finalize();
    return 0;
}
EOS

# --showme: a usable command line with Weft's include and library.
line=$("$w" --showme)
case "$line" in
*-I*-lweft*) ok "--showme: $line" ;;
*) fail "--showme lacks -I or -lweft: $line" ;;
esac
[ "$("$w" -show)" = "$line" ] || fail "-show differs from --showme"
comp=$("$w" --showme:compile)
case "$comp" in *-lweft*) fail "--showme:compile has link flags: $comp" ;; esac
case "$("$w" --showme:link)" in *-lweft*) ok "--showme:link" ;; *) fail "--showme:link lacks -lweft" ;; esac
case "$("$w" --showme -c x.$ext)" in *-lweft*) fail "--showme -c adds link flags" ;; *) ok "--showme -c: no link flags" ;; esac
"$w" --version >"$tmp/version" 2>&1 && grep -q Weft "$tmp/version" || fail "--version does not name Weft"
"$w" --showme:bogus >/dev/null 2>&1 && fail "--showme:bogus accepted"

# Compile only: an object, and no link step (which would fail on a missing
# main or library).
(cd "$tmp" && "$w" -c "hello.$ext" -o hello.o) || fail "-c failed"
[ -s "$tmp/hello.o" ] && ok "-c made an object" || fail "-c made no object"
(cd "$tmp" && "$w" -E "hello.$ext" >hello.i) && grep -q shmem_init "$tmp/hello.i" || fail "-E failed"
(cd "$tmp" && "$w" -M "hello.$ext" >hello.d) && grep -q 'shmem.h' "$tmp/hello.d" || fail "-M failed or shmem.h not found"
(cd "$tmp" && "$w" -c -fPIC -o pic.o "hello.$ext") || fail "-c -fPIC failed"

# Link a program: it needs libweft and finds it through the rpath.
(cd "$tmp" && "$w" -O2 -o hello "hello.$ext") || fail "linking a program failed"
if [ -x "$tmp/hello" ]; then
    readelf -d "$tmp/hello" | grep -q 'NEEDED.*libweft' || fail "program does not need libweft"
    ldd "$tmp/hello" | grep 'libweft' | grep -q 'not found' && fail "libweft not found at run time (rpath)"
    ok "linked a program against $(ldd "$tmp/hello" | awk '/libweft/ {print $3}')"
    # And it runs: two PEs through the build tree's launcher.
    if [ -x "${OSHRUN:-}" ]; then
        run=$(cd "$tmp" && timeout 60 "$OSHRUN" -n 2 ./hello 2>&1)
        if grep -q 'PE 0 of 2' <<<"$run" && grep -q 'PE 1 of 2' <<<"$run"; then
            ok "the program runs on 2 PEs"
        else
            fail "the program did not run on 2 PEs: $run"
        fi
    fi
fi
# Link from an object, and a shared object as Python extensions do.
(cd "$tmp" && "$w" -o hello2 hello.o) || fail "linking from an object failed"
(cd "$tmp" && "$w" -shared -o libx.so pic.o) || fail "-shared failed"
[ -f "$tmp/libx.so" ] && { readelf -d "$tmp/libx.so" | grep -q 'NEEDED.*libweft' || fail "shared object does not need libweft"; }

# A C program may call libm without naming it (as with other OpenSHMEM
# wrappers): oshcc links libm after libweft, only when it links. Inputs are
# volatile, so the calls are not folded away at compile time.
if [ "$mode" = c ]; then
    case "$("$w" --showme:link)" in
    *"-lweft -lm") ok "--showme:link ends with -lweft -lm" ;;
    *) fail "--showme:link does not end with -lweft -lm: $("$w" --showme:link)" ;;
    esac
    case "$("$w" --showme -o m m.c)" in *" -lm") ok "--showme links libm" ;; *) fail "--showme lacks -lm" ;; esac
    case "$("$w" --showme -c m.c)" in *-lm*) fail "--showme -c adds -lm" ;; esac
    [ "$("$w" --showme:libs)" = "weft m" ] || fail "--showme:libs is not 'weft m': $("$w" --showme:libs)"
    cat >"$tmp/libm.c" <<'EOS'
#include <math.h>
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    volatile long double b = 2.0L, e = 10.0L;
    volatile double x = 2.25, y = 0.0;
    int ok;

    shmem_init();
    ok = powl(b, e) == 1024.0L && sqrt(x) == 1.5 && exp(y) == 1.0;
    printf("PE %d: libm %s\n", shmem_my_pe(), ok ? "ok" : "WRONG");
    shmem_finalize();
    return ok ? 0 : 1;
}
EOS
    if (cd "$tmp" && "$w" -O2 -o libm libm.c >libm.log 2>&1); then
        ok "a program calling powl, sqrt and exp links"
        if [ -x "${OSHRUN:-}" ]; then
            run=$(cd "$tmp" && timeout 60 "$OSHRUN" -n 2 ./libm 2>&1)
            if [ "$(grep -c 'libm ok' <<<"$run")" = 2 ]; then
                ok "it runs on 2 PEs with the right results"
            else
                fail "the libm program did not run right on 2 PEs: $run"
            fi
        fi
    else
        fail "a program calling powl, sqrt and exp does not link: $(cat "$tmp/libm.log")"
    fi
fi

# The compiler override is used.
if [ "$mode" = c++ ]; then var=OSHCXX_CXX; else var=OSHCC_CC; fi
out=$(env "$var=echo WRAPPED" "$w" -c x.$ext)
case "$out" in "WRAPPED "*) ok "$var override" ;; *) fail "$var ignored: $out" ;; esac
env "$var=false" "$w" -c x.$ext 2>/dev/null && fail "a failing compiler did not fail the wrapper"

[ $fails = 0 ] && echo "all $mode wrapper checks passed"
[ $fails = 0 ]
