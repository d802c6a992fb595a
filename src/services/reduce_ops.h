/*
 * Reduction operators and their CPU kernels (reduce_ops.c): what the
 * collectives apply on the host, and what the mock device's kernels run
 * (src/gpu/gpu_mock.c). The GPU kernels of the cuda and hip back ends
 * implement the same table (src/gpu/kernels/).
 */
#ifndef SHMI_REDUCE_OPS_H
#define SHMI_REDUCE_OPS_H

#include <stddef.h>

#include "services/dtype.h"

typedef enum shmi_op {
    SHMI_OP_AND,
    SHMI_OP_OR,
    SHMI_OP_XOR,
    SHMI_OP_MIN,
    SHMI_OP_MAX,
    SHMI_OP_SUM,
    SHMI_OP_PROD,
    SHMI_OP_COUNT
} shmi_op_t;

/* acc[i] = acc[i] op in[i] for n elements of dt. */
void shmi_reduce_apply(shmi_op_t op, shmi_dtype_t dt, void *acc, const void *in,
                       size_t n);
/* 1 when op is defined on dt by the specification's reduction tables. */
int shmi_reduce_valid(shmi_op_t op, shmi_dtype_t dt);
/* Writes the identity of op for dt into n elements of out (exscan's PE 0). */
void shmi_reduce_identity(shmi_op_t op, shmi_dtype_t dt, void *out, size_t n);

#endif /* SHMI_REDUCE_OPS_H */
