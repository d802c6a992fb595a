# Tests of tests/gpu/gpu.cases: the device back ends (mock, and cuda and
# hip against a stand-in runtime), the device heap and its data path.
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
	tests/gpu/fakert/libamdhip64.la tests/gpu/fakert_old/libcudart.la
tests_gpu_fakert_libcudart_la_SOURCES = tests/gpu/fake_runtime.c
tests_gpu_fakert_libcudart_la_CPPFLAGS = -DFAKE_RT_CUDA
tests_gpu_fakert_libcudart_la_LDFLAGS = -module -avoid-version -shared \
	-rpath $(abs_builddir)
tests_gpu_fakert_libamdhip64_la_SOURCES = tests/gpu/fake_runtime.c
tests_gpu_fakert_libamdhip64_la_CPPFLAGS = -DFAKE_RT_HIP
tests_gpu_fakert_libamdhip64_la_LDFLAGS = -module -avoid-version -shared \
	-rpath $(abs_builddir)
# A runtime without the entry points of host_alloc and launch (an older one).
tests_gpu_fakert_old_libcudart_la_SOURCES = tests/gpu/fake_runtime.c
tests_gpu_fakert_old_libcudart_la_CPPFLAGS = -DFAKE_RT_CUDA -DFAKE_RT_OLD
tests_gpu_fakert_old_libcudart_la_LDFLAGS = -module -avoid-version -shared \
	-rpath $(abs_builddir)
# Atomics on device memory from every PE, checked exactly (with the
# stand-in runtime: through the device service, also without libfabric).
check_PROGRAMS += tests/gpu/device_amo
tests_gpu_device_amo_SOURCES = tests/gpu/device_amo.c tests/gpu/gpu_test.h
tests_gpu_device_amo_LDADD = libweft_internal.la
# The reduction kernels' loader: names against the embedded images, and a
# clean error without a device (src/gpu/gpu_kernels.c).
check_PROGRAMS += tests/gpu/gpu_kernel_names
tests_gpu_gpu_kernel_names_SOURCES = tests/gpu/gpu_kernel_names.c
tests_gpu_gpu_kernel_names_LDADD = libweft_internal.la
# Stream-ordered communication (src/core/stream, docs/gpu.md).
check_PROGRAMS += tests/gpu/stream_order
tests_gpu_stream_order_SOURCES = tests/gpu/stream_order.c tests/gpu/gpu_test.h
tests_gpu_stream_order_LDADD = libweft.la
check_PROGRAMS += tests/gpu/stream_reduce
tests_gpu_stream_reduce_SOURCES = tests/gpu/stream_reduce.c tests/gpu/gpu_test.h
tests_gpu_stream_reduce_LDADD = libweft_internal.la
check_PROGRAMS += tests/gpu/stream_bad
tests_gpu_stream_bad_SOURCES = tests/gpu/stream_bad.c
tests_gpu_stream_bad_LDADD = libweft.la
# shmem_finalize drains the streams (and the watchdog reports a drain that
# cannot end).
check_PROGRAMS += tests/gpu/stream_finalize
tests_gpu_stream_finalize_SOURCES = tests/gpu/stream_finalize.c tests/gpu/gpu_test.h
tests_gpu_stream_finalize_LDADD = libweft.la
# The device API on the mock (kernels as host threads): tests/gpu/kernel_ops.c.
check_PROGRAMS += tests/gpu/kernel_ops
tests_gpu_kernel_ops_SOURCES = tests/gpu/kernel_ops.c tests/gpu/kernel_bodies.h \
	tests/gpu/kernel_checks.h tests/gpu/gpu_test.h
tests_gpu_kernel_ops_LDADD = libweft.la
# Flags of its own only to name its object apart from kernel_ops.cu's.
tests_gpu_kernel_ops_CFLAGS = $(AM_CFLAGS)
# Kernels of the mock device: device code compiled as host code
# (src/gpu/gpu_mock_launch.c).
check_PROGRAMS += tests/gpu/mock_launch
tests_gpu_mock_launch_SOURCES = tests/gpu/mock_launch.c
tests_gpu_mock_launch_LDADD = libweft_internal.la
# Device heap words and kernel proxy requests a program may not reach.
check_PROGRAMS += tests/gpu/kernel_bad
tests_gpu_kernel_bad_SOURCES = tests/gpu/kernel_bad.c tests/gpu/gpu_test.h
tests_gpu_kernel_bad_LDADD = libweft.la
# The same tests as CUDA kernels, for a real GPU (the bundle runs it).
EXTRA_DIST += tests/gpu/kernel_ops.cu
if HAVE_NVCC
check_PROGRAMS += tests/gpu/kernel_ops_cuda
tests_gpu_kernel_ops_cuda_SOURCES = tests/gpu/kernel_ops.cu
tests_gpu_kernel_ops_cuda_LINK = $(weft_cuda_link)
tests_gpu_kernel_ops_cuda_LDADD = $(weft_cuda_ldadd)
tests_gpu_kernel_ops_cuda_DEPENDENCIES = libweft.la
tests/gpu/kernel_ops.$(OBJEXT): tests/gpu/kernel_ops.c tests/gpu/kernel_bodies.h \
	tests/gpu/kernel_checks.h tests/gpu/gpu_test.h $(weft_cuda_headers)
endif
