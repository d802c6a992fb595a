# Teams, collectives and locks (src/core/team/, src/core/coll/, lock.c).
libweft_internal_la_SOURCES += \
	src/core/team_api.c \
	src/core/team/team_topo.c \
	src/core/coll/coll_state.c \
	src/core/coll/ctx_sync.c \
	src/core/coll/reduce_device.c \
	src/core/coll/peer_record.c \
	src/core/coll/peer_gone.c \
	src/core/coll/coll_api.c \
	src/core/coll/barrier.c \
	src/core/coll/bcast.c \
	src/core/coll/gather.c \
	src/core/coll/reduce.c \
	src/core/coll/reduce_slices.c \
	src/core/coll/nbc_req.c \
	src/core/coll/nbc_lane.c \
	src/core/coll/nbc_post.c \
	src/core/lock.c
noinst_HEADERS += \
	src/core/team/team.h \
	src/core/coll/coll.h \
	src/core/coll/peer_record.h \
	src/core/coll/nbc.h
# Collective benchmarks (bench/coll/): Weft and its MPI twin, compared by
# bench/coll/compare_coll.
noinst_PROGRAMS += bench/coll/shmem_coll
bench_coll_shmem_coll_SOURCES = bench/coll/shmem_coll.c
bench_coll_shmem_coll_LDADD = libweft.la
# bench/coll/instr-count.sh: instructions per barrier and small reduction
noinst_PROGRAMS += bench/coll/coll_instr
bench_coll_coll_instr_SOURCES = bench/coll/coll_instr.c
bench_coll_coll_instr_LDADD = libweft.la
# bench/coll/nbc-overlap: the nonblocking collectives' overlap with
# computation, against MPI's (bench/coll/mpi_nbc.c, built by the script);
# bench/coll/nbc-usecases: their use cases (prk/transpose_pipe_*, prk/cg_*)
# against their blocking forms and MPI's
noinst_PROGRAMS += bench/coll/shmem_nbc
bench_coll_shmem_nbc_SOURCES = bench/coll/shmem_nbc.c bench/coll/nbc_overlap.h
bench_coll_shmem_nbc_LDADD = libweft.la
dist_noinst_SCRIPTS += bench/coll/compare_coll bench/coll/instr-count.sh \
	bench/coll/compare-builds.sh bench/coll/nbc-overlap \
	bench/coll/nbc-usecases
# What their test cases (tests/stress/stress.cases,
# tests/multinode/multinode.cases) leave in the build tree.
CLEANFILES += tests/nbc-overlap.csv tests/nbc-usecases.csv \
	tests/nbc-overlap-nodes.csv
EXTRA_DIST += bench/coll/mpi_nbc.c bench/node_launch.py
if HAVE_MPICC
noinst_PROGRAMS += bench/coll/mpi_coll
bench_coll_mpi_coll_SOURCES = bench/coll/mpi_coll.c
bench_coll_mpi_coll_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
bench_coll_mpi_coll_LDADD = $(MPI_LIBS)
endif
