#!/usr/bin/env bash
# Small reductions over tcp whose rounds cross the wire in pieces: a 3-PE
# job in a private network namespace whose loopback has an MTU of 300
# bytes, so that a round of up to 1 KiB and its tag (one write, docs/
# design.md, decision 5) travels in several TCP segments and may be
# received by several progress passes; tests/coll/coll_reduce_rounds
# checks every element of every call. Needs root (a network namespace,
# unshare -n) and python3 (to set the MTU: no iproute2 needed); exits 77
# otherwise. Needs OSHRUN.
set -u
if [ "$(id -u)" != 0 ] || ! command -v python3 >/dev/null ||
    ! unshare -n true 2>/dev/null; then
    echo "skipped: needs root, python3 and network namespaces (unshare -n)"
    exit 77
fi
# Inside the namespace: loopback up with a small MTU, then the job.
exec unshare -n bash -c '
python3 - <<PY || exit 1
import fcntl, socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
# Interface requests (SIOC*) and flag (IFF_UP) of the kernel.
SIOCGIFMTU, SIOCSIFMTU, SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8921, 0x8922, 0x8913, 0x8914, 1
fcntl.ioctl(s, SIOCSIFMTU, struct.pack("16si20x", b"lo", 300))
flags = struct.unpack("16sh22x", fcntl.ioctl(s, SIOCGIFFLAGS, struct.pack("16s24x", b"lo")))[1]
fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sh22x", b"lo", flags | IFF_UP))
mtu = struct.unpack("16si20x", fcntl.ioctl(s, SIOCGIFMTU, struct.pack("16s24x", b"lo")))[1]
print("loopback of this namespace: mtu", mtu)
if mtu != 300:
    raise SystemExit("the MTU did not change")
PY
exec env FI_TCP_IFACE=lo SHMEM_DEBUG=1 SHMEM_LOCAL=0 SHMEM_OFI_PROVIDER="tcp;ofi_rxm" \
    "$0" --pass --within 120 -e "ofi debug: first tagged buffer written unacknowledged" \
    -e "coll_reduce_rounds: passed" -- "$1" -n 3 tests/coll/coll_reduce_rounds 2000
' "$(dirname "$0")/../badinput/expect_fail.sh" "$OSHRUN"
