# Core services: datatypes, errors and logging, the environment table.
libweft_internal_la_SOURCES += \
	src/core/dtype.c \
	src/core/error.c \
	src/core/state.c \
	src/core/env.c \
	src/core/size_parse.c
noinst_HEADERS += \
	src/core/dtype.h \
	src/core/error.h \
	src/core/env.h \
	src/core/env_table.h \
	src/core/core_api.h \
	src/core/state.h \
	src/core/segment.h \
	src/core/pid_gone.h \
	src/core/shm_region_name.h \
	transports/transport.h
