# What every test program shares (tests/common/): check.h, the checks and
# the closing line, for one process; check_pes.h, the close over all PEs.
# check_selftest checks check.h itself (tests/common/common.cases).
noinst_HEADERS += tests/common/check.h tests/common/check_pes.h
check_PROGRAMS += tests/common/check_selftest
tests_common_check_selftest_SOURCES = tests/common/check_selftest.c \
	tests/common/check.h
dist_check_SCRIPTS += tests/common/check_selftest.sh
EXTRA_DIST += tests/common/common.cases
check_PROGRAMS += tests/common/check_pes_selftest
tests_common_check_pes_selftest_SOURCES = tests/common/check_pes_selftest.c \
	tests/common/check.h tests/common/check_pes.h
tests_common_check_pes_selftest_LDADD = libweft.la
