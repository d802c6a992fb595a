# Tests of the symmetric memory (src/core/heap/): tests/heap/heap.cases runs
# the allocator alone (internals) and programs that use the public API;
# tests/isolation/isolation.cases runs shm_names_unit (the names of the
# shared-memory objects).
check_PROGRAMS += \
	tests/heap/alloc_unit \
	tests/heap/heap_basic \
	tests/heap/heap_static \
	tests/heap/heap_ptr \
	tests/heap/heap_map_use \
	tests/heap/shm_unit \
	tests/heap/heap_bad \
	tests/heap/heap_stress \
	tests/heap/heap_hints \
	tests/isolation/shm_names_unit
tests_isolation_shm_names_unit_SOURCES = tests/isolation/shm_names_unit.c
tests_isolation_shm_names_unit_LDADD = libweft_internal.la
tests_heap_alloc_unit_SOURCES = tests/heap/alloc_unit.c
tests_heap_alloc_unit_LDADD = libweft_internal.la
tests_heap_heap_basic_SOURCES = tests/heap/heap_basic.c tests/common/check.h tests/common/check_pes.h
tests_heap_heap_basic_LDADD = libweft.la
tests_heap_heap_static_SOURCES = tests/heap/heap_static.c tests/common/check.h tests/common/check_pes.h
tests_heap_heap_static_LDADD = libweft.la
tests_heap_heap_ptr_SOURCES = tests/heap/heap_ptr.c tests/common/check.h tests/common/check_pes.h
tests_heap_heap_ptr_LDADD = libweft.la
tests_heap_shm_unit_SOURCES = tests/heap/shm_unit.c
tests_heap_shm_unit_LDADD = libweft_internal.la
tests_heap_heap_bad_SOURCES = tests/heap/heap_bad.c
tests_heap_heap_bad_LDADD = libweft.la
tests_heap_heap_stress_SOURCES = tests/heap/heap_stress.c tests/common/check.h tests/common/check_pes.h
tests_heap_heap_stress_LDADD = libweft.la
tests_heap_heap_hints_SOURCES = tests/heap/heap_hints.c tests/common/check.h tests/common/check_pes.h
tests_heap_heap_hints_LDADD = libweft.la
EXTRA_DIST += tests/heap/heap.cases tests/heap/heap_object.sh \
	tests/heap/expect_fatal.sh tests/isolation/stale_names.sh
tests_heap_heap_map_use_SOURCES = tests/heap/heap_map_use.c tests/common/check.h tests/common/check_pes.h
tests_heap_heap_map_use_LDADD = libweft.la
tests_heap_heap_map_use_LDFLAGS = -pthread
