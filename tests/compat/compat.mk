# Programs written for other OpenSHMEMs (tests/compat/compat.cases): the
# <mpp/*.h> headers, the WEFT_* version macros, oshcxx, and PEs that return
# from main without shmem_finalize.
check_PROGRAMS += tests/compat/no_finalize
tests_compat_no_finalize_SOURCES = tests/compat/no_finalize.c
tests_compat_no_finalize_LDADD = libweft.la
dist_check_SCRIPTS += tests/compat/compat.sh tests/compat/finalize_at_exit.sh
EXTRA_DIST += tests/compat/compat.cases
