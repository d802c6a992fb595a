/* Argument parsing and the conversions shared by the routines (args.h). */
#include "args.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

int wpy_parse(const char *routine, PyObject *const *args, Py_ssize_t nargs,
              PyObject *kwnames, const char *const *names, int required,
              PyObject **slot)
{
    Py_ssize_t nnames = 0, i, nkw;

    while (names[nnames])
        nnames++;
    if (nargs > nnames) {
        PyErr_Format(PyExc_TypeError,
                     "%s: takes at most %zd arguments (%zd given)", routine,
                     nnames, nargs);
        return -1;
    }
    for (i = 0; i < nargs; i++)
        slot[i] = args[i];
    nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (i = 0; i < nkw; i++) {
        const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
        Py_ssize_t j;

        if (!key)
            return -1;
        for (j = 0; j < nnames; j++)
            if (strcmp(key, names[j]) == 0)
                break;
        if (j == nnames) {
            PyErr_Format(PyExc_TypeError,
                         "%s: got an unexpected keyword argument '%s'",
                         routine, key);
            return -1;
        }
        if (j < nargs) {
            PyErr_Format(PyExc_TypeError,
                         "%s: argument '%s' given by position and by keyword",
                         routine, key);
            return -1;
        }
        slot[j] = args[nargs + i];
    }
    for (i = 0; i < required; i++)
        if (!slot[i]) {
            PyErr_Format(PyExc_TypeError,
                         "%s: missing required argument '%s'", routine,
                         names[i]);
            return -1;
        }
    return 0;
}

int wpy_long_arg(PyObject *obj, const char *routine, const char *arg,
                 long *out)
{
    long v;

    if (!PyLong_Check(obj) && !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "%s: argument '%s' = %R is a %s, not an integer",
                     routine, arg, obj, Py_TYPE(obj)->tp_name);
        return -1;
    }
    v = PyLong_AsLong(obj);
    if (v == -1 && PyErr_Occurred()) {
        int overflow = PyErr_ExceptionMatches(PyExc_OverflowError);

        PyErr_Clear();
        if (overflow)
            PyErr_Format(PyExc_OverflowError,
                         "%s: argument '%s' = %R does not fit a C long",
                         routine, arg, obj);
        else
            PyErr_Format(PyExc_TypeError,
                         "%s: argument '%s' = %R is not an integer", routine,
                         arg, obj);
        return -1;
    }
    *out = v;
    return 0;
}

/* ---- Element values ------------------------------------------------------ */

/* The range of each integer type, for the overflow check. */
static int int_range(wpy_type_t type, long long *lo, unsigned long long *hi)
{
    switch (type) {
    case WPY_T_INT8: *lo = INT8_MIN; *hi = INT8_MAX; return 1;
    case WPY_T_INT16: *lo = INT16_MIN; *hi = INT16_MAX; return 1;
    case WPY_T_INT32: *lo = INT32_MIN; *hi = INT32_MAX; return 1;
    case WPY_T_INT64: *lo = INT64_MIN; *hi = INT64_MAX; return 1;
    case WPY_T_UINT8: *lo = 0; *hi = UINT8_MAX; return 1;
    case WPY_T_UINT16: *lo = 0; *hi = UINT16_MAX; return 1;
    case WPY_T_UINT32: *lo = 0; *hi = UINT32_MAX; return 1;
    case WPY_T_UINT64: *lo = 0; *hi = UINT64_MAX; return 1;
    default: return 0;
    }
}

static int value_error(PyObject *exc, const char *routine, const char *arg,
                       PyObject *obj, const char *what, const char *of,
                       wpy_type_t type)
{
    PyErr_Format(exc, "%s: argument '%s' = %R %s %s (argument '%s' has "
                      "dtype %s)",
                 routine, arg, obj, what, wpy_type_name(type), of,
                 wpy_type_name(type));
    return -1;
}

static int int_from_py(PyObject *obj, wpy_type_t type, const char *routine,
                       const char *arg, const char *of, wpy_val_t *out)
{
    long long lo, v = 0;
    unsigned long long hi, u = 0;
    int overflow = 0, neg;
    PyObject *idx;

    int_range(type, &lo, &hi);
    if (PyFloat_Check(obj) || PyComplex_Check(obj) || !PyIndex_Check(obj))
        return value_error(PyExc_TypeError, routine, arg, obj,
                           "is not an integer, as needed for", of, type);
    idx = PyLong_CheckExact(obj) ? Py_NewRef(obj) : PyNumber_Index(obj);
    if (!idx)
        return -1;
    v = PyLong_AsLongLongAndOverflow(idx, &overflow);
    if (v == -1 && PyErr_Occurred()) {
        Py_DECREF(idx);
        return -1;
    }
    neg = overflow < 0 || (!overflow && v < 0);
    if (overflow > 0) {
        u = PyLong_AsUnsignedLongLong(idx);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            overflow = 2;
        } else {
            overflow = 0;
        }
    } else if (!overflow && v >= 0) {
        u = (unsigned long long)v;
    }
    Py_DECREF(idx);
    if (overflow || (neg && v < lo) || (!neg && u > hi))
        return value_error(PyExc_OverflowError, routine, arg, obj,
                           "does not fit", of, type);
    switch (type) {
    case WPY_T_INT8: out->v_int8 = (int8_t)v; break;
    case WPY_T_INT16: out->v_int16 = (int16_t)v; break;
    case WPY_T_INT32: out->v_int32 = (int32_t)v; break;
    case WPY_T_INT64: out->v_int64 = (int64_t)v; break;
    case WPY_T_UINT8: out->v_uint8 = (uint8_t)u; break;
    case WPY_T_UINT16: out->v_uint16 = (uint16_t)u; break;
    case WPY_T_UINT32: out->v_uint32 = (uint32_t)u; break;
    default: out->v_uint64 = (uint64_t)u; break;
    }
    return 0;
}

int wpy_val_from_py(PyObject *obj, wpy_type_t type, const char *routine,
                    const char *arg, const char *of, wpy_val_t *out)
{
    long long lo;
    unsigned long long hi;
    double d;

    if (int_range(type, &lo, &hi))
        return int_from_py(obj, type, routine, arg, of, out);
    if (type == WPY_T_COMPLEXF || type == WPY_T_COMPLEXD) {
        Py_complex c = PyComplex_AsCComplex(obj);

        if (c.real == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return value_error(PyExc_TypeError, routine, arg, obj,
                               "is not a number, as needed for", of, type);
        }
        if (type == WPY_T_COMPLEXF)
            out->v_complexf = CMPLXF((float)c.real, (float)c.imag);
        else
            out->v_complexd = CMPLX(c.real, c.imag);
        return 0;
    }
    if (type != WPY_T_FLOAT && type != WPY_T_DOUBLE &&
        type != WPY_T_LONGDOUBLE) {
        PyErr_Format(PyExc_TypeError,
                     "%s: argument '%s' has dtype %s, which holds no "
                     "OpenSHMEM value",
                     routine, of, wpy_type_name(type));
        return -1;
    }
    if (PyComplex_Check(obj))
        return value_error(PyExc_TypeError, routine, arg, obj,
                           "is complex, not a real as needed for", of, type);
    d = PyFloat_AsDouble(obj);
    if (d == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return value_error(PyExc_TypeError, routine, arg, obj,
                           "is not a real number, as needed for", of, type);
    }
    if (type == WPY_T_FLOAT) {
        if (isfinite(d) && (d > FLT_MAX || d < -FLT_MAX))
            return value_error(PyExc_OverflowError, routine, arg, obj,
                               "does not fit", of, type);
        out->v_float = (float)d;
    } else if (type == WPY_T_DOUBLE) {
        out->v_double = d;
    } else {
        out->v_longdouble = d;
    }
    return 0;
}

PyObject *wpy_val_to_py(wpy_type_t type, const wpy_val_t *val)
{
    switch (type) {
    case WPY_T_INT8: return PyLong_FromLong(val->v_int8);
    case WPY_T_INT16: return PyLong_FromLong(val->v_int16);
    case WPY_T_INT32: return PyLong_FromLong(val->v_int32);
    case WPY_T_INT64: return PyLong_FromLongLong(val->v_int64);
    case WPY_T_UINT8: return PyLong_FromUnsignedLong(val->v_uint8);
    case WPY_T_UINT16: return PyLong_FromUnsignedLong(val->v_uint16);
    case WPY_T_UINT32: return PyLong_FromUnsignedLong(val->v_uint32);
    case WPY_T_UINT64: return PyLong_FromUnsignedLongLong(val->v_uint64);
    case WPY_T_FLOAT: return PyFloat_FromDouble(val->v_float);
    case WPY_T_DOUBLE: return PyFloat_FromDouble(val->v_double);
    case WPY_T_LONGDOUBLE: return PyFloat_FromDouble((double)val->v_longdouble);
    case WPY_T_COMPLEXF:
        return PyComplex_FromDoubles(crealf(val->v_complexf),
                                     cimagf(val->v_complexf));
    case WPY_T_COMPLEXD:
        return PyComplex_FromDoubles(creal(val->v_complexd),
                                     cimag(val->v_complexd));
    default: Py_RETURN_NONE;
    }
}

int wpy_no_typed_routine(const char *routine, const char *arg,
                         wpy_type_t type, const char *cname,
                         const unsigned char have[WPY_NTYPES])
{
    char list[256] = "";
    size_t len = 0;
    int t;

    for (t = 0; t < WPY_NTYPES; t++) {
        if (!have[t])
            continue;
        len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
                                len ? ", " : "", wpy_type_name(t));
        if (len >= sizeof(list))
            break;
    }
    PyErr_Format(PyExc_TypeError,
                 "%s: argument '%s' has dtype %s, for which OpenSHMEM has no "
                 "%s (dtypes that have one: %s)",
                 routine, arg, wpy_type_name(type), cname,
                 len ? list : "none");
    return -1;
}

/* ---- Operators ----------------------------------------------------------- */

static const struct {
    const char *name;
    int cmp;
} cmp_names[] = {
    {"==", SHMEM_CMP_EQ}, {"!=", SHMEM_CMP_NE}, {">", SHMEM_CMP_GT},
    {">=", SHMEM_CMP_GE}, {"<", SHMEM_CMP_LT},  {"<=", SHMEM_CMP_LE},
    {"eq", SHMEM_CMP_EQ}, {"ne", SHMEM_CMP_NE}, {"gt", SHMEM_CMP_GT},
    {"ge", SHMEM_CMP_GE}, {"lt", SHMEM_CMP_LT}, {"le", SHMEM_CMP_LE},
};

int wpy_cmp_arg(PyObject *obj, const char *routine, const char *arg, int *cmp)
{
    if (PyLong_Check(obj)) {
        long v = PyLong_AsLong(obj);

        if (v >= SHMEM_CMP_EQ && v <= SHMEM_CMP_LE) {
            *cmp = (int)v;
            return 0;
        }
        if (v == -1 && PyErr_Occurred())
            PyErr_Clear();
    } else if (PyUnicode_Check(obj)) {
        const char *s = PyUnicode_AsUTF8(obj);
        size_t i;

        if (!s)
            return -1;
        if (strncasecmp(s, "cmp_", 4) == 0)
            s += 4;
        for (i = 0; i < sizeof(cmp_names) / sizeof(cmp_names[0]); i++)
            if (strcasecmp(s, cmp_names[i].name) == 0) {
                *cmp = cmp_names[i].cmp;
                return 0;
            }
    } else {
        PyErr_Format(PyExc_TypeError,
                     "%s: argument '%s' = %R is a %s, not a comparison "
                     "(CMP_EQ ... CMP_LE, or '==', '!=', '>', '>=', '<', "
                     "'<=')",
                     routine, arg, obj, Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyErr_Format(PyExc_ValueError,
                 "%s: argument '%s' = %R is not a comparison (CMP_EQ ... "
                 "CMP_LE, or '==', '!=', '>', '>=', '<', '<=', 'eq', 'ne', "
                 "'gt', 'ge', 'lt', 'le')",
                 routine, arg, obj);
    return -1;
}

int wpy_cmp_u64(uint64_t value, int cmp, uint64_t ref)
{
    switch (cmp) {
    case SHMEM_CMP_EQ: return value == ref;
    case SHMEM_CMP_NE: return value != ref;
    case SHMEM_CMP_GT: return value > ref;
    case SHMEM_CMP_GE: return value >= ref;
    case SHMEM_CMP_LT: return value < ref;
    default: return value <= ref;
    }
}

int wpy_name_arg(PyObject *obj, const char *routine, const char *arg,
                 const char *const *names, const char *what, int *index)
{
    const char *s;
    int i;

    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "%s: argument '%s' = %R is a %s, not %s", routine, arg,
                     obj, Py_TYPE(obj)->tp_name, what);
        return -1;
    }
    s = PyUnicode_AsUTF8(obj);
    if (!s)
        return -1;
    for (i = 0; names[i]; i++)
        if (strcasecmp(s, names[i]) == 0) {
            *index = i;
            return 0;
        }
    PyErr_Format(PyExc_ValueError, "%s: argument '%s' = %R is not %s",
                 routine, arg, obj, what);
    return -1;
}

/* ---- Buffers ------------------------------------------------------------- */

int wpy_elem_get(PyObject *obj, int want, const char *routine,
                 const char *arg, wpy_buf_t *out)
{
    if (wpy_buf_get(obj, want | WPY_SYMMETRIC, routine, arg, out) < 0)
        return -1;
    if (out->count == 1)
        return 0;
    wpy_buf_release(out);
    PyErr_Format(PyExc_ValueError,
                 "%s: argument '%s' holds %zu elements; it must be a "
                 "symmetric array of one element (a[i:i+1] selects one)",
                 routine, arg, out->count);
    return -1;
}

int wpy_pe_arg(PyObject *obj, int npes, const char *routine, const char *arg,
               int *pe)
{
    long v;

    if (wpy_long_arg(obj, routine, arg, &v) < 0 ||
        wpy_check_pe(v, npes, routine, arg) < 0)
        return -1;
    *pe = (int)v;
    return 0;
}

/* ---- The Python side of the package ---------------------------------------- */

PyObject *wpy_array_call(const char *name, PyObject *args, PyObject *kwargs)
{
    PyObject *mod = PyImport_ImportModule("weft.array");
    PyObject *fn, *res;

    if (!mod)
        return NULL;
    fn = PyObject_GetAttrString(mod, name);
    Py_DECREF(mod);
    if (!fn)
        return NULL;
    res = PyObject_Call(fn, args, kwargs);
    Py_DECREF(fn);
    return res;
}
