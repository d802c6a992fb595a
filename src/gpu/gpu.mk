# Device memory back ends. cuda and hip are built only when configure finds
# their headers, each in its own convenience library so that their include
# flags stay out of the rest of the tree; the runtimes are dlopen'ed.
libweft_internal_la_SOURCES += src/gpu/gpu_choice.c src/gpu/gpu_mock.c src/gpu/gpu_mock_stream.c \
	src/gpu/gpu_mock_launch.c src/core/heap/device_heap.c src/core/device_mem.c
noinst_HEADERS += src/gpu/gpu.h src/gpu/gpu_mock.h \
	src/core/heap/device_heap.h src/core/device_mem.h
libweft_internal_la_LIBADD += -ldl

if HAVE_CUDA
noinst_LTLIBRARIES += libweft_cuda.la
libweft_cuda_la_SOURCES = src/gpu/gpu_cuda.c
libweft_cuda_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
libweft_internal_la_LIBADD += libweft_cuda.la
endif

if HAVE_HIP
noinst_LTLIBRARIES += libweft_hip.la
libweft_hip_la_SOURCES = src/gpu/gpu_hip.c
libweft_hip_la_CPPFLAGS = $(AM_CPPFLAGS) $(HIP_CFLAGS)
libweft_internal_la_LIBADD += libweft_hip.la
endif

# Device-heap put bandwidth against the host heap (docs/gpu.md).
noinst_PROGRAMS += bench/gpu/device_bw
bench_gpu_device_bw_SOURCES = bench/gpu/device_bw.c
bench_gpu_device_bw_LDADD = libweft_internal.la
# Host-blocking against stream-ordered RMA and reductions on device buffers.
noinst_PROGRAMS += bench/gpu/stream_bench
bench_gpu_stream_bench_SOURCES = bench/gpu/stream_bench.c
bench_gpu_stream_bench_LDADD = libweft.la
# One table (and CSV, plot) of stream_bench with both reduction paths.
dist_noinst_SCRIPTS += bench/gpu/compare_gpu
# The cuda and hip back ends: one runtime-API back end, gpu_runtime.c,
# driven by the tables gpu_cuda.c and gpu_hip.c (convenience libraries above).
libweft_internal_la_SOURCES += src/gpu/gpu_runtime.c
noinst_HEADERS += src/gpu/gpu_runtime.h
include $(srcdir)/src/gpu/kernels/kernels.mk
