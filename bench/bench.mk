# Micro-benchmarks: Weft's put/get/atomics on one side, their MPI
# point-to-point counterparts on the other, the machine's floor, and
# bench/compare, which runs them side by side.
noinst_PROGRAMS += bench/shmem_latency bench/shmem_bandwidth bench/shmem_atomic \
	bench/floor bench/check_cost
noinst_HEADERS += bench/bench_util.h
dist_noinst_SCRIPTS += bench/compare

bench_shmem_latency_SOURCES = bench/shmem_latency.c
bench_shmem_latency_LDADD = libweft.la
bench_shmem_bandwidth_SOURCES = bench/shmem_bandwidth.c
bench_shmem_bandwidth_LDADD = libweft.la
bench_shmem_atomic_SOURCES = bench/shmem_atomic.c
bench_shmem_atomic_LDADD = libweft.la
bench_floor_SOURCES = bench/floor.c
# bench/check-cost.sh: 8-byte operations in short batches
bench_check_cost_SOURCES = bench/check_cost.c
bench_check_cost_LDADD = libweft.la

if HAVE_MPICC
noinst_PROGRAMS += bench/mpi_latency bench/mpi_bandwidth
bench_mpi_latency_SOURCES = bench/mpi_latency.c
bench_mpi_latency_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
bench_mpi_latency_LDADD = $(MPI_LIBS)
bench_mpi_bandwidth_SOURCES = bench/mpi_bandwidth.c
bench_mpi_bandwidth_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
bench_mpi_bandwidth_LDADD = $(MPI_LIBS)
endif
