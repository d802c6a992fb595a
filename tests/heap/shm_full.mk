# A /dev/shm too small for the job (tests/heap/shm_full.cases).
check_PROGRAMS += tests/heap/heap_fill
tests_heap_heap_fill_SOURCES = tests/heap/heap_fill.c
tests_heap_heap_fill_LDADD = libweft.la
dist_noinst_SCRIPTS += tests/heap/shm_full.sh
EXTRA_DIST += tests/heap/shm_full.cases
