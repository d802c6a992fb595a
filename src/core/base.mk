# The core's shared state and the headers every area of it reads.
libweft_internal_la_SOURCES += \
	src/core/state.c \
	src/core/watchdog.c
noinst_HEADERS += \
	src/core/core_api.h \
	src/core/state.h \
	src/core/segment.h \
	src/core/watchdog.h \
	transports/transport.h
