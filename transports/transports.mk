# The transport contract's registry and default stubs (transports/transport.h).
libweft_internal_la_SOURCES += \
	transports/registry.c \
	transports/transport_stubs.c
