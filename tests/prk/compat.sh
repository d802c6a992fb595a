#!/usr/bin/env bash
# Builds tests/prk/prk_compat.c with the build tree's oshcc exactly as the
# Parallel Research Kernels' SHMEM makefiles do (SHMEMCC=oshcc, no flags of
# ours) and runs it on 1, 2 and 3 PEs.
set -u
B=${B:-.}
S=${S:-..}
exe=$B/tests/prk/prk_compat
mkdir -p "$B/tests/prk"
"$B/tools/oshcc" -O3 -o "$exe" "$S/tests/prk/prk_compat.c" || { echo "FAIL: oshcc could not build prk_compat.c"; exit 1; }
export FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo
for n in 1 2 3; do
    "${OSHRUN:-$B/tools/oshrun}" -n "$n" "$exe" || { echo "FAIL: prk_compat on $n PEs"; exit 1; }
done
