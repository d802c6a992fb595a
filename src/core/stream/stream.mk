# Stream-ordered communication (src/core/stream/stream.h, docs/gpu.md).
libweft_internal_la_SOURCES += \
	src/core/stream/lane.c \
	src/core/stream/stream_rma.c \
	src/core/stream/stream_coll.c \
	src/core/stream/stream_check.c \
	src/core/stream/drain.c
noinst_HEADERS += src/core/stream/stream.h
