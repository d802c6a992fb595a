#!/usr/bin/env bash
# A blind attack on a running job's registered memory (docs/security.md, "Fabric keys and what each provider authenticates"):
# a 2-PE job on PROVIDER (SHMEM_LOCAL=0) fills its heap and globals with a
# pattern; tests/security/fabric_attack, run as a second, freshly created
# user (as this user, another job, where users cannot be created), reads the
# job's listening ports, addresses them with the same provider and tries
# fi_read/fi_write with keys 0..7 at offsets across the heap. Passes when no
# access completed, the job's data is intact and the job ends 0.
# Usage: fabric_keys.sh PROVIDER (tcp;ofi_rxm or sockets). Needs S, B, OSHRUN.
set -u
prov=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/weftt_fabkeys.XXXXXX") || exit 2
user="" vpid=""
cleanup() {
    [ -n "$vpid" ] && kill "$vpid" 2>/dev/null && wait "$vpid" 2>/dev/null
    [ -n "$user" ] && userdel -r "$user" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

as_attacker=()
if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null; then
    user=weftt_fab_$$
    if useradd -M -N -s /bin/false "$user" 2>/dev/null; then
        as_attacker=(setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups --)
        echo "attacker: user $user (uid $(id -u "$user"))"
    else
        user=""
    fi
fi
[ ${#as_attacker[@]} = 0 ] && echo "attacker: this user, from outside the job (no second user can be created here)"
# The second user may not reach the build tree: the attacker runs from a
# copy in this test's own directory.
chmod 755 "$dir"
cp "$B/tests/security/fabric_attack" "$dir/" && chmod 755 "$dir/fabric_attack" || exit 1

SHMEM_LOCAL=0 SHMEM_OFI_PROVIDER=$prov SHMEM_SYMMETRIC_SIZE=8m \
    "$OSHRUN" -n 2 "$B/tests/security/fabric_victim" "$dir" &
vpid=$!
for _ in $(seq 600); do
    [ -f "$dir/pe.0" ] && [ -f "$dir/pe.1" ] && break
    kill -0 "$vpid" 2>/dev/null || break
    sleep 0.2
done
if ! [ -f "$dir/pe.0" ] || ! [ -f "$dir/pe.1" ]; then
    echo "FAIL: the victim job did not start"; exit 1
fi

# The victim PEs' listening sockets, from /proc/net/tcp (state 0A) matched
# to the PEs' descriptors: only this job's ports are attacked, never another
# job that shares the machine.
inodes=" "
for f in "$dir"/pe.*; do
    pid=$(cat "$f")
    for fd in /proc/"$pid"/fd/*; do
        l=$(readlink "$fd" 2>/dev/null) || continue
        case "$l" in socket:\[*\]) inodes="$inodes${l//[!0-9]/} " ;; esac
    done
done
targets=()
while read -r _ local _ st _ _ _ _ _ inode _; do
    [ "$st" = 0A ] || continue
    case "$inodes" in *" $inode "*) ;; *) continue ;; esac
    ip=${local%:*} port=$((16#${local#*:}))
    ip=$(printf '%d.%d.%d.%d' 0x${ip:6:2} 0x${ip:4:2} 0x${ip:2:2} 0x${ip:0:2})
    [ "$ip" = 0.0.0.0 ] && ip=127.0.0.1
    targets+=("$ip:$port")
done < <(tail -n +2 /proc/net/tcp)
echo "victim PEs: $(cat "$dir"/pe.* | tr '\n' ' ')listening on: ${targets[*]:-none}"
if [ ${#targets[@]} = 0 ]; then
    echo "FAIL: no listening port of the victim found to attack"; exit 1
fi

"${as_attacker[@]}" env FI_PROVIDER="$prov" FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo \
    "$dir/fabric_attack" --keys 8 --span $((16 << 20)) \
    --step $((512 << 10)) "${targets[@]}"
arc=$?
touch "$dir/done"
wait "$vpid"; vrc=$?; vpid=""
echo "attacker status $arc, victim job status $vrc"
if [ $arc = 2 ] || [ $arc = 126 ] || [ $arc = 127 ]; then
    echo "FAIL: the attack could not be made"; exit 1
fi
if [ $arc != 0 ] || [ $vrc != 0 ]; then
    echo "FAIL: an outsider reached the job's memory or disturbed it"; exit 1
fi
echo "ok: every blind access failed; the job's data is intact and it ended 0"
