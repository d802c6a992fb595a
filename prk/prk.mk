# The Parallel Research Kernels (stencil, transpose, synch_p2p), each in an
# OpenSHMEM version (linked with Weft) and an MPI point-to-point twin, and
# prk/compare, which runs both sides and prints the comparison.
#
# The MPI twins are ordinary programs compiled with the flags of the MPI
# wrapper found by configure (MPI_CFLAGS, MPI_LIBS), like bench/'s; they
# exist only when configure found an MPI compiler (HAVE_MPICC).
#
# Both versions of a kernel share their computation (prk/<kernel>/*_core.c)
# and their compiler flags, so that a comparison measures communication.
# Every function starts on a 64-byte boundary, so that the shared hot
# loops have the same alignment in both programs (their addresses differ
# with each program's own code and imports; where a loop falls relative to
# the 32- and 64-byte boundaries of instruction fetch is part of its speed).
# -fvect-cost-model=dynamic (GCC) keeps the loops vectorized when the
# user's CFLAGS lower the optimization level to -O2 (they follow ours); it
# is left out for a compiler that does not take it.
PRK_VECT := $(shell $(CC) -Werror -fvect-cost-model=dynamic -E -x c /dev/null \
	>/dev/null 2>&1 && echo -fvect-cost-model=dynamic)
PRK_ALIGN := $(shell $(CC) -Werror -falign-functions=64 -E -x c /dev/null \
	>/dev/null 2>&1 && echo -falign-functions=64)
PRK_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/prk
PRK_CFLAGS = $(AM_CFLAGS) -O3 $(PRK_VECT) $(PRK_ALIGN)
PRK_COMMON = prk/common/prk.c prk/common/prk.h prk/common/prk_comm.h
PRK_STENCIL = prk/stencil/stencil_core.c prk/stencil/stencil_compute.c \
	prk/stencil/stencil_core.h
PRK_TRANSPOSE = prk/transpose/transpose_core.c prk/transpose/transpose_core.h
PRK_TRANSPOSE_PIPE = prk/transpose/transpose_pipe.c \
	prk/transpose/transpose_pipe.h $(PRK_TRANSPOSE)
PRK_P2P = prk/p2p/p2p_core.c prk/p2p/p2p_core.h
PRK_CG = prk/cg/cg_core.c prk/cg/cg_core.h

noinst_PROGRAMS += prk/stencil_shmem prk/transpose_shmem prk/p2p_shmem \
	prk/transpose_a2a_shmem
prk_stencil_shmem_SOURCES = prk/stencil/stencil_shmem.c $(PRK_STENCIL) \
	$(PRK_COMMON) prk/common/comm_shmem.c
prk_stencil_shmem_CPPFLAGS = $(PRK_CPPFLAGS)
prk_stencil_shmem_CFLAGS = $(PRK_CFLAGS)
prk_stencil_shmem_LDADD = libweft.la -lm
prk_transpose_shmem_SOURCES = prk/transpose/transpose_shmem.c $(PRK_TRANSPOSE) \
	$(PRK_COMMON) prk/common/comm_shmem.c
prk_transpose_shmem_CPPFLAGS = $(PRK_CPPFLAGS)
prk_transpose_shmem_CFLAGS = $(PRK_CFLAGS)
prk_transpose_shmem_LDADD = libweft.la -lm
# The transpose with one shmem_double_alltoall per sweep instead of puts.
prk_transpose_a2a_shmem_SOURCES = prk/transpose/transpose_a2a_shmem.c \
	$(PRK_TRANSPOSE) $(PRK_COMMON) prk/common/comm_shmem.c
prk_transpose_a2a_shmem_CPPFLAGS = $(PRK_CPPFLAGS)
prk_transpose_a2a_shmem_CFLAGS = $(PRK_CFLAGS)
prk_transpose_a2a_shmem_LDADD = libweft.la -lm
# The transpose with each block's alltoall cut into slices, blocking or
# nonblocking and pipelined (shmemx_double_alltoall_nb).
noinst_PROGRAMS += prk/transpose_pipe_shmem
prk_transpose_pipe_shmem_SOURCES = prk/transpose/transpose_pipe_shmem.c \
	$(PRK_TRANSPOSE_PIPE) $(PRK_COMMON) prk/common/comm_shmem.c
prk_transpose_pipe_shmem_CPPFLAGS = $(PRK_CPPFLAGS)
prk_transpose_pipe_shmem_CFLAGS = $(PRK_CFLAGS)
prk_transpose_pipe_shmem_LDADD = libweft.la -lm
prk_p2p_shmem_SOURCES = prk/p2p/p2p_shmem.c $(PRK_P2P) \
	$(PRK_COMMON) prk/common/comm_shmem.c
prk_p2p_shmem_CPPFLAGS = $(PRK_CPPFLAGS)
prk_p2p_shmem_CFLAGS = $(PRK_CFLAGS)
prk_p2p_shmem_LDADD = libweft.la -lm
# Pipelined CG, its allreduce blocking or overlapping the matvec
# (shmemx_double_sum_reduce_nb).
noinst_PROGRAMS += prk/cg_shmem
prk_cg_shmem_SOURCES = prk/cg/cg_shmem.c $(PRK_CG) \
	$(PRK_COMMON) prk/common/comm_shmem.c
prk_cg_shmem_CPPFLAGS = $(PRK_CPPFLAGS)
prk_cg_shmem_CFLAGS = $(PRK_CFLAGS)
prk_cg_shmem_LDADD = libweft.la -lm

if HAVE_MPICC
noinst_PROGRAMS += prk/stencil_mpi prk/transpose_mpi prk/p2p_mpi
prk_stencil_mpi_SOURCES = prk/stencil/stencil_mpi.c $(PRK_STENCIL) \
	$(PRK_COMMON) prk/common/comm_mpi.c
prk_stencil_mpi_CPPFLAGS = $(PRK_CPPFLAGS)
prk_stencil_mpi_CFLAGS = $(PRK_CFLAGS) $(MPI_CFLAGS)
prk_stencil_mpi_LDADD = $(MPI_LIBS) -lm
prk_transpose_mpi_SOURCES = prk/transpose/transpose_mpi.c $(PRK_TRANSPOSE) \
	$(PRK_COMMON) prk/common/comm_mpi.c
prk_transpose_mpi_CPPFLAGS = $(PRK_CPPFLAGS)
prk_transpose_mpi_CFLAGS = $(PRK_CFLAGS) $(MPI_CFLAGS)
prk_transpose_mpi_LDADD = $(MPI_LIBS) -lm
noinst_PROGRAMS += prk/transpose_pipe_mpi
prk_transpose_pipe_mpi_SOURCES = prk/transpose/transpose_pipe_mpi.c \
	$(PRK_TRANSPOSE_PIPE) $(PRK_COMMON) prk/common/comm_mpi.c
prk_transpose_pipe_mpi_CPPFLAGS = $(PRK_CPPFLAGS)
prk_transpose_pipe_mpi_CFLAGS = $(PRK_CFLAGS) $(MPI_CFLAGS)
prk_transpose_pipe_mpi_LDADD = $(MPI_LIBS) -lm
prk_p2p_mpi_SOURCES = prk/p2p/p2p_mpi.c $(PRK_P2P) \
	$(PRK_COMMON) prk/common/comm_mpi.c
prk_p2p_mpi_CPPFLAGS = $(PRK_CPPFLAGS)
prk_p2p_mpi_CFLAGS = $(PRK_CFLAGS) $(MPI_CFLAGS)
prk_p2p_mpi_LDADD = $(MPI_LIBS) -lm
noinst_PROGRAMS += prk/cg_mpi
prk_cg_mpi_SOURCES = prk/cg/cg_mpi.c $(PRK_CG) \
	$(PRK_COMMON) prk/common/comm_mpi.c
prk_cg_mpi_CPPFLAGS = $(PRK_CPPFLAGS)
prk_cg_mpi_CFLAGS = $(PRK_CFLAGS) $(MPI_CFLAGS)
prk_cg_mpi_LDADD = $(MPI_LIBS) -lm
endif

# The comparison driver (Python 3 standard library; gnuplot draws the plot).
dist_noinst_SCRIPTS += prk/compare
EXTRA_DIST += prk/README.md

# Tests of this area (tests/prk/prk.cases).
EXTRA_DIST += tests/prk/prk.cases tests/prk/run_kernel.sh tests/prk/bad_args.sh \
	tests/prk/compare_quick.sh tests/prk/compat.sh tests/prk/prk_compat.c \
	tests/prk/cg_modes.sh
# What the tests and prk/compare leave in the build tree.
CLEANFILES += tests/prk/prk_compat tests/prk-compare/results.csv \
	tests/prk-compare/results.dat tests/prk-compare/results.png \
	tests/prk-compare/runs.log prk/openmpi/stencil_mpi \
	prk/openmpi/transpose_mpi prk/openmpi/p2p_mpi prk/openmpi/cg_mpi
