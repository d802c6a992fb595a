# The transport contract's registry (transports/transport.h).
libweft_internal_la_SOURCES += \
	transports/registry.c
