#!/bin/sh
# Builds Weft in this source tree and runs its main job: the first command
# of README.md (after the Debian packages are installed) calls this script.
#
# The main job today is shmem_info (what Weft finds on this machine); it is
# the one line at the end of this file.
set -eu
cd "$(dirname "$0")/.."

# One machine: keep libfabric's tcp and sockets providers on loopback unless
# the caller chose an interface.
FI_TCP_IFACE=${FI_TCP_IFACE:-lo}
FI_SOCKETS_IFACE=${FI_SOCKETS_IFACE:-lo}
export FI_TCP_IFACE FI_SOCKETS_IFACE

autoreconf -fi
./configure
make -j2

# The main job.
tools/shmem_info
