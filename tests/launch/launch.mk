# Start-up and launch tests (tests/launch/launch.cases).
#
# boot_hello links the bootstrap alone, so oshrun and the launchers can be
# tested without the rest of the library; shmem_hello is the same through
# the public API (shmem_init, shmem_my_pe, ...).
check_PROGRAMS += tests/launch/boot_hello tests/launch/shmem_hello \
	tests/launch/start_pes_exit
tests_launch_boot_hello_SOURCES = \
	tests/launch/boot_hello.c \
	src/services/error.c \
	src/services/shm_names.c \
	src/boot/pmix_boot.c \
	src/boot/launcher_watch.c \
	src/boot/locality.c \
	src/boot/exchange.c \
	src/boot/exchange_local.c
tests_launch_boot_hello_CPPFLAGS = $(AM_CPPFLAGS) $(PMIX_CFLAGS)
tests_launch_boot_hello_LDADD = $(PMIX_LIBS)
tests_launch_shmem_hello_SOURCES = tests/launch/shmem_hello.c
tests_launch_shmem_hello_LDADD = libweft.la
# Threads that call shmem_init_thread and shmem_finalize at once.
check_PROGRAMS += tests/launch/init_race
tests_launch_init_race_SOURCES = tests/launch/init_race.c
tests_launch_init_race_LDADD = libweft.la -lpthread
# start_pes programs that exit without shmem_finalize (start_pes.sh).
tests_launch_start_pes_exit_SOURCES = tests/launch/start_pes_exit.c
tests_launch_start_pes_exit_LDADD = libweft.la
dist_check_SCRIPTS += tests/launch/launch.sh tests/launch/slurm-single.sh \
	tests/launch/oshrun_msgs.sh tests/launch/start_pes.sh \
	tests/launch/init_race.sh tests/launch/spawn_limits.sh
EXTRA_DIST += tests/launch/launch.cases tests/launch/slurm-test.sh
