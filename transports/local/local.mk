# The local (load/store) transport: maps the segments of the PEs of this
# node (transports/local/local.h).
libweft_internal_la_SOURCES += \
	transports/local/local_map.c
noinst_HEADERS += \
	transports/local/local.h
