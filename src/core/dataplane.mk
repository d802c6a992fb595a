# ---- Symmetric memory: heap, data segment, allocator, local mappings ----
# (docs/design.md, decisions 1-3; src/core/heap/; the peers' segments are
# mapped by transports/local)
libweft_internal_la_SOURCES += \
	src/core/heap/alloc.c \
	src/core/heap/shm_object.c \
	src/core/heap/heap.c \
	src/core/heap/heap_space.c \
	src/core/heap/data_seg.c \
	src/core/heap/segments.c \
	src/core/sym_alloc.c \
	src/core/addr_query.c
noinst_HEADERS += \
	src/core/heap/alloc.h \
	src/core/heap/shm_object.h \
	src/core/heap/heap.h \
	src/core/heap/heap_space.h
# ---- end of symmetric memory ----
# (files of this area are listed here)
# -- Data plane: RMA, atomics, signals, ordering, wait/test, contexts, paths.
libweft_internal_la_SOURCES += \
	src/core/rma.c \
	src/core/amo.c \
	src/core/signal.c \
	src/core/order.c \
	src/core/wait.c \
	src/core/ctx.c \
	src/core/path_start.c \
	src/core/dp_check.c \
	src/core/range_check.c \
	src/core/route.c \
	src/core/engine/eng_call.c \
	src/core/engine/eng_signal.c \
	src/core/engine/eng_order.c \
	src/core/host_path.c
noinst_HEADERS += \
	src/core/ctx.h \
	src/core/dataplane.h \
	src/core/route.h \
	src/core/engine/engine.h \
	src/core/progress.h \
	src/core/host_path.h
# -- end of the data plane block
