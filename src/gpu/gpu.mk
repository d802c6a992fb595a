# Device memory back ends. cuda and hip are built only when configure finds
# their headers, each in its own convenience library so that their include
# flags stay out of the rest of the tree; the runtimes are dlopen'ed.
libweft_internal_la_SOURCES += src/gpu/gpu.c src/gpu/gpu_mock.c \
	src/gpu/device_path.c src/gpu/device_proxy.c \
	src/core/heap/device_heap.c
noinst_HEADERS += src/gpu/gpu.h src/gpu/device_path.h src/gpu/device_proxy.h \
	src/gpu/gpu_mock.h \
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
# shmemx_malloc_device, _calloc_device, _align_device (shmemx.h).
check_PROGRAMS += tests/gpu/device_alloc
tests_gpu_device_alloc_SOURCES = tests/gpu/device_alloc.c tests/gpu/gpu_test.h
tests_gpu_device_alloc_LDADD = libweft_internal.la
check_PROGRAMS += tests/gpu/device_bad
tests_gpu_device_bad_SOURCES = tests/gpu/device_bad.c
tests_gpu_device_bad_LDADD = libweft.la
# Device memory from several threads through the device service.
check_PROGRAMS += tests/gpu/device_threads
tests_gpu_device_threads_SOURCES = tests/gpu/device_threads.c tests/gpu/gpu_test.h
tests_gpu_device_threads_LDADD = libweft.la
# The cuda and hip back ends: one runtime-API back end, gpu_runtime.c,
# driven by the tables gpu_cuda.c and gpu_hip.c (convenience libraries above).
libweft_internal_la_SOURCES += src/gpu/gpu_runtime.c
noinst_HEADERS += src/gpu/gpu_runtime.h
# wait/test and collectives on device memory (docs/gpu.md).
check_PROGRAMS += tests/gpu/device_wait tests/gpu/device_coll
tests_gpu_device_wait_SOURCES = tests/gpu/device_wait.c tests/gpu/gpu_test.h
tests_gpu_device_wait_LDADD = libweft.la
tests_gpu_device_coll_SOURCES = tests/gpu/device_coll.c tests/gpu/gpu_test.h
tests_gpu_device_coll_LDADD = libweft.la
# The runtime-API back end against a stand-in runtime library, built as
# libcudart.so and libamdhip64.so (tests/gpu/fake_runtime.c).
check_PROGRAMS += tests/gpu/gpu_rt
tests_gpu_gpu_rt_SOURCES = tests/gpu/gpu_rt.c
tests_gpu_gpu_rt_LDADD = libweft_internal.la
check_LTLIBRARIES = tests/gpu/fakert/libcudart.la \
	tests/gpu/fakert/libamdhip64.la
tests_gpu_fakert_libcudart_la_SOURCES = tests/gpu/fake_runtime.c
tests_gpu_fakert_libcudart_la_CPPFLAGS = -DFAKE_RT_CUDA
tests_gpu_fakert_libcudart_la_LDFLAGS = -module -avoid-version -shared \
	-rpath $(abs_builddir)
tests_gpu_fakert_libamdhip64_la_SOURCES = tests/gpu/fake_runtime.c
tests_gpu_fakert_libamdhip64_la_CPPFLAGS = -DFAKE_RT_HIP
tests_gpu_fakert_libamdhip64_la_LDFLAGS = -module -avoid-version -shared \
	-rpath $(abs_builddir)
# Atomics on device memory from every PE, checked exactly (with the
# stand-in runtime: through the device service, also without libfabric).
check_PROGRAMS += tests/gpu/device_amo
tests_gpu_device_amo_SOURCES = tests/gpu/device_amo.c tests/gpu/gpu_test.h
tests_gpu_device_amo_LDADD = libweft_internal.la
