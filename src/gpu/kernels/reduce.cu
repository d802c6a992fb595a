/*
 * Element-wise reduction kernels of the cuda and hip back ends:
 * acc[i] = acc[i] op in[i] for i < n, both arrays in device memory. They
 * implement on the device the CPU table of src/services/reduce_ops.c; the
 * loader (src/gpu/gpu_kernels.c) picks one by name and launches it.
 *
 * One source for nvcc and hipcc: HIP compiles CUDA's kernel syntax as is
 * and only needs its runtime header for the built-in variables.
 *
 * Kernels exist per element class, not per C type, since the bytes decide
 * the arithmetic: weft_reduce_<op>_<class> with class u8..u64 (unsigned
 * integers of that width), s8..s64 (signed), f32, f64, cf32, cf64 (float
 * and double complex as pairs). AND, OR and XOR act on bits and SUM and
 * PROD wrap in two's complement, so their u kernels serve signed types too
 * (without the undefined behaviour of signed overflow); only MIN and MAX
 * need the sign. Long double has no device type: no kernel.
 *
 * Every kernel has the signature (T *acc, const T *in, size_t n) and a
 * grid-stride loop, so any grid covers any n.
 */
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#endif
#include <stddef.h>
#include <stdint.h>

namespace {

/* The type arithmetic is done in: 8- and 16-bit operands would otherwise be
 * promoted to int, whose product can overflow (undefined), where unsigned
 * int wraps as the element type does. */
template <typename T> struct wide {
    typedef T type;
};
template <> struct wide<uint8_t> {
    typedef unsigned type;
};
template <> struct wide<uint16_t> {
    typedef unsigned type;
};

struct op_and {
    template <typename T> __device__ T operator()(T a, T b) const
    {
        return a & b;
    }
};
struct op_or {
    template <typename T> __device__ T operator()(T a, T b) const
    {
        return a | b;
    }
};
struct op_xor {
    template <typename T> __device__ T operator()(T a, T b) const
    {
        return a ^ b;
    }
};
/* MIN and MAX keep acc[i] unless in[i] is strictly beyond it, as the CPU
 * kernels do (the same element wins for equal values and NaN). */
struct op_min {
    template <typename T> __device__ T operator()(T a, T b) const
    {
        return b < a ? b : a;
    }
};
struct op_max {
    template <typename T> __device__ T operator()(T a, T b) const
    {
        return b > a ? b : a;
    }
};
struct op_sum {
    template <typename T> __device__ T operator()(T a, T b) const
    {
        typedef typename wide<T>::type W;
        return (T)((W)a + (W)b);
    }
    __device__ float2 operator()(float2 a, float2 b) const
    {
        return make_float2(a.x + b.x, a.y + b.y);
    }
    __device__ double2 operator()(double2 a, double2 b) const
    {
        return make_double2(a.x + b.x, a.y + b.y);
    }
};
/* Complex products by the textbook formula: C's _Complex multiplication
 * differs only where a part is infinite or NaN (Annex G recovery). */
struct op_prod {
    template <typename T> __device__ T operator()(T a, T b) const
    {
        typedef typename wide<T>::type W;
        return (T)((W)a * (W)b);
    }
    __device__ float2 operator()(float2 a, float2 b) const
    {
        return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
    }
    __device__ double2 operator()(double2 a, double2 b) const
    {
        return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
    }
};

template <typename T, typename Op>
__device__ void reduce(T *acc, const T *in, size_t n)
{
    Op op;
    size_t stride = (size_t)gridDim.x * blockDim.x;

    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        acc[i] = op(acc[i], in[i]);
}

} // namespace

/* The one macro: a kernel needs a C name (the loader looks it up as a
 * string), and a template cannot have one. */
#define WEFT_REDUCE_KERNEL(NAME, T, OP)                                        \
    extern "C" __global__ void NAME(T *acc, const T *in, size_t n)             \
    {                                                                          \
        reduce<T, OP>(acc, in, n);                                             \
    }

WEFT_REDUCE_KERNEL(weft_reduce_and_u8, uint8_t, op_and)
WEFT_REDUCE_KERNEL(weft_reduce_and_u16, uint16_t, op_and)
WEFT_REDUCE_KERNEL(weft_reduce_and_u32, uint32_t, op_and)
WEFT_REDUCE_KERNEL(weft_reduce_and_u64, uint64_t, op_and)
WEFT_REDUCE_KERNEL(weft_reduce_or_u8, uint8_t, op_or)
WEFT_REDUCE_KERNEL(weft_reduce_or_u16, uint16_t, op_or)
WEFT_REDUCE_KERNEL(weft_reduce_or_u32, uint32_t, op_or)
WEFT_REDUCE_KERNEL(weft_reduce_or_u64, uint64_t, op_or)
WEFT_REDUCE_KERNEL(weft_reduce_xor_u8, uint8_t, op_xor)
WEFT_REDUCE_KERNEL(weft_reduce_xor_u16, uint16_t, op_xor)
WEFT_REDUCE_KERNEL(weft_reduce_xor_u32, uint32_t, op_xor)
WEFT_REDUCE_KERNEL(weft_reduce_xor_u64, uint64_t, op_xor)

WEFT_REDUCE_KERNEL(weft_reduce_min_u8, uint8_t, op_min)
WEFT_REDUCE_KERNEL(weft_reduce_min_u16, uint16_t, op_min)
WEFT_REDUCE_KERNEL(weft_reduce_min_u32, uint32_t, op_min)
WEFT_REDUCE_KERNEL(weft_reduce_min_u64, uint64_t, op_min)
WEFT_REDUCE_KERNEL(weft_reduce_min_s8, int8_t, op_min)
WEFT_REDUCE_KERNEL(weft_reduce_min_s16, int16_t, op_min)
WEFT_REDUCE_KERNEL(weft_reduce_min_s32, int32_t, op_min)
WEFT_REDUCE_KERNEL(weft_reduce_min_s64, int64_t, op_min)
WEFT_REDUCE_KERNEL(weft_reduce_min_f32, float, op_min)
WEFT_REDUCE_KERNEL(weft_reduce_min_f64, double, op_min)
WEFT_REDUCE_KERNEL(weft_reduce_max_u8, uint8_t, op_max)
WEFT_REDUCE_KERNEL(weft_reduce_max_u16, uint16_t, op_max)
WEFT_REDUCE_KERNEL(weft_reduce_max_u32, uint32_t, op_max)
WEFT_REDUCE_KERNEL(weft_reduce_max_u64, uint64_t, op_max)
WEFT_REDUCE_KERNEL(weft_reduce_max_s8, int8_t, op_max)
WEFT_REDUCE_KERNEL(weft_reduce_max_s16, int16_t, op_max)
WEFT_REDUCE_KERNEL(weft_reduce_max_s32, int32_t, op_max)
WEFT_REDUCE_KERNEL(weft_reduce_max_s64, int64_t, op_max)
WEFT_REDUCE_KERNEL(weft_reduce_max_f32, float, op_max)
WEFT_REDUCE_KERNEL(weft_reduce_max_f64, double, op_max)

WEFT_REDUCE_KERNEL(weft_reduce_sum_u8, uint8_t, op_sum)
WEFT_REDUCE_KERNEL(weft_reduce_sum_u16, uint16_t, op_sum)
WEFT_REDUCE_KERNEL(weft_reduce_sum_u32, uint32_t, op_sum)
WEFT_REDUCE_KERNEL(weft_reduce_sum_u64, uint64_t, op_sum)
WEFT_REDUCE_KERNEL(weft_reduce_sum_f32, float, op_sum)
WEFT_REDUCE_KERNEL(weft_reduce_sum_f64, double, op_sum)
WEFT_REDUCE_KERNEL(weft_reduce_sum_cf32, float2, op_sum)
WEFT_REDUCE_KERNEL(weft_reduce_sum_cf64, double2, op_sum)
WEFT_REDUCE_KERNEL(weft_reduce_prod_u8, uint8_t, op_prod)
WEFT_REDUCE_KERNEL(weft_reduce_prod_u16, uint16_t, op_prod)
WEFT_REDUCE_KERNEL(weft_reduce_prod_u32, uint32_t, op_prod)
WEFT_REDUCE_KERNEL(weft_reduce_prod_u64, uint64_t, op_prod)
WEFT_REDUCE_KERNEL(weft_reduce_prod_f32, float, op_prod)
WEFT_REDUCE_KERNEL(weft_reduce_prod_f64, double, op_prod)
WEFT_REDUCE_KERNEL(weft_reduce_prod_cf32, float2, op_prod)
WEFT_REDUCE_KERNEL(weft_reduce_prod_cf64, double2, op_prod)
