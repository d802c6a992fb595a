# Waiting under oversubscription (PEs outnumbering cores): bench/oversub/oversub
# runs one waiting loop for a set time; bench/oversub/compare runs it over
# PE counts and the SHMEM_WAIT_SPIN / SHMEM_WAIT_SLEEP settings, and several
# jobs at once.
noinst_PROGRAMS += bench/oversub/oversub
bench_oversub_oversub_SOURCES = bench/oversub/oversub.c
bench_oversub_oversub_LDADD = libweft.la
dist_noinst_SCRIPTS += bench/oversub/compare
