/*
 * Datatype tags shared by the typed API layer and the core.
 *
 * The generated typed wrappers (src/api/gen/) hold no logic: they turn
 * elements into bytes and pass one of these tags so that the hand-written
 * core (atomics, wait/test, reductions) knows how to interpret the bytes.
 */
#ifndef SHMI_DTYPE_H
#define SHMI_DTYPE_H

#include <stddef.h>

/* One tag per C type that appears in an OpenSHMEM type table. */
typedef enum shmi_dtype {
    SHMI_DT_FLOAT,
    SHMI_DT_DOUBLE,
    SHMI_DT_LONGDOUBLE,
    SHMI_DT_CHAR,
    SHMI_DT_SCHAR,
    SHMI_DT_SHORT,
    SHMI_DT_INT,
    SHMI_DT_LONG,
    SHMI_DT_LONGLONG,
    SHMI_DT_UCHAR,
    SHMI_DT_USHORT,
    SHMI_DT_UINT,
    SHMI_DT_ULONG,
    SHMI_DT_ULONGLONG,
    SHMI_DT_INT8,
    SHMI_DT_INT16,
    SHMI_DT_INT32,
    SHMI_DT_INT64,
    SHMI_DT_UINT8,
    SHMI_DT_UINT16,
    SHMI_DT_UINT32,
    SHMI_DT_UINT64,
    SHMI_DT_SIZE,
    SHMI_DT_PTRDIFF,
    SHMI_DT_COMPLEXF, /* float _Complex */
    SHMI_DT_COMPLEXD, /* double _Complex */
    SHMI_DT_COUNT
} shmi_dtype_t;

/* How the bytes of a tag are to be read. */
typedef enum shmi_dkind {
    SHMI_DK_SIGNED,   /* two's complement integer */
    SHMI_DK_UNSIGNED, /* unsigned integer */
    SHMI_DK_FLOAT,    /* IEEE float, double or x87 long double */
    SHMI_DK_COMPLEX   /* pair of float or double */
} shmi_dkind_t;

typedef struct shmi_dtype_info {
    const char *name;  /* TYPENAME as the specification spells it */
    size_t size;       /* sizeof the C type, in bytes */
    shmi_dkind_t kind; /* interpretation of the bytes */
} shmi_dtype_info_t;

/* Indexed by shmi_dtype_t; defined in dtype.c. */
extern const shmi_dtype_info_t shmi_dtype_table[SHMI_DT_COUNT];

static inline size_t shmi_dtype_size(shmi_dtype_t dt)
{
    return shmi_dtype_table[dt].size;
}

static inline shmi_dkind_t shmi_dtype_kind(shmi_dtype_t dt)
{
    return shmi_dtype_table[dt].kind;
}

/* The index of a width among 1, 2, 4 and 8 bytes (0..3), or -1 for another
 * width: the row of a table with one entry per integer width (reduction
 * kernels, device kernels, a transport's atomics). */
static inline int shmi_width_index(size_t size)
{
    switch (size) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    default: return -1;
    }
}

#endif /* SHMI_DTYPE_H */
