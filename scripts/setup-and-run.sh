#!/bin/sh
# Builds Weft in this source tree, installs it, and runs its main job: the
# first command of README.md (after the Debian packages are installed)
# calls this script.
#
# Installed under /usr/local (as root): /usr/local/bin comes before
# /usr/bin on Debian's PATH, so a new shell finds Weft's oshcc, oshrun and
# shmem_info rather than Open MPI's, and Debian's /usr/bin/python3 finds
# the weft package in /usr/local/lib/python3.X/dist-packages. Not root:
# the build stays in this tree and the script says so.
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

if [ "$(id -u)" = 0 ]; then
    make install
    ldconfig
    # What a new (login) shell finds now; the shell that ran this script
    # may remember Open MPI's until `hash -r`.
    echo "Installed under /usr/local. A new shell finds:"
    bash -lc 'command -v oshcc oshrun shmem_info' 2>/dev/null | sed 's/^/  /'
    if grep -q '^PYTHON = /usr/bin/python3$' Makefile; then
        (cd / && WEFT_INIT=0 /usr/bin/python3 -c \
            'import os, weft; print("  /usr/bin/python3: import weft from", os.path.dirname(weft.__file__))')
    fi
else
    echo "Not root: Weft is built in this tree but not installed (make install as root installs it)."
fi

# What Weft finds here, in brief: version, build, the transports and the
# providers it can use, the topology (the full report: tools/shmem_info).
tools/shmem_info | awk '/^Environment/ { exit }
    /^  All providers/ { skip = 1 } /^Topology/ { skip = 0 } skip { next }
    /^$/ { blank++; next } { for (; blank > 0; blank--) print ""; print }'

# The main job.
prk/compare -n 2
