/*
 * Reduction kernels: acc[i] = acc[i] op in[i] over every datatype tag.
 *
 * Integers are dispatched by width and signedness rather than by C type:
 * bitwise operators act on bytes, sums and products are computed in unsigned
 * arithmetic of the same width (two's complement gives the same bits without
 * the undefined behaviour of signed overflow), and only min/max need the
 * sign. One kernel per (C type, operator) is written out below by
 * SHMI_KERNEL, a function template in plain C.
 */
#include "config.h"

#include <complex.h>
#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "services/reduce_ops.h"

#define SHMI_KERNEL(NAME, T, EXPR)                                             \
    static void NAME(void *accv, const void *inv, size_t n)                    \
    {                                                                          \
        T *a = accv;                                                           \
        const T *b = inv;                                                      \
        for (size_t i = 0; i < n; i++)                                         \
            a[i] = (EXPR);                                                     \
    }

/* ONE is 1u for the integer kernels: short operands would otherwise be
 * promoted to (signed) int, whose product can overflow. */
#define SHMI_MINMAX_SUMPROD(SUF, T, ONE)                                       \
    SHMI_KERNEL(shmi_min_##SUF, T, b[i] < a[i] ? b[i] : a[i])                  \
    SHMI_KERNEL(shmi_max_##SUF, T, b[i] > a[i] ? b[i] : a[i])                  \
    SHMI_KERNEL(shmi_sum_##SUF, T, (T)(ONE * a[i] + b[i]))                     \
    SHMI_KERNEL(shmi_prod_##SUF, T, (T)(ONE * a[i] * b[i]))

SHMI_MINMAX_SUMPROD(u8, uint8_t, 1u)
SHMI_MINMAX_SUMPROD(u16, uint16_t, 1u)
SHMI_MINMAX_SUMPROD(u32, uint32_t, 1u)
SHMI_MINMAX_SUMPROD(u64, uint64_t, 1u)
SHMI_MINMAX_SUMPROD(f, float, 1)
SHMI_MINMAX_SUMPROD(d, double, 1)
SHMI_MINMAX_SUMPROD(ld, long double, 1)
SHMI_KERNEL(shmi_min_s8, int8_t, b[i] < a[i] ? b[i] : a[i])
SHMI_KERNEL(shmi_max_s8, int8_t, b[i] > a[i] ? b[i] : a[i])
SHMI_KERNEL(shmi_min_s16, int16_t, b[i] < a[i] ? b[i] : a[i])
SHMI_KERNEL(shmi_max_s16, int16_t, b[i] > a[i] ? b[i] : a[i])
SHMI_KERNEL(shmi_min_s32, int32_t, b[i] < a[i] ? b[i] : a[i])
SHMI_KERNEL(shmi_max_s32, int32_t, b[i] > a[i] ? b[i] : a[i])
SHMI_KERNEL(shmi_min_s64, int64_t, b[i] < a[i] ? b[i] : a[i])
SHMI_KERNEL(shmi_max_s64, int64_t, b[i] > a[i] ? b[i] : a[i])
SHMI_KERNEL(shmi_sum_cf, float _Complex, a[i] + b[i])
SHMI_KERNEL(shmi_prod_cf, float _Complex, a[i] * b[i])
SHMI_KERNEL(shmi_sum_cd, double _Complex, a[i] + b[i])
SHMI_KERNEL(shmi_prod_cd, double _Complex, a[i] * b[i])
SHMI_KERNEL(shmi_and_u8, uint8_t, a[i] & b[i])
SHMI_KERNEL(shmi_or_u8, uint8_t, a[i] | b[i])
SHMI_KERNEL(shmi_xor_u8, uint8_t, a[i] ^ b[i])

typedef void (*shmi_kernel_t)(void *acc, const void *in, size_t n);

/* Kernels of one C type, indexed by shmi_op_t (NULL: not defined). */
typedef struct shmi_kernels {
    shmi_kernel_t k[SHMI_OP_COUNT];
} shmi_kernels_t;

#define SHMI_ARITH(SUF, MIN, MAX)                                              \
    {                                                                          \
        {                                                                      \
            NULL, NULL, NULL, MIN, MAX, shmi_sum_##SUF, shmi_prod_##SUF        \
        }                                                                      \
    }

static const shmi_kernels_t shmi_k_u[4] = {
    SHMI_ARITH(u8, shmi_min_u8, shmi_max_u8),
    SHMI_ARITH(u16, shmi_min_u16, shmi_max_u16),
    SHMI_ARITH(u32, shmi_min_u32, shmi_max_u32),
    SHMI_ARITH(u64, shmi_min_u64, shmi_max_u64),
};
static const shmi_kernels_t shmi_k_s[4] = {
    SHMI_ARITH(u8, shmi_min_s8, shmi_max_s8),
    SHMI_ARITH(u16, shmi_min_s16, shmi_max_s16),
    SHMI_ARITH(u32, shmi_min_s32, shmi_max_s32),
    SHMI_ARITH(u64, shmi_min_s64, shmi_max_s64),
};
static const shmi_kernels_t shmi_k_f = SHMI_ARITH(f, shmi_min_f, shmi_max_f);
static const shmi_kernels_t shmi_k_d = SHMI_ARITH(d, shmi_min_d, shmi_max_d);
static const shmi_kernels_t shmi_k_ld =
    SHMI_ARITH(ld, shmi_min_ld, shmi_max_ld);
static const shmi_kernels_t shmi_k_cf = SHMI_ARITH(cf, NULL, NULL);
static const shmi_kernels_t shmi_k_cd = SHMI_ARITH(cd, NULL, NULL);

static const shmi_kernels_t *shmi_kernels_of(shmi_dtype_t dt)
{
    switch (dt) {
    case SHMI_DT_FLOAT: return &shmi_k_f;
    case SHMI_DT_DOUBLE: return &shmi_k_d;
    case SHMI_DT_LONGDOUBLE: return &shmi_k_ld;
    case SHMI_DT_COMPLEXF: return &shmi_k_cf;
    case SHMI_DT_COMPLEXD: return &shmi_k_cd;
    default: break;
    }
    if (shmi_dtype_kind(dt) == SHMI_DK_SIGNED)
        return &shmi_k_s[shmi_width_index(shmi_dtype_size(dt))];
    return &shmi_k_u[shmi_width_index(shmi_dtype_size(dt))];
}

static int shmi_is_bitwise(shmi_op_t op)
{
    return op == SHMI_OP_AND || op == SHMI_OP_OR || op == SHMI_OP_XOR;
}

int shmi_reduce_valid(shmi_op_t op, shmi_dtype_t dt)
{
    shmi_dkind_t kind;

    if ((unsigned)op >= SHMI_OP_COUNT || (unsigned)dt >= SHMI_DT_COUNT)
        return 0;
    kind = shmi_dtype_kind(dt);
    if (shmi_is_bitwise(op))
        return kind == SHMI_DK_SIGNED || kind == SHMI_DK_UNSIGNED;
    return shmi_kernels_of(dt)->k[op] != NULL;
}

void shmi_reduce_apply(shmi_op_t op, shmi_dtype_t dt, void *acc, const void *in,
                       size_t n)
{
    size_t bytes = n * shmi_dtype_size(dt);

    switch (op) {
    case SHMI_OP_AND: shmi_and_u8(acc, in, bytes); return;
    case SHMI_OP_OR: shmi_or_u8(acc, in, bytes); return;
    case SHMI_OP_XOR: shmi_xor_u8(acc, in, bytes); return;
    default: shmi_kernels_of(dt)->k[op](acc, in, n); return;
    }
}

/* Identity element of min/max for one element of dt: the extreme value. */
static void shmi_minmax_identity(shmi_op_t op, shmi_dtype_t dt, void *out)
{
    size_t sz = shmi_dtype_size(dt);
    int is_min = op == SHMI_OP_MIN;

    if (dt == SHMI_DT_FLOAT) {
        float v = is_min ? FLT_MAX : -FLT_MAX;
        memcpy(out, &v, sz);
    } else if (dt == SHMI_DT_DOUBLE) {
        double v = is_min ? DBL_MAX : -DBL_MAX;
        memcpy(out, &v, sz);
    } else if (dt == SHMI_DT_LONGDOUBLE) {
        long double v = is_min ? LDBL_MAX : -LDBL_MAX;
        memcpy(out, &v, sz);
    } else if (shmi_dtype_kind(dt) == SHMI_DK_UNSIGNED) {
        memset(out, is_min ? 0xff : 0, sz);
    } else {
        /* Signed: all ones but the sign bit (max) or only the sign bit
         * (min), little-endian. */
        uint64_t v = is_min ? (UINT64_MAX >> (65 - 8 * sz))
                            : ((uint64_t)1 << (8 * sz - 1));
        memcpy(out, &v, sz);
    }
}

void shmi_reduce_identity(shmi_op_t op, shmi_dtype_t dt, void *out, size_t n)
{
    size_t sz = shmi_dtype_size(dt);
    unsigned char *o = out;

    for (size_t i = 0; i < n; i++, o += sz) {
        memset(o, 0, sz);
        switch (op) {
        case SHMI_OP_AND: memset(o, 0xff, sz); break;
        case SHMI_OP_MIN:
        case SHMI_OP_MAX: shmi_minmax_identity(op, dt, o); break;
        case SHMI_OP_PROD:
            if (dt == SHMI_DT_FLOAT || dt == SHMI_DT_COMPLEXF) {
                float one = 1.0f;
                memcpy(o, &one, sizeof(one));
            } else if (dt == SHMI_DT_DOUBLE || dt == SHMI_DT_COMPLEXD) {
                double one = 1.0;
                memcpy(o, &one, sizeof(one));
            } else if (dt == SHMI_DT_LONGDOUBLE) {
                long double one = 1.0L;
                memcpy(o, &one, sizeof(one));
            } else {
                o[0] = 1; /* little-endian integer 1 */
            }
            break;
        default: break; /* OR, XOR, SUM: zero */
        }
    }
}
