# The generated OpenSHMEM C API (see scripts/gen_api.py; never edit the
# generated files by hand: change scripts/types.tsv, scripts/routines.tsv or
# the generator and run `python3 scripts/gen_api.py`).

# The wrappers pshmem_X (shmem_X weak aliases), one file per area, and the
# parts of shmem.h and pshmem.h (include/shmem/, include/pshmem/), installed
# in $(includedir)/shmem and $(includedir)/pshmem.
include $(srcdir)/src/api/gen/gen.mk

include_HEADERS += include/shmem.h include/shmemx.h include/pshmem.h

# The device API (docs/gpu.md): shmemx_device.h and its parts, installed in
# $(includedir)/shmem/device.  typed.h and routines.h are generated (see
# above); the others are written by hand.
include_HEADERS += include/shmemx_device.h
shmemdevicedir = $(includedir)/shmem/device
shmemdevice_HEADERS = \
	include/shmem/device/abi.h \
	include/shmem/device/amo.h \
	include/shmem/device/platform.h \
	include/shmem/device/proxy.h \
	include/shmem/device/rma.h \
	include/shmem/device/routines.h \
	include/shmem/device/state.h \
	include/shmem/device/sync.h \
	include/shmem/device/typed.h

EXTRA_DIST += \
	scripts/gen_api.py \
	scripts/api_model.py \
	scripts/api_model_nb.py \
	scripts/types.tsv \
	scripts/routines.tsv \
	docs/api-core.md \
	tests/gen/typed_lists.h \
	tests/api/api.cases \
	tests/api/check_generated.sh \
	tests/api/generic_all.c \
	tests/api/cxx_header.cc \
	tests/api/check_generics_covered.sh \
	tests/api/compile_checks.sh \
	tests/api/header_parts.sh \
	tests/api/install_headers.sh \
	tests/api/link_groups.c \
	tests/api/link_groups.sh \
	tests/api/wrappers.sh \
	tests/api/wrappers_stub.c

# `make gen-api` rewrites the generated API after a change to the tables or
# the generator; `make check` (tests/api) fails while the two differ.
.PHONY: gen-api
gen-api:
	cd $(top_srcdir) && python3 scripts/gen_api.py
