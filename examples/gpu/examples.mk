# Examples of device-initiated communication (examples/gpu/README.md): the
# halo-exchange stencil as host code for the mock (always built; the case
# gpu_kernel_halo_* runs it) and as CUDA (when configure found nvcc).
noinst_PROGRAMS += examples/gpu/halo_stencil_host
examples_gpu_halo_stencil_host_SOURCES = examples/gpu/halo_stencil_host.c
examples_gpu_halo_stencil_host_LDADD = libweft.la -lm
noinst_HEADERS += examples/gpu/halo_stencil.h
EXTRA_DIST += examples/gpu/README.md examples/gpu/halo_stencil.cu

if HAVE_NVCC
noinst_PROGRAMS += examples/gpu/halo_stencil
examples_gpu_halo_stencil_SOURCES = examples/gpu/halo_stencil.cu
examples_gpu_halo_stencil_LINK = $(weft_cuda_link)
examples_gpu_halo_stencil_LDADD = $(weft_cuda_ldadd)
examples_gpu_halo_stencil_DEPENDENCIES = libweft.la
examples/gpu/halo_stencil.$(OBJEXT): examples/gpu/halo_stencil.h \
	$(weft_cuda_headers)
endif
