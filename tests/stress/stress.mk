# Reliability tests: the soak program (tests/stress), two jobs side by side
# (tests/isolation) and misuse that must fail cleanly (tests/badinput).
# Cases: tests/stress/stress.cases, tests/isolation/isolation.cases,
# tests/isolation/launcher.cases, tests/badinput/badinput.cases. scripts/sanitize-check.sh reruns a subset
# under ASan/UBSan, TSan and valgrind.
check_PROGRAMS += \
	tests/stress/stress \
	tests/isolation/iso_job \
	tests/isolation/dead_pe \
	tests/badinput/bad_input \
	tests/badinput/bad_nb \
	tests/badinput/lifetime
tests_stress_stress_SOURCES = tests/stress/stress.c tests/stress/stress_rounds.c \
	tests/stress/stress.h
tests_stress_stress_LDADD = libweft.la
tests_isolation_iso_job_SOURCES = tests/isolation/iso_job.c
tests_isolation_iso_job_LDADD = libweft.la
tests_isolation_dead_pe_SOURCES = tests/isolation/dead_pe.c
tests_isolation_dead_pe_LDADD = libweft.la -lpthread
tests_badinput_bad_input_SOURCES = tests/badinput/bad_input.c
tests_badinput_bad_input_LDADD = libweft.la
tests_badinput_bad_nb_SOURCES = tests/badinput/bad_nb.c
tests_badinput_bad_nb_LDADD = libweft.la
tests_badinput_lifetime_SOURCES = tests/badinput/lifetime.c
tests_badinput_lifetime_LDADD = libweft.la
dist_check_SCRIPTS += tests/isolation/isolation.sh tests/isolation/dead_pe.sh \
	tests/isolation/early_exit.sh tests/isolation/dead_pe_setup.sh \
	tests/isolation/sched_delay.sh tests/isolation/leftovers.sh \
	tests/badinput/expect_fail.sh tests/isolation/launcher_kill.sh \
	tests/isolation/stale_regions.sh tests/badinput/lifetime.sh \
	tests/badinput/size_fit.sh
dist_noinst_SCRIPTS += scripts/sanitize-check.sh bench/check-cost.sh
EXTRA_DIST += tests/stress/stress.cases tests/isolation/isolation.cases \
	tests/isolation/launcher.cases \
	tests/badinput/badinput.cases tests/sanitize/lsan.supp \
	tests/sanitize/ubsan.supp tests/sanitize/tsan.supp \
	tests/sanitize/valgrind.supp tests/sanitize/sanitize.cases \
	docs/troubleshooting.md
