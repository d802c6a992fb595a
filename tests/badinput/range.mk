# Address bounds and destroyed handles (tests/badinput/range.cases): the
# range check covers exactly the program's symmetric memory, an nelems
# whose byte count overflows is refused, and a destroyed context or team is
# an error naming the routine.
check_PROGRAMS += tests/badinput/bad_range
tests_badinput_bad_range_SOURCES = tests/badinput/bad_range.c
tests_badinput_bad_range_LDADD = libweft.la
EXTRA_DIST += tests/badinput/range.cases
