# Stream-ordered communication (src/core/stream/stream.h, docs/gpu.md).
libweft_internal_la_SOURCES += \
	src/core/stream/lane.c \
	src/core/stream/stream_rma.c \
	src/core/stream/stream_coll.c
noinst_HEADERS += src/core/stream/stream.h
