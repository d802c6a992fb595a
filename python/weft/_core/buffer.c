/* Python objects seen as contiguous element ranges, and the argument
 * checks every routine shares (wpy.h). */
#include "wpy.h"

#include <string.h>

static const char *const type_names[WPY_NTYPES] = {
    [WPY_T_INT8] = "int8",         [WPY_T_INT16] = "int16",
    [WPY_T_INT32] = "int32",       [WPY_T_INT64] = "int64",
    [WPY_T_UINT8] = "uint8",       [WPY_T_UINT16] = "uint16",
    [WPY_T_UINT32] = "uint32",     [WPY_T_UINT64] = "uint64",
    [WPY_T_FLOAT] = "float32",     [WPY_T_DOUBLE] = "float64",
    [WPY_T_LONGDOUBLE] = "longdouble", [WPY_T_COMPLEXF] = "complex64",
    [WPY_T_COMPLEXD] = "complex128", [WPY_T_BOOL] = "bool",
    [WPY_T_OTHER] = "(no OpenSHMEM type)",
};

const char *wpy_type_name(wpy_type_t type)
{
    return (unsigned)type < WPY_NTYPES ? type_names[type] : "?";
}

/* An integer type by signedness and size. */
static wpy_type_t int_type(int is_signed, size_t size)
{
    switch (size) {
    case 1: return is_signed ? WPY_T_INT8 : WPY_T_UINT8;
    case 2: return is_signed ? WPY_T_INT16 : WPY_T_UINT16;
    case 4: return is_signed ? WPY_T_INT32 : WPY_T_UINT32;
    case 8: return is_signed ? WPY_T_INT64 : WPY_T_UINT64;
    default: return WPY_T_OTHER;
    }
}

/* The element type of a struct-module format string of one item ("d",
 * "<i4" is not a struct format; NumPy writes "<i" or "i"), as NumPy
 * exports native arrays: an optional byte-order mark that must be the
 * native one, then one code.  Anything else is WPY_T_OTHER. */
static wpy_type_t format_type(const char *fmt, size_t itemsize)
{
    if (!fmt)
        return WPY_T_UINT8; /* plain bytes */
    if (*fmt == '@' || *fmt == '=' || *fmt == '<')
        fmt++;
    if (fmt[0] == 'Z' && fmt[1] && !fmt[2]) {
        if (fmt[1] == 'f')
            return WPY_T_COMPLEXF;
        if (fmt[1] == 'd')
            return WPY_T_COMPLEXD;
        return WPY_T_OTHER;
    }
    if (!fmt[0] || fmt[1])
        return WPY_T_OTHER;
    switch (fmt[0]) {
    case 'b': case 'h': case 'i': case 'l': case 'q': case 'n':
        return int_type(1, itemsize);
    case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N': case 'c':
        return int_type(0, itemsize);
    case 'f': return itemsize == 4 ? WPY_T_FLOAT : WPY_T_OTHER;
    case 'd': return itemsize == 8 ? WPY_T_DOUBLE : WPY_T_OTHER;
    case 'g': return itemsize == sizeof(long double) ? WPY_T_LONGDOUBLE : WPY_T_OTHER;
    case '?': return itemsize == 1 ? WPY_T_BOOL : WPY_T_OTHER;
    default: return WPY_T_OTHER;
    }
}

/* repr() of obj cut to a line, for messages. */
static PyObject *short_repr(PyObject *obj)
{
    PyObject *r = PyObject_Repr(obj);
    PyObject *cut;

    if (!r) {
        PyErr_Clear();
        return PyUnicode_FromFormat("<%s object>", Py_TYPE(obj)->tp_name);
    }
    if (PyUnicode_GetLength(r) <= 60)
        return r;
    cut = PyUnicode_Substring(r, 0, 57);
    Py_DECREF(r);
    if (!cut)
        return NULL;
    r = PyUnicode_FromFormat("%U...", cut);
    Py_DECREF(cut);
    return r;
}

/* Raises exc with "ROUTINE: argument 'ARG' = REPR WHAT". */
static int arg_error(PyObject *exc, const char *routine, const char *arg,
                     PyObject *obj, const char *what)
{
    PyObject *r = short_repr(obj);

    if (!r)
        return -1;
    PyErr_Format(exc, "%s: argument '%s' = %U %s", routine, arg, r, what);
    Py_DECREF(r);
    return -1;
}

/* ---- NumPy arrays without the buffer protocol ------------------------------
 *
 * Exporting a buffer costs a NumPy array some 50-90 ns (the format string,
 * the shape and strides copied out), twice for a put: more than the put
 * itself on the node.  An exact numpy.ndarray is read here from the
 * leading fields of NumPy's array and dtype structs, the ones NumPy's own
 * inline accessors (PyArray_DATA, PyArray_NDIM, PyArray_DIMS,
 * PyArray_FLAGS, PyArray_DESCR, PyArray_TYPE) read from compiled
 * extensions, so that NumPy keeps them in its ABI (1.x and 2.x alike).  The
 * element size comes from the type number, not from the dtype's elsize
 * field (which NumPy 2 moved).  Anything else, or a subclass, takes the
 * buffer protocol. */

typedef struct np_descr_head {
    PyObject_HEAD
    PyTypeObject *typeobj;
    char kind, type, byteorder, flags_v1;
    int type_num;
} np_descr_head_t;

typedef struct np_array_head {
    PyObject_HEAD
    char *data;
    int nd;
    Py_ssize_t *dimensions;
    Py_ssize_t *strides;
    PyObject *base;
    np_descr_head_t *descr;
    int flags;
} np_array_head_t;

enum {
    NP_C_CONTIGUOUS = 0x1,
    NP_F_CONTIGUOUS = 0x2,
    NP_WRITEABLE = 0x400,
    NP_NTYPES_SIMPLE = 16, /* NPY_BOOL (0) ... NPY_CDOUBLE (15) */
};

/* has_view's value for a fast-path array: view.obj holds a reference and
 * no buffer was exported. */
enum { HAS_REF = 2 };

static PyTypeObject *np_ndarray; /* numpy.ndarray, once looked up */
static int np_looked_up;

static PyTypeObject *ndarray_type(void)
{
    PyObject *np, *t;

    if (np_looked_up)
        return np_ndarray;
    np_looked_up = 1;
    np = PyImport_ImportModule("numpy");
    if (!np) {
        PyErr_Clear();
        return NULL;
    }
    t = PyObject_GetAttrString(np, "ndarray");
    Py_DECREF(np);
    if (!t || !PyType_Check(t)) {
        Py_XDECREF(t);
        PyErr_Clear();
        return NULL;
    }
    np_ndarray = (PyTypeObject *)t; /* kept for the process's life */
    return np_ndarray;
}

/* 1 and *out filled when obj is a NumPy array the fast path reads, 0 when
 * the buffer protocol must. */
static int numpy_get(PyObject *obj, int want, wpy_buf_t *out)
{
    static const struct {
        wpy_type_t type;
        size_t size;
    } types[NP_NTYPES_SIMPLE] = {
        {WPY_T_BOOL, 1},
        {WPY_T_INT8, 1},
        {WPY_T_UINT8, 1},
        {WPY_T_OTHER, sizeof(short)},
        {WPY_T_OTHER, sizeof(short)},
        {WPY_T_OTHER, sizeof(int)},
        {WPY_T_OTHER, sizeof(int)},
        {WPY_T_OTHER, sizeof(long)},
        {WPY_T_OTHER, sizeof(long)},
        {WPY_T_OTHER, sizeof(long long)},
        {WPY_T_OTHER, sizeof(long long)},
        {WPY_T_FLOAT, sizeof(float)},
        {WPY_T_DOUBLE, sizeof(double)},
        {WPY_T_LONGDOUBLE, sizeof(long double)},
        {WPY_T_COMPLEXF, 2 * sizeof(float)},
        {WPY_T_COMPLEXD, 2 * sizeof(double)},
    };
    const np_array_head_t *a = (const np_array_head_t *)obj;
    const np_descr_head_t *d;
    size_t count = 1, size;
    wpy_type_t type;
    int i, tn;

    if (Py_TYPE(obj) != np_ndarray || !np_ndarray)
        return 0;
    d = a->descr;
    tn = d->type_num;
    if (tn < 0 || tn >= NP_NTYPES_SIMPLE ||
        !(a->flags & (NP_C_CONTIGUOUS | NP_F_CONTIGUOUS)) ||
        ((want & WPY_WRITE) && !(a->flags & NP_WRITEABLE)) ||
        d->byteorder == (PY_LITTLE_ENDIAN ? '>' : '<'))
        return 0;
    size = types[tn].size;
    type = types[tn].type;
    if (type == WPY_T_OTHER) /* the integers: signed on odd numbers */
        type = int_type(tn % 2 == 1, size);
    for (i = 0; i < a->nd; i++)
        count *= (size_t)a->dimensions[i];
    out->addr = a->data;
    out->count = count;
    out->itemsize = size;
    out->nbytes = count * size;
    out->type = type;
    out->space = WPY_HOST;
    out->view.obj = Py_NewRef(obj);
    out->view.buf = a->data;
    out->view.len = (Py_ssize_t)out->nbytes;
    out->view.readonly = !(a->flags & NP_WRITEABLE);
    out->has_view = HAS_REF;
    return 1;
}

static int host_get(PyObject *obj, int want, const char *routine,
                    const char *arg, wpy_buf_t *out)
{
    int flags = PyBUF_FORMAT | PyBUF_STRIDES;

    if (want & WPY_WRITE)
        flags |= PyBUF_WRITABLE;
    if (PyObject_GetBuffer(obj, &out->view, flags) < 0) {
        /* Exporters refuse a writable view of read-only memory with
         * BufferError (the protocol) or ValueError (NumPy). */
        if (!PyErr_ExceptionMatches(PyExc_BufferError) &&
            !PyErr_ExceptionMatches(PyExc_TypeError) &&
            !PyErr_ExceptionMatches(PyExc_ValueError))
            return -1;
        PyErr_Clear();
        if ((want & WPY_WRITE) &&
            PyObject_GetBuffer(obj, &out->view, flags & ~PyBUF_WRITABLE) == 0) {
            PyBuffer_Release(&out->view);
            return arg_error(PyExc_ValueError, routine, arg, obj,
                             "is read-only; the routine writes it");
        }
        PyErr_Clear();
        return arg_error(PyExc_TypeError, routine, arg, obj,
                         "is not an array (no buffer protocol, no "
                         "__cuda_array_interface__)");
    }
    out->has_view = 1;
    if (!PyBuffer_IsContiguous(&out->view, 'A')) {
        wpy_buf_release(out);
        return arg_error(PyExc_ValueError, routine, arg, obj,
                         "is not contiguous (pass a contiguous array, or "
                         "use the strided routines iput/iget)");
    }
    out->addr = out->view.buf;
    out->nbytes = (size_t)out->view.len;
    out->itemsize = out->view.itemsize > 0 ? (size_t)out->view.itemsize : 1;
    out->count = out->nbytes / out->itemsize;
    out->type = format_type(out->view.format, out->itemsize);
    out->space = WPY_HOST;
    return 0;
}

int wpy_buf_get(PyObject *obj, int want, const char *routine, const char *arg,
                wpy_buf_t *out)
{
    int r;

    if (!np_looked_up)
        ndarray_type();
    /* numpy_get sets every field it uses (no memset on the fast path: it
     * costs as much as the rest of the path). */
    if (numpy_get(obj, want, out)) {
        r = 1;
    } else {
        memset(out, 0, sizeof(*out));
        r = wpy_device_resolve(obj, want, routine, arg, out);
        if (r < 0)
            return -1;
        if (r == 0 && host_get(obj, want, routine, arg, out) < 0)
            return -1;
    }
    if (want & WPY_SYMMETRIC) {
        int space = out->nbytes
                        ? wpy_sym_space(out->addr, out->nbytes)
                        : wpy_sym_space(out->addr, 1);
        if (space < 0) {
            wpy_buf_release(out);
            return arg_error(PyExc_ValueError, routine, arg, obj,
                             "is not symmetric (allocate it with "
                             "weft.empty/zeros/array, or the device "
                             "forms)");
        }
    }
    return 0;
}

void wpy_buf_release(wpy_buf_t *buf)
{
    if (buf->has_view == HAS_REF)
        Py_CLEAR(buf->view.obj);
    else if (buf->has_view)
        PyBuffer_Release(&buf->view);
    buf->has_view = 0;
}

int wpy_check_live(const char *routine)
{
    if (wpy_state.live)
        return 0;
    PyErr_Format(wpy_error,
                 "%s: Weft is not initialised (call weft.init() first, or "
                 "weft.finalize() was already called)",
                 routine);
    return -1;
}

int wpy_check_pe(long pe, int npes, const char *routine, const char *arg)
{
    if (pe >= 0 && pe < npes)
        return 0;
    PyErr_Format(PyExc_ValueError,
                 "%s: argument '%s' = %ld is not a PE of the team (0 to %d)",
                 routine, arg, pe, npes - 1);
    return -1;
}

int wpy_size_arg(PyObject *obj, const char *routine, const char *arg,
                 size_t *out)
{
    Py_ssize_t v;

    if (!obj || obj == Py_None)
        return 0;
    v = PyNumber_AsSsize_t(obj, PyExc_OverflowError);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return arg_error(PyExc_TypeError, routine, arg, obj,
                         "is not an integer count");
    }
    if (v < 0)
        return arg_error(PyExc_ValueError, routine, arg, obj,
                         "is negative");
    *out = (size_t)v;
    return 0;
}
