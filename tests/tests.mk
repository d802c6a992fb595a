# Tests: unit tests (no network) and functional tests (several PEs).
# Each test case is one line in a tests/*/*.cases file (see tests/run-tests).
EXTRA_DIST += tests/run-tests
# Each area's test programs are listed next to them.
include $(srcdir)/tests/common/common.mk
include $(srcdir)/tests/heap/heap.mk
include $(srcdir)/tests/dataplane/dataplane.mk
include $(srcdir)/tests/coll/coll.mk
include $(srcdir)/tests/topo/topo.mk
include $(srcdir)/tests/gpu/gpu.mk
