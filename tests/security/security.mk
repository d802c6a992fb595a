# Security tests (tests/security/security.cases): processes that oshrun did
# not start try to use its PMIx server (tests/security/pmix_attack.sh).
#
# pmix_intruder is a plain libpmix client (no Weft); uid0_shim is the
# LD_PRELOAD library that makes it claim uid 0 (uid1_shim: uid 1);
# sec_victim is the job.
check_PROGRAMS += tests/security/pmix_intruder tests/security/sec_victim
tests_security_pmix_intruder_SOURCES = tests/security/pmix_intruder.c
tests_security_pmix_intruder_CPPFLAGS = $(AM_CPPFLAGS) $(PMIX_CFLAGS)
tests_security_pmix_intruder_LDADD = $(PMIX_LIBS)
tests_security_sec_victim_SOURCES = tests/security/sec_victim.c
tests_security_sec_victim_LDADD = libweft.la
# A module, never installed: -rpath only makes libtool build a shared one.
check_LTLIBRARIES += tests/security/libuid0_shim.la \
	tests/security/libuid1_shim.la
tests_security_libuid0_shim_la_SOURCES = tests/security/uid0_shim.c
tests_security_libuid0_shim_la_LDFLAGS = -module -avoid-version -shared \
	-rpath $(abs_builddir)/tests/security
# The same shim claiming uid 1 (tests/security/rejected_handshake.sh).
tests_security_libuid1_shim_la_SOURCES = tests/security/uid0_shim.c
tests_security_libuid1_shim_la_CPPFLAGS = $(AM_CPPFLAGS) -DCLAIM_ID=1
tests_security_libuid1_shim_la_LDFLAGS = -module -avoid-version -shared \
	-rpath $(abs_builddir)/tests/security
dist_check_SCRIPTS += tests/security/pmix_attack.sh \
	tests/security/rejected_handshake.sh tests/security/rejected_pe.sh
EXTRA_DIST += tests/security/security.cases docs/security.md
