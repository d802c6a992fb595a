#!/bin/sh
# Which engine applies atomics, and that no update is lost with it
# (docs/dataplane.md, "Atomic coherence").
#
#   dp_engine.sh EXPECT NPES
#
# Runs tests/dataplane/dp_amo_stress on NPES PEs with SHMEM_DEBUG=1 under the
# variables the case sets (a provider, SHMEM_OFI_ATOMICS, SHMEM_LOCAL_OFF_PES
# so that some PEs reach the words through libfabric while others map them).
# EXPECT:
#   cpu      every PE reports CPU atomics on mapped words, and no update of
#            the stress is lost
#   fabric   every PE reports that atomics go through the fabric only (the
#            transport declared NIC atomics), and no update is lost
#   refused  shmem_init stops with the SHMEM_AMO_ENGINE=cpu message
# Exits 77 when the provider the case names is not in this libfabric.
set -u
expect=$1
npes=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/weft-dp-engine.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
log=$dir/out

SHMEM_DEBUG=1 "$OSHRUN" -n "$npes" "$B/tests/dataplane/dp_amo_stress" \
    >"$log" 2>&1
rc=$?
grep -E 'ofi debug: provider|path debug|counter|dp_amo_stress|error' "$log"
if grep -q 'no usable libfabric provider of that name' "$log"; then
    echo "skipped: the provider this case names is not in this libfabric"
    exit 77
fi
count() {
    grep -c "path debug: fabric ofi ($1[a-z,-]*), atomics by $2\$" "$log"
}
fail() {
    echo "dp_engine.sh: $*" >&2
    tail -n 20 "$log" >&2
    exit 1
}
case $expect in
cpu)
    [ "$rc" = 0 ] || fail "the job failed (status $rc)"
    grep -q 'dp_amo_stress: passed' "$log" || fail "no pass line"
    n=$(count 'atomics-cpu' 'CPU on mapped words')
    [ "$n" = "$npes" ] || fail "$n of $npes PEs report CPU atomics"
    ;;
fabric)
    [ "$rc" = 0 ] || fail "the job failed (status $rc)"
    grep -q 'dp_amo_stress: passed' "$log" || fail "no pass line"
    n=$(count 'atomics-nic' 'the fabric only')
    [ "$n" = "$npes" ] || fail "$n of $npes PEs report fabric-only atomics"
    ;;
refused)
    [ "$rc" != 0 ] || fail "the job ran although it was to be refused"
    grep -q 'dp_amo_stress: passed' "$log" && fail "the stress ran"
    grep -q "path error: SHMEM_AMO_ENGINE=cpu: the ofi transport declares that it does not apply atomics with the target's CPU (atomics-nic" "$log" ||
        fail "no SHMEM_AMO_ENGINE=cpu message"
    ;;
*)
    fail "unknown expectation '$expect'"
    ;;
esac
echo "dp_engine.sh: $expect as expected"
