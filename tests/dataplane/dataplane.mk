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
tests_dataplane_dp_rma_SOURCES = tests/dataplane/dp_rma.c tests/dataplane/dp_test.h tests/common/check.h tests/common/check_pes.h
tests_dataplane_dp_rma_LDADD = libweft.la
tests_dataplane_dp_amo_SOURCES = tests/dataplane/dp_amo.c tests/dataplane/dp_test.h tests/common/check.h tests/common/check_pes.h
tests_dataplane_dp_amo_LDADD = libweft.la
tests_dataplane_dp_amo_stress_SOURCES = tests/dataplane/dp_amo_stress.c tests/dataplane/dp_test.h tests/common/check.h tests/common/check_pes.h
tests_dataplane_dp_amo_stress_LDADD = libweft.la
tests_dataplane_dp_signal_SOURCES = tests/dataplane/dp_signal.c tests/dataplane/dp_test.h tests/common/check.h tests/common/check_pes.h
tests_dataplane_dp_signal_LDADD = libweft.la
tests_dataplane_dp_order_SOURCES = tests/dataplane/dp_order.c tests/dataplane/dp_test.h tests/common/check.h tests/common/check_pes.h
tests_dataplane_dp_order_LDADD = libweft.la
tests_dataplane_dp_wait_SOURCES = tests/dataplane/dp_wait.c tests/dataplane/dp_test.h tests/common/check.h tests/common/check_pes.h
tests_dataplane_dp_wait_LDADD = libweft.la
tests_dataplane_dp_wait_fair_SOURCES = tests/dataplane/dp_wait_fair.c tests/dataplane/dp_test.h tests/common/check.h tests/common/check_pes.h
tests_dataplane_dp_wait_fair_LDADD = libweft.la
tests_dataplane_dp_threads_SOURCES = tests/dataplane/dp_threads.c tests/dataplane/dp_test.h tests/common/check.h tests/common/check_pes.h
tests_dataplane_dp_threads_LDADD = libweft.la -lpthread
tests_dataplane_dp_ctx_invalid_SOURCES = tests/dataplane/dp_ctx_invalid.c tests/dataplane/dp_test.h tests/common/check.h tests/common/check_pes.h
tests_dataplane_dp_ctx_invalid_LDADD = libweft.la
EXTRA_DIST += tests/dataplane/dataplane.cases
EXTRA_DIST += tests/dataplane/engine.cases tests/dataplane/dp_engine.sh
