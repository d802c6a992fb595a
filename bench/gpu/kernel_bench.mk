# Device-initiated put, PE 0 to PE 1 (bench/gpu/kernel_bench*, docs/gpu.md):
# kernel_bench_body.h's kernels as host code for the mock (always built)
# and as CUDA (kernel_bench_cuda, when configure found nvcc).
noinst_PROGRAMS += bench/gpu/kernel_bench
bench_gpu_kernel_bench_SOURCES = bench/gpu/kernel_bench.c
# Flags of its own only to name its object apart from kernel_bench.cu's.
bench_gpu_kernel_bench_CFLAGS = $(AM_CFLAGS)
bench_gpu_kernel_bench_LDADD = libweft.la
noinst_HEADERS += bench/gpu/kernel_bench_body.h bench/gpu/kernel_bench_host.h
EXTRA_DIST += bench/gpu/kernel_bench.cu

if HAVE_NVCC
noinst_PROGRAMS += bench/gpu/kernel_bench_cuda
bench_gpu_kernel_bench_cuda_SOURCES = bench/gpu/kernel_bench.cu
bench_gpu_kernel_bench_cuda_LINK = $(weft_cuda_link)
bench_gpu_kernel_bench_cuda_LDADD = $(weft_cuda_ldadd)
bench_gpu_kernel_bench_cuda_DEPENDENCIES = libweft.la
bench/gpu/kernel_bench.$(OBJEXT): bench/gpu/kernel_bench_body.h \
	bench/gpu/kernel_bench_host.h $(weft_cuda_headers)
endif
