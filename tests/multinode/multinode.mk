# Weft across simulated nodes (tests/multinode/, scripts/multinode-check.sh):
# srun over network namespaces, on-node load/store and fabric paths in one
# job. `make multinode-check` builds what it runs and runs it (root only).
check_PROGRAMS += tests/multinode/coherence tests/multinode/mn_paths
noinst_HEADERS += tests/multinode/mn_test.h
tests_multinode_coherence_SOURCES = tests/multinode/coherence.c
tests_multinode_coherence_LDADD = libweft.la
tests_multinode_mn_paths_SOURCES = tests/multinode/mn_paths.c
tests_multinode_mn_paths_LDADD = libweft.la
dist_check_SCRIPTS += tests/multinode/cluster.sh
dist_noinst_SCRIPTS += scripts/multinode-check.sh
EXTRA_DIST += tests/multinode/multinode.cases

# The programs the check runs: ours, the launch, data-plane and collectives
# tests, and a PRK kernel in its SHMEM and MPI forms.
MULTINODE_DEPS = tests/multinode/coherence$(EXEEXT) \
	tests/multinode/mn_paths$(EXEEXT) \
	tests/launch/shmem_hello$(EXEEXT) \
	tests/dataplane/dp_rma$(EXEEXT) tests/dataplane/dp_amo$(EXEEXT) \
	tests/coll/coll_data$(EXEEXT) tests/coll/coll_reduce$(EXEEXT) \
	tests/coll/coll_hang$(EXEEXT) tests/coll/coll_nb$(EXEEXT) \
	tests/coll/coll_nb_threads$(EXEEXT) \
	prk/stencil_shmem$(EXEEXT)
if HAVE_MPICC
MULTINODE_DEPS += prk/stencil_mpi$(EXEEXT)
endif

multinode-check: $(MULTINODE_DEPS) $(lib_LTLIBRARIES)
	bash $(top_srcdir)/scripts/multinode-check.sh --srcdir $(top_srcdir) \
		--builddir $(top_builddir)
.PHONY: multinode-check
