# oshrun: the single-node launcher (a PMIx server host); it delegates to
# srun --mpi=pmix or Open MPI's mpirun beyond one node.
bin_PROGRAMS += tools/oshrun
tools_oshrun_SOURCES = \
	tools/oshrun.c \
	tools/oshrun.h \
	tools/oshrun_opts.c \
	tools/oshrun_server.c \
	tools/oshrun_peer.c \
	tools/oshrun_sock.c \
	tools/oshrun_spawn.c \
	tools/oshrun_limits.c \
	tools/oshrun_loop.c \
	tools/oshrun_output.c \
	tools/oshrun_delegate.c \
	tools/oshrun_tmp.c \
	tools/oshrun_sweep.c
tools_oshrun_CPPFLAGS = $(AM_CPPFLAGS) $(PMIX_CFLAGS) $(HWLOC_CFLAGS)
tools_oshrun_CFLAGS = $(AM_CFLAGS) -pthread
tools_oshrun_LDADD = $(PMIX_LIBS) $(HWLOC_LIBS) -lpthread

include $(srcdir)/tests/launch/launch.mk
EXTRA_DIST += bench/startup/startup.sh bench/startup/hello.c \
	bench/startup/mpi_hello.c
