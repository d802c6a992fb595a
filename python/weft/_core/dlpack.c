/* DLPack (dlpack.h) both ways: weft device arrays exported as capsules
 * (__dlpack__), and foreign objects that offer only __dlpack__ (JAX arrays,
 * PyTorch tensors on any device) read as routine arguments. */
#include "args.h"
#include "dlpack.h"

#include <stdlib.h>
#include <string.h>

/* ---- Export ------------------------------------------------------------- */

/* DLPack's code and bits of an element type; -1 for types it has none
 * for (long double, records). */
static int dl_dtype(wpy_type_t type, size_t itemsize, wpy_dl_dtype_t *out)
{
    out->lanes = 1;
    out->bits = (uint8_t)(8 * itemsize);
    switch (type) {
    case WPY_T_INT8: case WPY_T_INT16: case WPY_T_INT32: case WPY_T_INT64:
        out->code = WPY_DL_INT;
        return 0;
    case WPY_T_UINT8: case WPY_T_UINT16: case WPY_T_UINT32: case WPY_T_UINT64:
        out->code = WPY_DL_UINT;
        return 0;
    case WPY_T_FLOAT: case WPY_T_DOUBLE:
        out->code = WPY_DL_FLOAT;
        return 0;
    case WPY_T_COMPLEXF: case WPY_T_COMPLEXD:
        out->code = WPY_DL_COMPLEX;
        return 0;
    case WPY_T_BOOL:
        out->code = WPY_DL_BOOL;
        return 0;
    default:
        return -1;
    }
}

/* Drops the producer's reference from whatever thread the consumer frees
 * the tensor on (a framework may do it from a thread of its own). */
static void release_owner(void *owner)
{
    PyGILState_STATE g;

    if (!owner || !Py_IsInitialized())
        return; /* at interpreter exit: the reference no longer matters */
    g = PyGILState_Ensure();
    Py_DECREF((PyObject *)owner);
    PyGILState_Release(g);
}

static void delete_legacy(wpy_dl_managed_t *self)
{
    if (!self)
        return;
    release_owner(self->manager_ctx);
    free(self);
}

static void delete_versioned(wpy_dl_managed_v_t *self)
{
    if (!self)
        return;
    release_owner(self->manager_ctx);
    free(self);
}

/* A capsule nobody consumed (still named "dltensor" or
 * "dltensor_versioned") frees its tensor; a consumed one was renamed and
 * its consumer calls the deleter. */
static void capsule_free(PyObject *cap)
{
    PyObject *type, *value, *tb;

    PyErr_Fetch(&type, &value, &tb);
    if (PyCapsule_IsValid(cap, "dltensor")) {
        wpy_dl_managed_t *m = PyCapsule_GetPointer(cap, "dltensor");
        if (m && m->deleter)
            m->deleter(m);
    } else if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        wpy_dl_managed_v_t *m =
            PyCapsule_GetPointer(cap, "dltensor_versioned");
        if (m && m->deleter)
            m->deleter(m);
    }
    PyErr_Restore(type, value, tb);
}

PyObject *wpy_dlpack_export(PyObject *owner, char *addr, int ndim,
                            const Py_ssize_t *shape,
                            const Py_ssize_t *strides, size_t itemsize,
                            wpy_type_t type, int versioned)
{
    /* One allocation: the managed tensor, then shape and strides. */
    size_t head = versioned ? sizeof(wpy_dl_managed_v_t)
                            : sizeof(wpy_dl_managed_t);
    wpy_dl_tensor_t *t;
    wpy_dl_dtype_t dt;
    int64_t *dims;
    char *mem;
    PyObject *cap;
    int i;

    if (dl_dtype(type, itemsize, &dt) < 0) {
        PyErr_Format(PyExc_BufferError,
                     "__dlpack__: DLPack has no type for %s elements of %zu "
                     "bytes",
                     wpy_type_name(type), itemsize);
        return NULL;
    }
    head = (head + 7) & ~(size_t)7;
    mem = calloc(1, head + 2 * (size_t)(ndim ? ndim : 1) * sizeof(int64_t));
    if (!mem)
        return PyErr_NoMemory();
    dims = (int64_t *)(mem + head);
    if (versioned) {
        wpy_dl_managed_v_t *m = (wpy_dl_managed_v_t *)mem;
        m->version.major = WPY_DLPACK_MAJOR;
        m->version.minor = WPY_DLPACK_MINOR;
        m->manager_ctx = owner;
        m->deleter = delete_versioned;
        m->flags = 0;
        t = &m->dl_tensor;
    } else {
        wpy_dl_managed_t *m = (wpy_dl_managed_t *)mem;
        m->manager_ctx = owner;
        m->deleter = delete_legacy;
        t = &m->dl_tensor;
    }
    if (wpy_dl_device(&t->device.device_type, &t->device.device_id) < 0) {
        free(mem);
        PyErr_SetString(PyExc_BufferError,
                        "__dlpack__: Weft is not live or has no device heap");
        return NULL;
    }
    /* data is the first element itself, byte_offset 0: what every
     * producer of note does, and what consumers that ignore byte_offset
     * still read right. */
    t->data = addr;
    t->byte_offset = 0;
    t->ndim = ndim;
    t->dtype = dt;
    t->shape = dims;
    t->strides = dims + ndim;
    for (i = 0; i < ndim; i++) {
        dims[i] = shape[i];
        dims[ndim + i] = strides[i] / (Py_ssize_t)itemsize;
    }
    cap = PyCapsule_New(mem, versioned ? "dltensor_versioned" : "dltensor",
                        capsule_free);
    if (!cap) {
        free(mem);
        return NULL;
    }
    Py_INCREF(owner);
    return cap;
}

int wpy_dlpack_check_request(const char *routine, PyObject *stream,
                             PyObject *max_version, PyObject *dl_device,
                             PyObject *copy, int *versioned)
{
    int32_t type, id;

    if (wpy_dl_device(&type, &id) < 0) {
        PyErr_Format(PyExc_BufferError,
                     "%s: Weft is not live or has no device heap", routine);
        return -1;
    }
    if (stream != Py_None) {
        long s;
        if (!PyLong_Check(stream) || PyBool_Check(stream)) {
            PyErr_Format(PyExc_TypeError,
                         "%s: argument 'stream' = %R is not None or an int",
                         routine, stream);
            return -1;
        }
        s = PyLong_AsLong(stream);
        if (s == -1 && PyErr_Occurred())
            return -1;
        /* The specification leaves 0 undefined on CUDA (legacy or
         * per-thread default?); the array has no stream work of its own,
         * so any other value needs nothing from the producer. */
        if (type == WPY_DL_CUDA && s == 0) {
            PyErr_Format(PyExc_ValueError,
                         "%s: argument 'stream' = 0 is ambiguous on CUDA "
                         "(1: legacy default stream, 2: per-thread default)",
                         routine);
            return -1;
        }
    }
    *versioned = 0;
    if (max_version != Py_None) {
        long major;
        if (!PyTuple_Check(max_version) || PyTuple_GET_SIZE(max_version) != 2) {
            PyErr_Format(PyExc_TypeError,
                         "%s: argument 'max_version' = %R is not a (major, "
                         "minor) tuple",
                         routine, max_version);
            return -1;
        }
        major = PyLong_AsLong(PyTuple_GET_ITEM(max_version, 0));
        if (major == -1 && PyErr_Occurred())
            return -1;
        *versioned = major >= 1;
    }
    if (dl_device != Py_None) {
        int32_t want_type = -1, want_id = -1;
        if (!PyArg_ParseTuple(dl_device, "ii", &want_type, &want_id))
            return -1;
        if (want_type != type || want_id != id) {
            PyErr_Format(PyExc_BufferError,
                         "%s: argument 'dl_device' = %R: the array is on "
                         "device (%d, %d) and Weft does not copy it",
                         routine, dl_device, (int)type, (int)id);
            return -1;
        }
    }
    if (copy != Py_None && PyObject_IsTrue(copy) > 0) {
        PyErr_Format(PyExc_BufferError,
                     "%s: argument 'copy' = True: Weft exports device arrays "
                     "without copying (copy it with weft.device.to_numpy or "
                     "the consumer)",
                     routine);
        return -1;
    }
    return PyErr_Occurred() ? -1 : 0;
}

/* ---- Import ----------------------------------------------------------- */

/* The stream a consumer names to a producer of `type` (the Python
 * specification): CUDA's legacy default stream is 1, ROCm's default 0;
 * other devices take none. */
static PyObject *consumer_stream(long type)
{
    if (type == WPY_DL_CUDA || type == WPY_DL_CUDA_MANAGED)
        return PyLong_FromLong(1);
    if (type == WPY_DL_ROCM)
        return PyLong_FromLong(0);
    return Py_NewRef(Py_None);
}

/* Calls obj.__dlpack__ as a DLPack 1.0 consumer, then as a 0.x one. */
static PyObject *call_dlpack(PyObject *obj, PyObject *fn, long *devtype)
{
    PyObject *dev, *kw, *cap, *empty;

    *devtype = -1;
    dev = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
    if (dev) {
        if (PyTuple_Check(dev) && PyTuple_GET_SIZE(dev) == 2)
            *devtype = PyLong_AsLong(PyTuple_GET_ITEM(dev, 0));
        Py_DECREF(dev);
        if (*devtype == -1 && PyErr_Occurred())
            return NULL;
    } else if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
    } else {
        return NULL;
    }
    empty = PyTuple_New(0);
    kw = Py_BuildValue("{s:N,s:(ii)}", "stream", consumer_stream(*devtype),
                       "max_version", WPY_DLPACK_MAJOR, WPY_DLPACK_MINOR);
    if (!empty || !kw) {
        Py_XDECREF(empty);
        Py_XDECREF(kw);
        return NULL;
    }
    cap = PyObject_Call(fn, empty, kw);
    if (!cap && PyErr_ExceptionMatches(PyExc_TypeError)) {
        /* A 0.x producer: no max_version. */
        PyErr_Clear();
        PyDict_DelItemString(kw, "max_version");
        cap = PyObject_Call(fn, empty, kw);
    }
    Py_DECREF(empty);
    Py_DECREF(kw);
    return cap;
}

/* Element type and size of a DLPack dtype. */
static int dl_type_in(wpy_dl_dtype_t dt, wpy_type_t *type, size_t *itemsize)
{
    char ts[8];
    char kind;

    if (dt.lanes != 1 || dt.bits % 8 || dt.bits == 0)
        return -1;
    switch (dt.code) {
    case WPY_DL_INT: kind = 'i'; break;
    case WPY_DL_UINT: kind = 'u'; break;
    case WPY_DL_FLOAT: kind = 'f'; break;
    case WPY_DL_COMPLEX: kind = 'c'; break;
    case WPY_DL_BOOL: kind = 'b'; break;
    case WPY_DL_BFLOAT: kind = 'V'; break; /* moved as bytes only */
    default: return -1;
    }
    snprintf(ts, sizeof(ts), "<%c%u", kind, (unsigned)(dt.bits / 8));
    return wpy_typestr_parse(ts, type, itemsize);
}

static int dl_error(PyObject *exc, const char *routine, const char *arg,
                    const char *what)
{
    PyErr_Format(exc, "%s: argument '%s' (__dlpack__) %s", routine, arg, what);
    return -1;
}

/* Fills out from the tensor; 0 or -1. */
static int read_tensor(const wpy_dl_tensor_t *t, int readonly, int want,
                       const char *routine, const char *arg, wpy_buf_t *out)
{
    Py_ssize_t shape[64], strides[64];
    size_t count = 1;
    int i, space;

    switch (t->device.device_type) {
    case WPY_DL_CUDA: case WPY_DL_CUDA_MANAGED: case WPY_DL_ROCM:
    case WPY_DL_EXT_DEV:
        space = WPY_DEVICE;
        break;
    case WPY_DL_CPU: case WPY_DL_CUDA_HOST: case WPY_DL_ROCM_HOST:
        space = WPY_HOST;
        break;
    default:
        PyErr_Format(PyExc_TypeError,
                     "%s: argument '%s' (__dlpack__) is on DLPack device "
                     "type %d, which Weft does not reach",
                     routine, arg, (int)t->device.device_type);
        return -1;
    }
    if (dl_type_in(t->dtype, &out->type, &out->itemsize) < 0)
        return dl_error(PyExc_TypeError, routine, arg,
                        "has an element type no routine takes");
    if (t->ndim < 0 || t->ndim > 64)
        return dl_error(PyExc_ValueError, routine, arg,
                        "has more than 64 dimensions");
    for (i = 0; i < t->ndim; i++) {
        shape[i] = (Py_ssize_t)t->shape[i];
        if (t->strides)
            strides[i] = (Py_ssize_t)t->strides[i] * (Py_ssize_t)out->itemsize;
        count *= (size_t)shape[i];
    }
    if (!wpy_dims_contig(shape, t->strides ? strides : NULL, t->ndim,
                         out->itemsize))
        return dl_error(PyExc_ValueError, routine, arg,
                        "describes an array that is not contiguous");
    if (readonly && (want & WPY_WRITE))
        return dl_error(PyExc_ValueError, routine, arg,
                        "is read-only; the routine writes it");
    out->addr = (char *)t->data + t->byte_offset;
    out->count = count;
    out->nbytes = count * out->itemsize;
    out->space = space;
    return 0;
}

int wpy_dlpack_import(PyObject *obj, int want, const char *routine,
                      const char *arg, wpy_buf_t *out)
{
    PyObject *fn = PyObject_GetAttrString(obj, "__dlpack__"), *cap;
    const wpy_dl_tensor_t *t;
    long devtype;
    int readonly = 0, rc = 0;

    if (!fn) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();
        return 0;
    }
    cap = call_dlpack(obj, fn, &devtype);
    Py_DECREF(fn);
    if (!cap)
        return -1;
    if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        const wpy_dl_managed_v_t *m =
            PyCapsule_GetPointer(cap, "dltensor_versioned");
        t = &m->dl_tensor;
        readonly = (m->flags & WPY_DL_FLAG_READ_ONLY) != 0;
        if (m->version.major > WPY_DLPACK_MAJOR) {
            Py_DECREF(cap);
            return dl_error(PyExc_BufferError, routine, arg,
                            "gave a DLPack version newer than 1.x");
        }
    } else if (PyCapsule_IsValid(cap, "dltensor")) {
        t = &((const wpy_dl_managed_t *)PyCapsule_GetPointer(cap, "dltensor"))
                 ->dl_tensor;
    } else {
        Py_DECREF(cap);
        return dl_error(PyExc_TypeError, routine, arg,
                        "did not return a DLPack capsule");
    }
    if (read_tensor(t, readonly, want, routine, arg, out) < 0) {
        Py_DECREF(cap);
        return -1;
    }
    /* Asked with the default stream (consumer_stream): the producer ordered
     * its work before it, and the routines are blocking. */
    if ((devtype == WPY_DL_CUDA || devtype == WPY_DL_CUDA_MANAGED ||
         devtype == WPY_DL_ROCM) &&
        wpy_device_backend(NULL) &&
        strcmp(wpy_device_backend(NULL), "mock") != 0) {
        Py_BEGIN_ALLOW_THREADS
        rc = shmemx_stream_synchronize(NULL);
        Py_END_ALLOW_THREADS
    }
    if (rc != 0) {
        Py_DECREF(cap);
        return dl_error(wpy_error, routine, arg,
                        "could not be synchronised with the default stream");
    }
    /* The capsule stays unconsumed (its name unchanged), so its own
     * destructor frees the tensor; the Py_buffer's owner slot holds it
     * until wpy_buf_release (PyBuffer_Release drops the reference; a
     * capsule has no buffer procedures to call). */
    out->view.obj = cap;
    out->has_view = 1;
    return 1;
}
