# How a program of the tree written in CUDA (a .cu source: bench/gpu,
# examples/gpu) is built when configure found nvcc
# (src/gpu/kernels/configure.m4): compiled by nvcc for the architectures
# of NVCC_GENCODE, warnings as errors where the rest of the tree has them,
# and linked by nvcc against the libweft of the build folder with the
# shared CUDA runtime (-cudart shared), so that the program's kernels and
# libweft's launch (which opens libcudart.so by name) meet in one runtime.
# A program lists its .cu in _SOURCES and sets
#     X_LINK = $(weft_cuda_link)   X_LDADD = $(weft_cuda_ldadd)
#     X_DEPENDENCIES = libweft.la
# The RUNPATH names the build folder's .libs, searched after
# LD_LIBRARY_PATH and the bundle's --library-path (scripts/gpu-bundle.sh).
SUFFIXES = .cu
weft_cuda_werror = $(if $(findstring -Werror,$(WEFT_CFLAGS)),-Werror all-warnings)
weft_cuda_flags = $(NVCC_GENCODE) $(weft_cuda_werror) \
	$(addprefix -Xcompiler ,$(WEFT_CFLAGS)) $(NVCCFLAGS)
weft_cuda_link = $(NVCC) $(weft_cuda_flags) -cudart shared \
	-Xlinker --enable-new-dtags -Xlinker -rpath=$(abs_top_builddir)/.libs -o $@
weft_cuda_ldadd = -L$(top_builddir)/.libs -lweft
# Every header a .cu may include of the device API (nvcc writes no
# dependency files here).
weft_cuda_headers = $(top_srcdir)/include/shmemx_device.h \
	$(wildcard $(top_srcdir)/include/shmem/device/*.h)

.cu.$(OBJEXT):
	$(AM_V_GEN)$(NVCC) -c $(weft_cuda_flags) $(DEFS) $(DEFAULT_INCLUDES) \
	    $(AM_CPPFLAGS) $(CPPFLAGS) -o $@ $<
