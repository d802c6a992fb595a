# Tools: the compiler wrappers and shmem_info (oshrun has its own oshrun.mk).
#
# tools/oshcc and tools/oshc++ are written by configure from a header per
# language (tools/oshcc.in, tools/oshc++.in) and one shared body
# (tools/wrapper-body.in). Run from the build tree they use the build tree;
# installed they use the installed prefix.
bin_SCRIPTS += tools/oshcc tools/oshc++ tools/oshcxx
# oshcxx: oshc++ under the other name that build systems use (Sandia
# OpenSHMEM and Open MPI install both), naming itself oshcxx.
CLEANFILES += tools/oshcxx
tools/oshcxx: tools/oshc++
	$(AM_V_GEN)sed 's/^weft_wrapper=oshc++$$/weft_wrapper=oshcxx/' \
	  tools/oshc++ >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@
EXTRA_DIST += tools/oshcc.in tools/oshc++.in tools/wrapper-body.in \
	tools/weft.pc.in

# shmem_info links the internal library: it prints the environment table and
# the build configuration, which the public library does not export.
bin_PROGRAMS += tools/shmem_info
tools_shmem_info_SOURCES = tools/shmem_info.c
tools_shmem_info_CPPFLAGS = $(AM_CPPFLAGS) $(OFI_CFLAGS) $(PMIX_CFLAGS) \
	$(HWLOC_CFLAGS)
tools_shmem_info_LDADD = libweft_internal.la $(OFI_LIBS)
