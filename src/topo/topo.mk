# Placement: hwloc binding, and the nearest GPU and NIC per PE.
libweft_internal_la_SOURCES += src/topo/topo.c src/topo/placement.c
noinst_HEADERS += src/topo/placement.h

check_PROGRAMS += tests/topo/placement_test
tests_topo_placement_test_SOURCES = tests/topo/placement_test.c
tests_topo_placement_test_CPPFLAGS = $(AM_CPPFLAGS) $(HWLOC_CFLAGS)
tests_topo_placement_test_LDADD = libweft_internal.la
EXTRA_DIST += tests/topo/topo.cases tests/topo/make_topologies.py \
	tests/topo/lumi-g.xml tests/topo/dual-nvidia.xml
