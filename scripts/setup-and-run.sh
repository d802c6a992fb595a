#!/bin/sh
# Builds Weft in this source tree and runs its main job: the first command
# of README.md (after the Debian packages are installed) calls this script.
#
# The main job is the comparison of the bundled Parallel Research Kernels on
# Weft and on MPI (MPICH), 2 PEs/ranks on this machine: prk/compare prints
# the table and writes prk-results/results.csv and results.png.
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

# What Weft finds here (version, providers, topology), in brief.
tools/shmem_info | sed -n '1,/^Environment/p' | head -n 40

# The main job.
prk/compare -n 2
