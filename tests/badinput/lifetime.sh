#!/usr/bin/env bash
# Every routine of tests/badinput/lifetime.c, called before shmem_init and
# after shmem_finalize (one process each, without a launcher), must end the
# program with status 1 and "ROUTINE: called before shmem_init" (or "after
# shmem_finalize"), never return, crash or hang; the routines allowed at any
# time must return. Usage: lifetime.sh PATH/TO/lifetime
set -u
prog=$1
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo
out=$(mktemp "${TMPDIR:-/tmp}/weft-lifetime.XXXXXX")
trap 'rm -f "$out"' EXIT
list=$("$prog" list) || { echo "FAIL: $prog list"; exit 1; }
problems=0 runs=0
for when in before after; do
    [ $when = before ] && want="called before shmem_init" || want="called after shmem_finalize"
    while read -r r says; do
        runs=$((runs + 1))
        timeout -k 2 10 "$prog" $when "$r" >"$out" 2>&1 </dev/null
        rc=$?
        # The message names the routine the program called, not a helper.
        if [ $rc != 1 ] || ! grep -q -E "^weft(\[pe -?[0-9]+\])? .*: $says: $want\$" "$out"; then
            echo "FAIL: $r $when shmem_init/finalize: status $rc, wanted 1 and '$says: $want'"
            sed 's/^/    /' "$out" | head -n 5
            problems=$((problems + 1))
        fi
    done <<<"$list"
done
for when in before after; do
    if ! timeout -k 2 10 "$prog" allowed $when >"$out" 2>&1 </dev/null; then
        echo "FAIL: a routine allowed at any time failed $when shmem_init/finalize:"
        sed 's/^/    /' "$out" | head -n 5
        problems=$((problems + 1))
    fi
done
[ $problems = 0 ] || { echo "$problems of $runs calls misreported"; exit 1; }
echo "ok: $runs calls outside the library's lifetime each named their routine"
