# Services: the bottom layer that the core, the transports and the GPU back
# ends all use (docs/architecture.md, "The layers"): errors and logging, the
# environment table, datatypes, back-off, CPU copy and atomic helpers, the
# names of the heap's shared-memory objects (used by the heap and by boot's
# abort path).
# Nothing here includes a header of src/core, src/gpu or transports/.
libweft_internal_la_SOURCES += \
	src/services/dtype.c \
	src/services/error.c \
	src/services/env.c \
	src/services/size_parse.c \
	src/services/backoff.c \
	src/services/helper_thread.c \
	src/services/host_probe.c \
	src/services/shm_names.c \
	src/services/reduce_ops.c
noinst_HEADERS += \
	src/services/dtype.h \
	src/services/error.h \
	src/services/env.h \
	src/services/env_table.h \
	src/services/backoff.h \
	src/services/helper_thread.h \
	src/services/host_probe.h \
	src/services/amo_op.h \
	src/services/cpu_ops.h \
	src/services/mem_kind.h \
	src/services/gpu_ops.h \
	src/services/reduce_ops.h \
	src/services/pid_gone.h \
	src/services/shm_names.h \
	src/services/shm_region_name.h
