# Placement: hwloc binding, and (later) the nearest GPU and NIC per PE.
libweft_internal_la_SOURCES += src/topo/topo.c
