# The device kernels' part of configure (included by configure.ac after the
# cuda and hip back ends): the compilers that build src/gpu/kernels/reduce.cu
# into images the library embeds (kernels.mk). Without a compiler the image
# is empty and the back end reports that it has no kernels; the build does
# not fail for it unless the compiler was named.
#
#   NVCC, NVCC_GENCODE  nvcc (--with-nvcc; default the CUDA back end's
#                       toolkit) and the architectures of the fatbin
#   HIPCC, HIPCC_ARCHS  hipcc (--with-hipcc; default the one on PATH when
#                       the HIP back end is built) and the gfx targets it
#                       can build, of those listed in weft_hip_archs below
# Both need python3 (scripts/embed_image.py turns an image into C).

# A kernel that exercises what reduce.cu needs of a compiler (templates,
# extern "C" kernels, float2), written to conftest.cu.
m4_define([WEFT_KERNEL_CONFTEST], [cat >conftest.cu <<'EOF'
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#endif
#include <stddef.h>
template <typename T> __device__ T add(T a, T b) { return a + b; }
extern "C" __global__ void conftest_k(float2 *a, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[[i]].x = add(a[[i]].x, a[[i]].y);
}
EOF])

AC_ARG_VAR([NVCCFLAGS], [extra flags for nvcc (the CUDA reduction kernels)])
AC_ARG_VAR([HIPCCFLAGS], [extra flags for hipcc (the HIP reduction kernels)])

AC_ARG_WITH([nvcc],
  [AS_HELP_STRING([--with-nvcc=PATH],
    [nvcc that builds the CUDA reduction kernels (default: CUDA-DIR/bin/nvcc when the CUDA back end is built; no: none)])],
  [], [with_nvcc=check])
NVCC=
# sm_80 (A100) and sm_90 (H100) as machine code, and compute_90 as PTX that
# the driver compiles for newer GPUs.
NVCC_GENCODE="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90"
AS_CASE([$with_nvcc],
  [no], [],
  [check|yes], [AS_IF([test $weft_have_cuda = yes], [NVCC=$weft_cuda_dir/bin/nvcc],
                  [test $with_nvcc = yes], [AC_MSG_ERROR([--with-nvcc needs the CUDA back end (--with-cuda) or a path])])],
  [NVCC=$with_nvcc])
AS_IF([test -n "$NVCC"], [
  AC_MSG_CHECKING([whether $NVCC builds the CUDA kernels])
  WEFT_KERNEL_CONFTEST
  AS_IF([test "x$PYTHON3" = xno], [weft_nvcc_why="no python3 for scripts/embed_image.py"],
    [$NVCC --fatbin $NVCC_GENCODE $NVCCFLAGS -o conftest.fatbin conftest.cu >&AS_MESSAGE_LOG_FD 2>&1],
    [weft_nvcc_why=],
    [weft_nvcc_why="$NVCC --fatbin failed (config.log)"])
  rm -f conftest.cu conftest.fatbin
  AS_IF([test -z "$weft_nvcc_why"], [
    AC_MSG_RESULT([yes])
    # The kernels' names must stay readable in the fatbin (the test
    # gpu_kernel_names looks for them): keep nvcc from compressing it.
    AS_IF([$NVCC --help 2>/dev/null | grep -q -e --no-compress],
      [NVCC_GENCODE="$NVCC_GENCODE --no-compress"])
  ], [
    AC_MSG_RESULT([no: $weft_nvcc_why])
    AS_IF([test $with_nvcc != check], [AC_MSG_ERROR([--with-nvcc=$with_nvcc: $weft_nvcc_why])])
    NVCC=
  ])
])
AC_SUBST([NVCC])
AC_SUBST([NVCC_GENCODE])
AM_CONDITIONAL([HAVE_NVCC], [test -n "$NVCC"])
AS_IF([test -n "$NVCC"], [AC_DEFINE([WEFT_HAVE_CUDA_KERNELS], [1], [CUDA reduction kernels embedded])])

AC_ARG_WITH([hipcc],
  [AS_HELP_STRING([--with-hipcc=PATH],
    [hipcc that builds the HIP reduction kernels (default: hipcc on PATH when the HIP back end is built; no: none)])],
  [], [with_hipcc=check])
HIPCC=
HIPCC_ARCHS=
# MI100 (gfx908), MI200 (gfx90a), MI300 (gfx940: early parts; gfx942:
# MI300A/X, whose GPUs do not run gfx940 code), RDNA2 (gfx1030) and RDNA3
# (gfx1100): each kept where this hipcc can build it. Debian 12's hipcc 5.2
# with clang 15 knows no gfx942 and has no device library for gfx1100.
weft_hip_archs="gfx908 gfx90a gfx940 gfx942 gfx1030 gfx1100"
AS_CASE([$with_hipcc],
  [no], [],
  [check|yes], [
    AS_IF([test $weft_have_hip = yes], [AC_PATH_PROG([HIPCC], [hipcc])],
      [test $with_hipcc = yes], [AC_MSG_ERROR([--with-hipcc needs the HIP back end (--with-hip) or a path])])
    AS_IF([test -z "$HIPCC" && test $with_hipcc = yes],
      [AC_MSG_ERROR([--with-hipcc: no hipcc on PATH (Debian: apt-get install hipcc)])])],
  [HIPCC=$with_hipcc])
AS_IF([test -n "$HIPCC"], [
  AC_MSG_CHECKING([which gfx targets $HIPCC builds])
  weft_hip_ok=
  WEFT_KERNEL_CONFTEST
  AS_IF([test "x$PYTHON3" != xno], [
    for a in $weft_hip_archs; do
      AS_IF([$HIPCC --genco --offload-arch=$a $HIPCCFLAGS -o conftest.hipco conftest.cu >&AS_MESSAGE_LOG_FD 2>&1 && test -s conftest.hipco],
        [HIPCC_ARCHS="${HIPCC_ARCHS:+$HIPCC_ARCHS }--offload-arch=$a"; weft_hip_ok="${weft_hip_ok:+$weft_hip_ok }$a"])
      rm -f conftest.hipco
    done])
  rm -f conftest.cu
  AS_IF([test -n "$HIPCC_ARCHS"], [AC_MSG_RESULT([$weft_hip_ok])], [
    AS_IF([test "x$PYTHON3" = xno], [weft_hipcc_why="no python3 for scripts/embed_image.py"],
      [weft_hipcc_why="$HIPCC --genco failed for each of $weft_hip_archs (config.log)"])
    AC_MSG_RESULT([none: $weft_hipcc_why])
    AS_IF([test $with_hipcc != check], [AC_MSG_ERROR([--with-hipcc=$with_hipcc: $weft_hipcc_why])])
    HIPCC=
  ])
])
AC_SUBST([HIPCC])
AC_SUBST([HIPCC_ARCHS])
AM_CONDITIONAL([HAVE_HIPCC], [test -n "$HIPCC"])
AS_IF([test -n "$HIPCC"], [AC_DEFINE([WEFT_HAVE_HIP_KERNELS], [1], [HIP reduction kernels embedded])])
