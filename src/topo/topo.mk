# Placement: hwloc binding, and the nearest GPU and NIC per PE.
libweft_internal_la_SOURCES += src/topo/topo.c src/topo/placement.c
noinst_HEADERS += src/topo/placement.h
