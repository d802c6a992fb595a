# Device memory back ends. cuda and hip are built only when configure finds
# their headers, each in its own convenience library so that their include
# flags stay out of the rest of the tree; the runtimes are dlopen'ed.
libweft_internal_la_SOURCES += src/gpu/gpu.c src/gpu/gpu_mock.c \
	src/gpu/device_path.c src/core/heap/device_heap.c
noinst_HEADERS += src/gpu/gpu.h src/gpu/device_path.h \
	src/core/heap/device_heap.h
libweft_internal_la_LIBADD += -ldl

if HAVE_CUDA
noinst_LTLIBRARIES += libweft_cuda.la
libweft_cuda_la_SOURCES = src/gpu/gpu_cuda.c
libweft_cuda_la_CPPFLAGS = $(AM_CPPFLAGS) $(OFI_CFLAGS) $(CUDA_CFLAGS)
libweft_internal_la_LIBADD += libweft_cuda.la
endif

if HAVE_HIP
noinst_LTLIBRARIES += libweft_hip.la
libweft_hip_la_SOURCES = src/gpu/gpu_hip.c
libweft_hip_la_CPPFLAGS = $(AM_CPPFLAGS) $(OFI_CFLAGS) $(HIP_CFLAGS)
libweft_internal_la_LIBADD += libweft_hip.la
endif

check_PROGRAMS += tests/gpu/gpu_backend
tests_gpu_gpu_backend_SOURCES = tests/gpu/gpu_backend.c
tests_gpu_gpu_backend_LDADD = libweft_internal.la
EXTRA_DIST += tests/gpu/gpu.cases

# The device heap and its data path (tests/gpu/device_*.c; the public-API
# test needs the core hooks described in docs/gpu.md).
check_PROGRAMS += tests/gpu/device_direct
tests_gpu_device_direct_SOURCES = tests/gpu/device_direct.c tests/gpu/gpu_test.h
tests_gpu_device_direct_LDADD = libweft_internal.la
check_PROGRAMS += tests/gpu/device_smoke
tests_gpu_device_smoke_SOURCES = tests/gpu/device_smoke.c tests/gpu/gpu_test.h
tests_gpu_device_smoke_LDADD = libweft_internal.la
check_PROGRAMS += tests/gpu/device_api
tests_gpu_device_api_SOURCES = tests/gpu/device_api.c tests/gpu/gpu_test.h
tests_gpu_device_api_LDADD = libweft.la

# Device-heap put bandwidth against the host heap (docs/gpu.md).
noinst_PROGRAMS += bench/gpu/device_bw
bench_gpu_device_bw_SOURCES = bench/gpu/device_bw.c
bench_gpu_device_bw_LDADD = libweft_internal.la
check_PROGRAMS += tests/gpu/device_bad
tests_gpu_device_bad_SOURCES = tests/gpu/device_bad.c
tests_gpu_device_bad_LDADD = libweft.la
