# Placement tests (tests/topo/topo.cases) against recorded topologies.
check_PROGRAMS += tests/topo/placement_test
tests_topo_placement_test_SOURCES = tests/topo/placement_test.c
tests_topo_placement_test_CPPFLAGS = $(AM_CPPFLAGS) $(HWLOC_CFLAGS)
tests_topo_placement_test_LDADD = libweft_internal.la
EXTRA_DIST += tests/topo/topo.cases tests/topo/make_topologies.py \
	tests/topo/lumi-g.xml tests/topo/dual-nvidia.xml
