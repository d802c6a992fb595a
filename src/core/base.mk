# The core's shared state and the headers every area of it reads.
libweft_internal_la_SOURCES += \
	src/core/state.c
noinst_HEADERS += \
	src/core/core_api.h \
	src/core/state.h \
	src/core/segment.h \
	transports/transport.h
