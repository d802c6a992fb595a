# Tests: unit tests (no network) and functional tests (several PEs).
# Each test case is one line in a tests/*/*.cases file (see tests/run-tests).
EXTRA_DIST += tests/run-tests
