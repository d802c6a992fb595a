# The reduction kernels of the cuda and hip back ends (included by
# src/gpu/gpu.mk): reduce.cu, compiled by the nvcc and hipcc that configure
# found (src/gpu/kernels/configure.m4), embedded in the library as C arrays
# (scripts/embed_image.py), and the loader that launches them.
#
# The images and their C files are build outputs, written in the build
# folder (the source folder for a build in the tree) and removed by
# `make clean`; without the compiler images_empty.c stands in for them.
libweft_internal_la_SOURCES += src/gpu/gpu_kernels.c \
	src/gpu/kernels/images_empty.c
noinst_HEADERS += src/gpu/gpu_kernels.h src/gpu/kernels/images.h
nodist_libweft_internal_la_SOURCES =
EXTRA_DIST += src/gpu/kernels/reduce.cu src/gpu/kernels/configure.m4 \
	scripts/embed_image.py

weft_kernels_src = $(srcdir)/src/gpu/kernels/reduce.cu
weft_kernels_embed = $(srcdir)/scripts/embed_image.py
# No fused multiply-add: a complex product would otherwise round once where
# the host's (src/services/reduce_ops.c) rounds twice, and a reduction must
# give every PE the same bits whichever path computed it.
weft_nvcc_fp = --fmad=false
weft_hipcc_fp = -ffp-contract=off

if HAVE_NVCC
nodist_libweft_internal_la_SOURCES += src/gpu/kernels/reduce_cuda_image.c
CLEANFILES += src/gpu/kernels/reduce.fatbin \
	src/gpu/kernels/reduce_cuda_image.c
src/gpu/kernels/reduce.fatbin: $(weft_kernels_src)
	$(AM_V_GEN)$(MKDIR_P) $(@D) && \
	$(NVCC) --fatbin $(NVCC_GENCODE) $(weft_nvcc_fp) $(NVCCFLAGS) -o $@ $(weft_kernels_src)
src/gpu/kernels/reduce_cuda_image.c: src/gpu/kernels/reduce.fatbin \
		$(weft_kernels_embed)
	$(AM_V_GEN)$(PYTHON3) $(weft_kernels_embed) shmi_gpu_image_cuda \
		src/gpu/kernels/reduce.fatbin $@
endif

if HAVE_HIPCC
nodist_libweft_internal_la_SOURCES += src/gpu/kernels/reduce_hip_image.c
CLEANFILES += src/gpu/kernels/reduce.hipco \
	src/gpu/kernels/reduce_hip_image.c
src/gpu/kernels/reduce.hipco: $(weft_kernels_src)
	$(AM_V_GEN)$(MKDIR_P) $(@D) && \
	$(HIPCC) --genco $(HIPCC_ARCHS) $(weft_hipcc_fp) $(HIPCCFLAGS) -o $@ $(weft_kernels_src)
src/gpu/kernels/reduce_hip_image.c: src/gpu/kernels/reduce.hipco \
		$(weft_kernels_embed)
	$(AM_V_GEN)$(PYTHON3) $(weft_kernels_embed) shmi_gpu_image_hip \
		src/gpu/kernels/reduce.hipco $@
endif
