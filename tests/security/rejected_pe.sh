#!/bin/sh
# One PE of tests/security/rejected_handshake.sh.
# Usage: rejected_pe.sh DIR VICTIM INTRUDER SHIM
# PE 1 is the victim program itself. PE 0 runs the victim as its child and,
# once every PE is in the job (DIR/ready), also the intruder, claiming uid 1
# (SHIM) as rank 1: a process of the job, so oshrun lets it connect, whose
# handshake libpmix refuses. Then it lets the job finish (DIR/go).
dir=$1 victim=$2 intruder=$3 shim=$4
[ "$PMIX_RANK" = 0 ] || exec "$victim" "$dir"
"$victim" "$dir" &
v=$!
while [ ! -e "$dir/ready" ]; do
    kill -0 $v 2>/dev/null || break
    sleep 0.05
done
port=${PMIX_SERVER_URI41##*:}
LD_PRELOAD=$shim "$intruder" "$PPID" "$port" 1 >"$dir/intruder.out" 2>&1
touch "$dir/go"
wait $v
