#!/usr/bin/env bash
# shmem_info: prints every section and works without a GPU or a usable NIC;
# lists the transports with their capabilities;
# --env reports a bad value by name and fails; --env-markdown is what
# docs/env.md holds (regenerate it with `make env-doc` in the build
# directory after changing src/services/env_table.h).
set -u
B=${B:-.}
S=${S:-..}
info="$B/tools/shmem_info"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

[ -x "$info" ] || { echo "$info not built"; exit 1; }
out=$("$info" 2>&1)
rc=$?
[ $rc = 0 ] || fail "shmem_info exited with $rc"
for section in "Weft " "Build configuration" "Libraries in use" \
    "libfabric providers" "Usable by Weft" "Topology (hwloc)" "cores:" \
    "PUs:" "NUMA nodes:" "NICs:" "GPUs:" "Environment variables" \
    "SHMEM_SYMMETRIC_SIZE"; do
    grep -qF -- "$section" <<<"$out" || fail "no \"$section\" in the output"
done
# On any machine at least one provider offers RMA (shm or tcp;ofi_rxm).
grep -A 20 'Usable by Weft' <<<"$out" | grep -Eq '^  (shm|tcp;ofi_rxm|sockets|net|cxi|verbs)' ||
    fail "no usable provider listed"

out=$(SHMEM_SYMMETRIC_SIZE=20m SMA_BIND=core "$info" --env) || fail "--env failed"
grep -q 'SHMEM_SYMMETRIC_SIZE *= 20m (20971520 bytes) *(from SHMEM_SYMMETRIC_SIZE' <<<"$out" ||
    fail "--env does not show SHMEM_SYMMETRIC_SIZE=20m from the environment"
grep -q 'SHMEM_BIND *= core *(from SMA_BIND' <<<"$out" || fail "--env does not show SMA_BIND"
grep -q 'Build configuration' <<<"$out" && fail "--env printed more than the table"

err=$(SHMEM_SYMMETRIC_SIZE=20kk "$info" --env 2>&1)
rc=$?
[ $rc = 1 ] || fail "a bad SHMEM_SYMMETRIC_SIZE gave status $rc, not 1"
grep -q "SHMEM_SYMMETRIC_SIZE='20kk' is invalid: expected" <<<"$err" ||
    fail "bad value message: $err"

"$info" --bogus >/dev/null 2>&1
[ $? = 2 ] || fail "an unknown option is not a usage error"
"$info" --help | grep -q -- --env-markdown || fail "--help does not list --env-markdown"

if [ -f "$S/docs/env.md" ]; then
    "$info" --env-markdown | diff -u "$S/docs/env.md" - ||
        fail "docs/env.md is out of date: run make env-doc in the build directory"
else
    fail "docs/env.md is missing"
fi

# Transports with what they declare (transports/transport.h): kind,
# capabilities and the parts of the contract each has, and the
# atomics engine the ofi transport would declare for each usable provider:
# software providers apply atomics with the target's CPU, any other counts
# as NIC, SHMEM_OFI_ATOMICS overrides both.
usable() { sed -n '/Usable by Weft/,/All providers/p' | grep -E '^  [a-z]' | grep -v '^  provider '; }
out=$("$info" 2>&1)
grep -Eq '^  local +load-store +load-store, atomics-cpu; parts: none$' <<<"$out" ||
    fail "no local transport line of kind load-store declaring load-store, atomics-cpu, without parts"
grep -Eq '^  ofi +network +set by the provider chosen at start-up.*; parts: rma, atomics, ordering, collectives$' <<<"$out" ||
    fail "no ofi transport line of kind network with every part"
grep -Eq '^  device +device +hmem, ep-shared; parts: rma, atomics$' <<<"$out" ||
    fail "no device transport line of kind device declaring hmem, ep-shared, with rma and atomics"
rows=$(usable <<<"$out")
grep -Eq '^  (shm|tcp;ofi_rxm|sockets) .* cpu +[A-Za-z_|]+$' <<<"$rows" ||
    fail "no software provider shown with CPU atomics: $rows"
if grep -q '^  net ' <<<"$rows"; then
    grep -Eq '^  net .* nic +[A-Za-z_|]+$' <<<"$rows" ||
        fail "net, which the ofi transport does not list, is not shown as NIC"
fi
rows=$(SHMEM_OFI_ATOMICS=nic "$info" 2>&1 | usable)
[ -n "$rows" ] && ! grep -Eq ' cpu +[A-Za-z_|]+$' <<<"$rows" ||
    fail "SHMEM_OFI_ATOMICS=nic still shows CPU atomics: $rows"

# One atomics column per table that agrees with the other: the usable
# providers (all with FI_ATOMIC) say who applies atomics, and in the table
# of every provider none of them says "no" for atomics (libfabric leaves
# FI_ATOMIC out of tcp;ofi_rxm's answer to a query without hints: "asked").
out=$("$info" 2>&1)
grep -A 1 'Usable by Weft' <<<"$out" | grep -q ' max_msg_size atomics-by mr_mode$' ||
    fail "the usable providers' table has another atomics column than atomics-by"
grep -q '^  Atomics-by: ' <<<"$out" || fail "no note on what atomics-by means"
while read -r prov ep fabric domain _; do
    row=$(sed -n '/All providers/,/^Topology/p' <<<"$out" |
        awk -v p="$prov" -v e="$ep" -v d="$domain" '$1 == p && $2 == e && $4 == d' | head -n 1)
    [ -z "$row" ] || ! awk '{ exit !($6 == "no") }' <<<"$row" ||
        fail "$prov ($domain) is usable with atomics, yet listed without them: $row"
done < <(usable <<<"$out")

[ $fails = 0 ] && echo "shmem_info: all checks passed"
[ $fails = 0 ]
