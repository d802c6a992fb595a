# Tests of tests/coll/coll.cases (several PEs through oshrun).
check_PROGRAMS += \
	tests/coll/coll_barrier \
	tests/coll/coll_teams \
	tests/coll/coll_data \
	tests/coll/coll_reduce \
	tests/coll/coll_lock \
	tests/coll/coll_hang \
	tests/coll/coll_stuck \
	tests/coll/coll_reduce_large \
	tests/coll/coll_reduce_rounds \
	tests/coll/coll_nb \
	tests/coll/coll_nb_threads
tests_coll_coll_barrier_SOURCES = tests/coll/coll_barrier.c tests/common/check.h tests/common/check_pes.h
tests_coll_coll_barrier_LDADD = libweft.la
tests_coll_coll_teams_SOURCES = tests/coll/coll_teams.c tests/common/check.h tests/common/check_pes.h
tests_coll_coll_teams_LDADD = libweft.la
tests_coll_coll_data_SOURCES = tests/coll/coll_data.c tests/common/check.h tests/common/check_pes.h
tests_coll_coll_data_LDADD = libweft.la
tests_coll_coll_reduce_SOURCES = tests/coll/coll_reduce.c tests/common/check.h tests/common/check_pes.h
tests_coll_coll_reduce_LDADD = libweft.la
tests_coll_coll_lock_SOURCES = tests/coll/coll_lock.c tests/common/check.h tests/common/check_pes.h
tests_coll_coll_lock_LDADD = libweft.la
tests_coll_coll_hang_SOURCES = tests/coll/coll_hang.c
tests_coll_coll_hang_LDADD = libweft.la
tests_coll_coll_stuck_SOURCES = tests/coll/coll_stuck.c
tests_coll_coll_stuck_LDADD = libweft.la
tests_coll_coll_reduce_large_SOURCES = tests/coll/coll_reduce_large.c tests/common/check.h tests/common/check_pes.h
tests_coll_coll_reduce_large_LDADD = libweft.la
tests_coll_coll_reduce_rounds_SOURCES = tests/coll/coll_reduce_rounds.c tests/common/check.h tests/common/check_pes.h
tests_coll_coll_reduce_rounds_LDADD = libweft.la -lpthread
tests_coll_coll_nb_SOURCES = tests/coll/coll_nb.c tests/common/check.h tests/common/check_pes.h
tests_coll_coll_nb_LDADD = libweft.la
tests_coll_coll_nb_threads_SOURCES = tests/coll/coll_nb_threads.c tests/common/check.h tests/common/check_pes.h
tests_coll_coll_nb_threads_LDADD = libweft.la -lpthread
EXTRA_DIST += tests/coll/coll.cases tests/coll/hang.cases tests/coll/small_segments.sh \
	tests/coll/watchdog.cases tests/coll/watchdog.sh
