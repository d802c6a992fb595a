# Placement: hwloc binding, and the nearest GPU and NIC per PE.
libweft_internal_la_SOURCES += src/topo/topo.c src/topo/placement.c \
	src/topo/cpu_share.c
noinst_HEADERS += src/topo/placement.h src/topo/cpu_share.h src/topo/topo.h
