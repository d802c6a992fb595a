# ---- Symmetric memory: heap, data segment, allocator, local mappings ----
# (docs/design.md, decisions 1-3; src/core/heap/,
# transports/local/local_map.c)
libweft_internal_la_SOURCES += \
	src/core/heap/alloc.c \
	src/core/heap/shm_object.c \
	src/core/heap/shm_names.c \
	src/core/heap/heap.c \
	src/core/heap/heap_space.c \
	src/core/heap/data_seg.c \
	src/core/heap/segments.c \
	src/core/heap/memory.c \
	transports/local/local_map.c
noinst_HEADERS += \
	src/core/heap/alloc.h \
	src/core/heap/shm_object.h \
	src/core/heap/shm_names.h \
	src/core/heap/heap.h \
	src/core/heap/heap_space.h
# Tests of tests/heap/heap.cases: the allocator alone (internals), and
# programs that use the public API.
check_PROGRAMS += \
	tests/heap/alloc_unit \
	tests/heap/heap_basic \
	tests/heap/heap_static \
	tests/heap/heap_ptr \
	tests/heap/shm_unit \
	tests/heap/heap_bad \
	tests/heap/heap_stress \
	tests/heap/heap_hints \
	tests/isolation/shm_names_unit
tests_isolation_shm_names_unit_SOURCES = tests/isolation/shm_names_unit.c
tests_isolation_shm_names_unit_LDADD = libweft_internal.la
tests_heap_alloc_unit_SOURCES = tests/heap/alloc_unit.c
tests_heap_alloc_unit_LDADD = libweft_internal.la
tests_heap_heap_basic_SOURCES = tests/heap/heap_basic.c tests/heap/heap_test.h
tests_heap_heap_basic_LDADD = libweft.la
tests_heap_heap_static_SOURCES = tests/heap/heap_static.c tests/heap/heap_test.h
tests_heap_heap_static_LDADD = libweft.la
tests_heap_heap_ptr_SOURCES = tests/heap/heap_ptr.c tests/heap/heap_test.h
tests_heap_heap_ptr_LDADD = libweft.la
tests_heap_shm_unit_SOURCES = tests/heap/shm_unit.c
tests_heap_shm_unit_LDADD = libweft_internal.la
tests_heap_heap_bad_SOURCES = tests/heap/heap_bad.c
tests_heap_heap_bad_LDADD = libweft.la
tests_heap_heap_stress_SOURCES = tests/heap/heap_stress.c tests/heap/heap_test.h
tests_heap_heap_stress_LDADD = libweft.la
tests_heap_heap_hints_SOURCES = tests/heap/heap_hints.c tests/heap/heap_test.h
tests_heap_heap_hints_LDADD = libweft.la
EXTRA_DIST += tests/heap/heap.cases tests/heap/heap_object.sh \
	tests/heap/expect_fatal.sh tests/isolation/stale_names.sh
# ---- end of symmetric memory ----
# (files of this area are listed here)
# -- Data plane: RMA, atomics, signals, ordering, wait/test, contexts, paths,
#    and the load/store transport's data operations.
libweft_internal_la_SOURCES += \
	src/core/rma.c \
	src/core/amo.c \
	src/core/signal.c \
	src/core/order.c \
	src/core/wait.c \
	src/core/ctx.c \
	src/core/path.c \
	src/core/range_check.c \
	transports/local/local_ops.c
noinst_HEADERS += \
	src/core/ctx.h \
	src/core/dataplane.h \
	src/core/backoff.h \
	transports/local/local.h \
	transports/local/local_inline.h
# Tests of tests/dataplane/dataplane.cases: dp_unit links the internals
# (no job); the others are OpenSHMEM programs run under oshrun.
check_PROGRAMS += \
	tests/dataplane/dp_unit \
	tests/dataplane/dp_rma \
	tests/dataplane/dp_amo \
	tests/dataplane/dp_amo_stress \
	tests/dataplane/dp_signal \
	tests/dataplane/dp_order \
	tests/dataplane/dp_wait \
	tests/dataplane/dp_wait_fair \
	tests/dataplane/dp_threads \
	tests/dataplane/dp_ctx_invalid \
	tests/dataplane/dp_bad
tests_dataplane_dp_bad_SOURCES = tests/dataplane/dp_bad.c
tests_dataplane_dp_bad_LDADD = libweft.la
tests_dataplane_dp_unit_SOURCES = tests/dataplane/dp_unit.c
tests_dataplane_dp_unit_LDADD = libweft_internal.la
tests_dataplane_dp_rma_SOURCES = tests/dataplane/dp_rma.c tests/dataplane/dp_test.h
tests_dataplane_dp_rma_LDADD = libweft.la
tests_dataplane_dp_amo_SOURCES = tests/dataplane/dp_amo.c tests/dataplane/dp_test.h
tests_dataplane_dp_amo_LDADD = libweft.la
tests_dataplane_dp_amo_stress_SOURCES = tests/dataplane/dp_amo_stress.c tests/dataplane/dp_test.h
tests_dataplane_dp_amo_stress_LDADD = libweft.la
tests_dataplane_dp_signal_SOURCES = tests/dataplane/dp_signal.c tests/dataplane/dp_test.h
tests_dataplane_dp_signal_LDADD = libweft.la
tests_dataplane_dp_order_SOURCES = tests/dataplane/dp_order.c tests/dataplane/dp_test.h
tests_dataplane_dp_order_LDADD = libweft.la
tests_dataplane_dp_wait_SOURCES = tests/dataplane/dp_wait.c tests/dataplane/dp_test.h
tests_dataplane_dp_wait_LDADD = libweft.la
tests_dataplane_dp_wait_fair_SOURCES = tests/dataplane/dp_wait_fair.c tests/dataplane/dp_test.h
tests_dataplane_dp_wait_fair_LDADD = libweft.la
tests_dataplane_dp_threads_SOURCES = tests/dataplane/dp_threads.c tests/dataplane/dp_test.h
tests_dataplane_dp_threads_LDADD = libweft.la -lpthread
tests_dataplane_dp_ctx_invalid_SOURCES = tests/dataplane/dp_ctx_invalid.c tests/dataplane/dp_test.h
tests_dataplane_dp_ctx_invalid_LDADD = libweft.la
EXTRA_DIST += tests/dataplane/dataplane.cases
EXTRA_DIST += tests/dataplane/engine.cases tests/dataplane/dp_engine.sh
# -- end of the data plane block
