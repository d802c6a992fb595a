# The libfabric transport's part of configure (included by configure.ac):
# libfabric >= 1.17 through pkg-config or --with-ofi=PREFIX, into
# OFI_CFLAGS and OFI_LIBS, and the version configure reports.
WEFT_REQUIRE([ofi], [libfabric >= 1.17], [rdma/fabric.h], [fabric], [fi_getinfo], [libfabric-dev], [libfabric])
weft_ofi_version=`$PKG_CONFIG --modversion libfabric 2>/dev/null || echo "under $with_ofi"`
