# Blind accesses by an outsider to a job's registered memory
# (tests/security/fabric_keys.cases; docs/security.md, "Fabric keys and what each provider authenticates").
check_PROGRAMS += tests/security/fabric_victim tests/security/fabric_attack
tests_security_fabric_victim_SOURCES = tests/security/fabric_victim.c
tests_security_fabric_victim_LDADD = libweft.la
# The attacker is a plain libfabric program: it links libfabric itself.
tests_security_fabric_attack_SOURCES = tests/security/fabric_attack.c
tests_security_fabric_attack_CPPFLAGS = $(AM_CPPFLAGS) $(OFI_CFLAGS)
tests_security_fabric_attack_LDADD = $(OFI_LIBS)
dist_noinst_SCRIPTS += tests/security/fabric_keys.sh
EXTRA_DIST += tests/security/fabric_keys.cases
