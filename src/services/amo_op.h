/*
 * The atomic operations, as one tag that the core, the transports and the
 * device back ends share (the API's atomics and signals become one of
 * these, applied to a word of a shmi_dtype_t).
 */
#ifndef SHMI_AMO_OP_H
#define SHMI_AMO_OP_H

typedef enum shmi_amo_op {
    SHMI_AMO_FETCH,     /* fetched = *dest */
    SHMI_AMO_SET,       /* *dest = operand */
    SHMI_AMO_CSWAP,     /* fetched = *dest; if (*dest == compare) *dest = operand */
    SHMI_AMO_SWAP,      /* fetched = *dest; *dest = operand */
    SHMI_AMO_FETCH_INC, /* fetched = *dest; *dest += 1 */
    SHMI_AMO_INC,       /* *dest += 1 */
    SHMI_AMO_FETCH_ADD, /* fetched = *dest; *dest += operand */
    SHMI_AMO_ADD,       /* *dest += operand */
    SHMI_AMO_FETCH_AND,
    SHMI_AMO_AND,
    SHMI_AMO_FETCH_OR,
    SHMI_AMO_OR,
    SHMI_AMO_FETCH_XOR,
    SHMI_AMO_XOR,
    SHMI_AMO_COUNT
} shmi_amo_op_t;

#endif /* SHMI_AMO_OP_H */
