# The scaling benchmark (bench/scale/README.md): start-up, memory per PE and
# collective latency from 1 to 256 PEs, Weft against Open MPI and MPICH.
# bench/scale/scale compiles the MPI twin itself, once per MPI.
noinst_PROGRAMS += bench/scale/scale_shmem
bench_scale_scale_shmem_SOURCES = bench/scale/scale_shmem.c
bench_scale_scale_shmem_LDADD = libweft.la
noinst_HEADERS += bench/scale/scale_probe.h
dist_noinst_SCRIPTS += bench/scale/scale
EXTRA_DIST += bench/scale/scale_mpi.c bench/scale/README.md tests/stress/scale_quick.sh \
	bench/simnodes.py
