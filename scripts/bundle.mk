# `make gpu-bundle`: one folder that runs Weft's GPU tests and benchmarks on
# a machine where nothing can be installed (scripts/gpu-bundle.sh):
# libweft, oshrun, shmem_info, the programs of tests/gpu, bench/gpu and
# examples/gpu, the libraries they load (glibc too) and the scripts of
# scripts/bundle.
# BUNDLE_DIR=DIR writes it elsewhere.
BUNDLE_DIR = $(builddir)/weft-gpu-bundle
# Taken from the lists the fragments keep, so a program added to tests/gpu,
# bench/gpu or examples/gpu is built and bundled without a change here.
gpu_bundle_programs = $(filter tests/gpu/% bench/gpu/% examples/gpu/%, \
	$(check_PROGRAMS) $(noinst_PROGRAMS))
EXTRA_DIST += scripts/gpu-bundle.sh scripts/bundle/weft-env.sh \
	scripts/bundle/weft scripts/bundle/run-gpu-tests.sh \
	tests/unit/gpu_bundle.sh

gpu-bundle: $(lib_LTLIBRARIES) $(bin_PROGRAMS) $(gpu_bundle_programs)
	bash $(srcdir)/scripts/gpu-bundle.sh --srcdir $(srcdir) \
	    --builddir $(builddir) --out $(BUNDLE_DIR) $(gpu_bundle_programs)
.PHONY: gpu-bundle

# The list above, for tests/unit/gpu_bundle.sh (a scan of the build folders
# would also find the scripts of the source tree in an in-tree build).
gpu-bundle-programs:
	@echo $(gpu_bundle_programs)
.PHONY: gpu-bundle-programs

# Only the default folder: a BUNDLE_DIR given on the command line may be
# anywhere.
clean-local: clean-gpu-bundle
clean-gpu-bundle:
	-rm -rf $(builddir)/weft-gpu-bundle
.PHONY: clean-gpu-bundle
