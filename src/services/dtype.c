/* The datatype table: size and interpretation of every tag (see dtype.h). */
#include "services/dtype.h"

#include <complex.h>
#include <stdint.h>

const shmi_dtype_info_t shmi_dtype_table[SHMI_DT_COUNT] = {
    [SHMI_DT_FLOAT] = {"float", sizeof(float), SHMI_DK_FLOAT},
    [SHMI_DT_DOUBLE] = {"double", sizeof(double), SHMI_DK_FLOAT},
    [SHMI_DT_LONGDOUBLE] = {"longdouble", sizeof(long double), SHMI_DK_FLOAT},
    [SHMI_DT_CHAR] = {"char", sizeof(char),
                      ((char)-1 < 0) ? SHMI_DK_SIGNED : SHMI_DK_UNSIGNED},
    [SHMI_DT_SCHAR] = {"schar", sizeof(signed char), SHMI_DK_SIGNED},
    [SHMI_DT_SHORT] = {"short", sizeof(short), SHMI_DK_SIGNED},
    [SHMI_DT_INT] = {"int", sizeof(int), SHMI_DK_SIGNED},
    [SHMI_DT_LONG] = {"long", sizeof(long), SHMI_DK_SIGNED},
    [SHMI_DT_LONGLONG] = {"longlong", sizeof(long long), SHMI_DK_SIGNED},
    [SHMI_DT_UCHAR] = {"uchar", sizeof(unsigned char), SHMI_DK_UNSIGNED},
    [SHMI_DT_USHORT] = {"ushort", sizeof(unsigned short), SHMI_DK_UNSIGNED},
    [SHMI_DT_UINT] = {"uint", sizeof(unsigned int), SHMI_DK_UNSIGNED},
    [SHMI_DT_ULONG] = {"ulong", sizeof(unsigned long), SHMI_DK_UNSIGNED},
    [SHMI_DT_ULONGLONG] = {"ulonglong", sizeof(unsigned long long),
                           SHMI_DK_UNSIGNED},
    [SHMI_DT_INT8] = {"int8", sizeof(int8_t), SHMI_DK_SIGNED},
    [SHMI_DT_INT16] = {"int16", sizeof(int16_t), SHMI_DK_SIGNED},
    [SHMI_DT_INT32] = {"int32", sizeof(int32_t), SHMI_DK_SIGNED},
    [SHMI_DT_INT64] = {"int64", sizeof(int64_t), SHMI_DK_SIGNED},
    [SHMI_DT_UINT8] = {"uint8", sizeof(uint8_t), SHMI_DK_UNSIGNED},
    [SHMI_DT_UINT16] = {"uint16", sizeof(uint16_t), SHMI_DK_UNSIGNED},
    [SHMI_DT_UINT32] = {"uint32", sizeof(uint32_t), SHMI_DK_UNSIGNED},
    [SHMI_DT_UINT64] = {"uint64", sizeof(uint64_t), SHMI_DK_UNSIGNED},
    [SHMI_DT_SIZE] = {"size", sizeof(size_t), SHMI_DK_UNSIGNED},
    [SHMI_DT_PTRDIFF] = {"ptrdiff", sizeof(ptrdiff_t), SHMI_DK_SIGNED},
    [SHMI_DT_COMPLEXF] = {"complexf", sizeof(float _Complex), SHMI_DK_COMPLEX},
    [SHMI_DT_COMPLEXD] = {"complexd", sizeof(double _Complex),
                          SHMI_DK_COMPLEX},
};
