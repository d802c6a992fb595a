/* Arrays described by the array interfaces: the type strings of NumPy's
 * and CUDA's array interface ("<f8"), and device arrays of other frameworks
 * (CuPy, PyTorch, Numba, JAX) by their __cuda_array_interface__
 * (https://numba.readthedocs.io/en/stable/cuda/cuda_array_interface.html,
 * version 3), read as routine arguments (wpy_device_resolve, device.c). */
#include "args.h"
#include "dlpack.h"

#include <stdlib.h>
#include <string.h>

/* ---- Element types from an array-interface type string ------------------- */

int wpy_typestr_parse(const char *s, wpy_type_t *type, size_t *itemsize)
{
    char order, kind, *end;
    long size;

    if (!s || strlen(s) < 3)
        return -1;
    order = s[0];
    kind = s[1];
    size = strtol(s + 2, &end, 10);
    if (*end || size <= 0)
        return -1;
    /* Native order only ('|': order does not apply); the machines Weft
     * runs on are little-endian. */
    if (order != '<' && order != '|' && order != '=')
        return -1;
    if (kind == 'O')
        return -1;
    *itemsize = (size_t)size;
    switch (kind) {
    case 'i':
    case 'u':
        switch (size) {
        case 1: *type = kind == 'i' ? WPY_T_INT8 : WPY_T_UINT8; break;
        case 2: *type = kind == 'i' ? WPY_T_INT16 : WPY_T_UINT16; break;
        case 4: *type = kind == 'i' ? WPY_T_INT32 : WPY_T_UINT32; break;
        case 8: *type = kind == 'i' ? WPY_T_INT64 : WPY_T_UINT64; break;
        default: *type = WPY_T_OTHER;
        }
        break;
    case 'f':
        *type = size == 4   ? WPY_T_FLOAT
                : size == 8 ? WPY_T_DOUBLE
                : (size_t)size == sizeof(long double) ? WPY_T_LONGDOUBLE
                                                      : WPY_T_OTHER;
        break;
    case 'c':
        *type = size == 8 ? WPY_T_COMPLEXF
                : size == 16 ? WPY_T_COMPLEXD : WPY_T_OTHER;
        break;
    case 'b':
        *type = size == 1 ? WPY_T_BOOL : WPY_T_OTHER;
        break;
    default:
        *type = WPY_T_OTHER;
    }
    return 0;
}

/* Reads a tuple of ints (or None) from an interface dictionary. */
static int cai_dims(PyObject *t, Py_ssize_t *out, Py_ssize_t n)
{
    Py_ssize_t i;

    for (i = 0; i < n; i++) {
        out[i] = PyNumber_AsSsize_t(PyTuple_GET_ITEM(t, i), PyExc_OverflowError);
        if (out[i] == -1 && PyErr_Occurred())
            return -1;
    }
    return 0;
}

/* Whether shape/strides (bytes) describe a C- or Fortran-contiguous range. */
int wpy_dims_contig(const Py_ssize_t *shape, const Py_ssize_t *strides,
                    Py_ssize_t ndim, size_t itemsize)
{
    int fortran;

    if (!strides)
        return 1;
    for (fortran = 0; fortran < 2; fortran++) {
        Py_ssize_t want = (Py_ssize_t)itemsize, i;
        int ok = 1;
        for (i = 0; i < ndim && ok; i++) {
            Py_ssize_t d = fortran ? i : ndim - 1 - i;
            if (shape[d] == 0)
                return 1;
            if (shape[d] != 1 && strides[d] != want)
                ok = 0;
            want *= shape[d];
        }
        if (ok)
            return 1;
    }
    return 0;
}

#define CAI_MAXDIM 64

/* Raises "ROUTINE: argument 'ARG' (__cuda_array_interface__) WHAT". */
static int cai_error(PyObject *exc, const char *routine, const char *arg,
                     const char *what)
{
    PyErr_Format(exc, "%s: argument '%s' (__cuda_array_interface__) %s",
                 routine, arg, what);
    return -1;
}

/* The producer named a stream its work on the array is ordered on: wait
 * for it (the routines are blocking; CAI version 3). */
static int cai_sync_stream(PyObject *stream, const char *routine,
                           const char *arg)
{
    const char *name = wpy_device_backend(NULL);
    void *s;
    int rc;

    if (!stream || stream == Py_None || !name || strcmp(name, "mock") == 0)
        return 0;
    if (!PyLong_Check(stream))
        return cai_error(PyExc_TypeError, routine, arg,
                         "has a 'stream' that is not an int");
    s = PyLong_AsVoidPtr(stream);
    if (!s && PyErr_Occurred())
        return -1;
    Py_BEGIN_ALLOW_THREADS
    rc = shmemx_stream_synchronize(s);
    Py_END_ALLOW_THREADS
    if (rc != 0) {
        PyErr_Format(wpy_error, "%s: argument '%s': synchronizing its "
                                "producer's stream %p failed",
                     routine, arg, s);
        return -1;
    }
    return 0;
}

int wpy_cai_resolve(PyObject *cai, int want, const char *routine,
                    const char *arg, wpy_buf_t *out)
{
    PyObject *shape, *typestr, *data, *strides, *mask;
    Py_ssize_t dims[2 * CAI_MAXDIM], ndim, i;
    size_t count = 1;
    int readonly;
    void *addr;

    if (!PyDict_Check(cai))
        return cai_error(PyExc_TypeError, routine, arg, "is not a dict");
    shape = PyDict_GetItemString(cai, "shape");
    typestr = PyDict_GetItemString(cai, "typestr");
    data = PyDict_GetItemString(cai, "data");
    strides = PyDict_GetItemString(cai, "strides");
    mask = PyDict_GetItemString(cai, "mask");
    if (!shape || !PyTuple_Check(shape) || !typestr ||
        !PyUnicode_Check(typestr) || !data || !PyTuple_Check(data) ||
        PyTuple_GET_SIZE(data) != 2)
        return cai_error(PyExc_TypeError, routine, arg,
                         "lacks 'shape', 'typestr' or 'data'");
    if (mask && mask != Py_None)
        return cai_error(PyExc_TypeError, routine, arg,
                         "has a mask (masked arrays are not supported)");
    ndim = PyTuple_GET_SIZE(shape);
    if (ndim > CAI_MAXDIM ||
        (strides && strides != Py_None &&
         (!PyTuple_Check(strides) || PyTuple_GET_SIZE(strides) != ndim)))
        return cai_error(PyExc_ValueError, routine, arg,
                         "has strides that do not match its shape");
    if (wpy_typestr_parse(PyUnicode_AsUTF8(typestr), &out->type,
                          &out->itemsize) < 0) {
        PyErr_Format(PyExc_TypeError,
                     "%s: argument '%s' has typestr %R, which no routine "
                     "takes (native numbers, bools, records)",
                     routine, arg, typestr);
        return -1;
    }
    if (cai_dims(shape, dims, ndim) < 0 ||
        (strides && strides != Py_None &&
         cai_dims(strides, dims + ndim, ndim) < 0))
        return -1;
    for (i = 0; i < ndim; i++)
        count *= (size_t)dims[i];
    if (!wpy_dims_contig(dims,
                         strides && strides != Py_None ? dims + ndim : NULL,
                         ndim, out->itemsize))
        return cai_error(PyExc_ValueError, routine, arg,
                         "describes an array that is not contiguous");
    addr = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
    if (!addr && PyErr_Occurred())
        return -1;
    readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1));
    if (readonly < 0)
        return -1;
    if (readonly && (want & WPY_WRITE))
        return cai_error(PyExc_ValueError, routine, arg,
                         "is read-only; the routine writes it");
    if (cai_sync_stream(PyDict_GetItemString(cai, "stream"), routine, arg) < 0)
        return -1;
    out->addr = addr;
    out->count = count;
    out->nbytes = count * out->itemsize;
    out->space = WPY_DEVICE;
    return 1;
}
