# The libfabric transport (docs/design.md, decision 5); map in ofi_internal.h.
libweft_internal_la_SOURCES += \
	transports/ofi/ofi_dl.c \
	transports/ofi/ofi_provider.c \
	transports/ofi/ofi_caps.c \
	transports/ofi/ofi_domain.c \
	transports/ofi/ofi_ep.c \
	transports/ofi/ofi_shm_region.c \
	transports/ofi/ofi_reach.c \
	transports/ofi/ofi_progress.c \
	transports/ofi/ofi_rma.c \
	transports/ofi/ofi_amo.c \
	transports/ofi/ofi_order.c \
	transports/ofi/ofi_msg.c \
	transports/ofi/ofi_hmem.c \
	transports/ofi/ofi_ops.c
noinst_HEADERS += transports/ofi/ofi_internal.h transports/ofi/ofi_caps.h
EXTRA_DIST += transports/ofi/configure.m4

# Tests of tests/ofi/ofi.cases: the transport driven directly (no shmem_init).
check_PROGRAMS += tests/ofi/ofi_ops_test
tests_ofi_ofi_ops_test_SOURCES = tests/ofi/ofi_ops_test.c tests/ofi/ofi_test.c \
	tests/ofi/ofi_test.h
tests_ofi_ofi_ops_test_CPPFLAGS = $(AM_CPPFLAGS) $(OFI_CFLAGS) $(PMIX_CFLAGS)
tests_ofi_ofi_ops_test_LDADD = libweft_internal.la
check_PROGRAMS += tests/ofi/ofi_amo_mixed
tests_ofi_ofi_amo_mixed_SOURCES = tests/ofi/ofi_amo_mixed.c tests/ofi/ofi_test.c \
	tests/ofi/ofi_test.h
tests_ofi_ofi_amo_mixed_CPPFLAGS = $(AM_CPPFLAGS) $(OFI_CFLAGS) $(PMIX_CFLAGS)
tests_ofi_ofi_amo_mixed_LDADD = libweft_internal.la
check_PROGRAMS += tests/ofi/ofi_reach_test
tests_ofi_ofi_reach_test_SOURCES = tests/ofi/ofi_reach_test.c
tests_ofi_ofi_reach_test_CPPFLAGS = $(AM_CPPFLAGS) $(OFI_CFLAGS) $(PMIX_CFLAGS)
tests_ofi_ofi_reach_test_LDADD = libweft_internal.la
EXTRA_DIST += tests/ofi/ofi.cases tests/ofi/reach.cases
EXTRA_DIST += tests/ofi/ofi_settings.cases
