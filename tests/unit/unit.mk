# Unit tests (no network): programs link the internal library so they can
# test internal functions; shell tests check the built tools and library.
# Cases are listed in tests/unit/unit.cases.
check_PROGRAMS += tests/unit/test_size_parse tests/unit/test_env \
	tests/unit/test_registry tests/unit/test_helper_thread
tests_unit_test_size_parse_SOURCES = tests/unit/test_size_parse.c
tests_unit_test_size_parse_LDADD = libweft_internal.la
tests_unit_test_env_SOURCES = tests/unit/test_env.c
tests_unit_test_env_LDADD = libweft_internal.la
tests_unit_test_registry_SOURCES = tests/unit/test_registry.c
tests_unit_test_registry_LDADD = libweft_internal.la
tests_unit_test_helper_thread_SOURCES = tests/unit/test_helper_thread.c
tests_unit_test_helper_thread_LDADD = libweft_internal.la
EXTRA_DIST += tests/unit/unit.cases tests/unit/exported_symbols.sh \
	tests/unit/oshcc.sh tests/unit/shmem_info.sh \
	tests/unit/design_citations.sh tests/unit/doc_paths.sh \
	tests/unit/layering.sh \
	tests/unit/case_names.sh tests/unit/cu_compile.sh
