/* Streams (docs/gpu.md, "Stream-ordered communication"; docs/python-gpu.md):
 *
 *  - wpy_stream_arg, the stream= argument of every routine that has a
 *    shmemx_*_on_stream form: None (the routine runs now, on the host), an
 *    int handle, a weft.Stream, or a framework's stream object (CuPy's
 *    .ptr, PyTorch's .cuda_stream, Numba's .handle, the __cuda_stream__
 *    protocol of CUDA Python);
 *  - weft.Stream, the back end's own streams (shmemx_stream_create:
 *    cudaStream_t, hipStream_t, the mock's in-order host queue), for
 *    programs without a GPU framework, usable in a `with` block;
 *  - stream_create/_destroy/_synchronize, memcpy_on_stream and
 *    host_func_on_stream.
 *
 * Whatever may wait for a stream (synchronize, destroy) runs with the GIL
 * released: a Python host function on that stream needs the GIL to run. */
#include "args.h"

typedef struct stream {
    PyObject_HEAD
    void *handle;  /* the back end's stream */
    int destroyed; /* destroy() was called (or the `with` block ended) */
} stream_t;

static PyTypeObject stream_type;

/* ---- Handles from stream objects ------------------------------------------ */

static int stream_error(PyObject *exc, const char *routine, PyObject *obj,
                        const char *what)
{
    PyErr_Format(exc, "%s: argument 'stream' = %R %s", routine, obj, what);
    return -1;
}

/* An int, a ctypes c_void_p (.value; None for NULL) or an object with
 * __int__ (CUDA Python's CUstream) as a handle. */
static int handle_value(PyObject *v, const char *routine, PyObject *obj,
                        void **out)
{
    PyObject *n = NULL;
    unsigned long long h;

    if (PyLong_Check(v) && !PyBool_Check(v)) {
        n = Py_NewRef(v);
    } else if (!PyFloat_Check(v) && !PyUnicode_Check(v) &&
               !PyBool_Check(v)) {
        PyObject *value = PyObject_GetAttrString(v, "value");
        if (value && value == Py_None) {
            Py_DECREF(value);
            *out = NULL;
            return 0;
        }
        if (value && PyLong_Check(value)) {
            n = value;
        } else {
            Py_XDECREF(value);
            PyErr_Clear();
            if (Py_TYPE(v)->tp_as_number && Py_TYPE(v)->tp_as_number->nb_int)
                n = PyNumber_Long(v);
            if (!n)
                PyErr_Clear();
        }
    }
    if (!n)
        return stream_error(PyExc_TypeError, routine, obj,
                            "has a stream handle that is not an integer");
    if (PyLong_AsLongLong(n) < 0 && !PyErr_Occurred()) {
        Py_DECREF(n);
        return stream_error(PyExc_ValueError, routine, obj,
                            "is a negative stream handle");
    }
    PyErr_Clear(); /* above LLONG_MAX: may still fit unsigned */
    h = PyLong_AsUnsignedLongLong(n);
    Py_DECREF(n);
    if (h == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return stream_error(PyExc_ValueError, routine, obj,
                            "does not fit a pointer");
    }
    *out = (void *)(uintptr_t)h;
    return 0;
}

/* The frameworks' spellings of "the native handle", in the order tried:
 * CUDA Python's protocol (a method returning (version, handle)), CuPy,
 * PyTorch, Numba. */
static int foreign_stream(PyObject *obj, const char *routine, void **out)
{
    static const char *const attrs[] = {"ptr", "cuda_stream", "handle", NULL};
    PyObject *v = PyObject_GetAttrString(obj, "__cuda_stream__");
    int i, r;

    if (v) {
        PyObject *t = PyCallable_Check(v) ? PyObject_CallNoArgs(v)
                                          : Py_NewRef(v);
        Py_DECREF(v);
        if (!t)
            return -1;
        if (PyTuple_Check(t) && PyTuple_GET_SIZE(t) == 2)
            r = handle_value(PyTuple_GET_ITEM(t, 1), routine, obj, out);
        else
            r = handle_value(t, routine, obj, out);
        Py_DECREF(t);
        return r;
    }
    PyErr_Clear();
    for (i = 0; attrs[i]; i++) {
        v = PyObject_GetAttrString(obj, attrs[i]);
        if (v) {
            r = handle_value(v, routine, obj, out);
            Py_DECREF(v);
            return r;
        }
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();
    }
    return stream_error(PyExc_TypeError, routine, obj,
                        "is not a stream (None, an int handle, a "
                        "weft.Stream, or a CuPy, PyTorch or Numba stream)");
}

int wpy_stream_arg(PyObject *obj, const char *routine, void **stream)
{
    *stream = NULL;
    if (!obj || obj == Py_None)
        return 0;
    if (PyObject_TypeCheck(obj, &stream_type)) {
        stream_t *s = (stream_t *)obj;
        if (s->destroyed)
            return stream_error(PyExc_ValueError, routine, obj,
                                "was destroyed");
        *stream = s->handle;
    } else if (PyLong_Check(obj) && !PyBool_Check(obj)) {
        if (handle_value(obj, routine, obj, stream) < 0)
            return -1;
    } else if (PyBool_Check(obj) || PyFloat_Check(obj) ||
               PyUnicode_Check(obj)) {
        return stream_error(PyExc_TypeError, routine, obj,
                            "is not a stream (None, an int handle, a "
                            "weft.Stream, or a CuPy, PyTorch or Numba "
                            "stream)");
    } else if (foreign_stream(obj, routine, stream) < 0) {
        return -1;
    }
    if (wpy_check_live(routine) < 0)
        return -1;
    if (!wpy_device_backend(NULL))
        return stream_error(PyExc_ValueError, routine, obj,
                            "cannot be used: this PE has no device back "
                            "end (SHMEM_DEVICE_BACKEND), which "
                            "stream-ordered routines need");
    return 1;
}

int wpy_stream_need_device(PyObject *obj, const wpy_buf_t *buf,
                           int symmetric, const char *routine,
                           const char *arg)
{
    const char *what = NULL;

    if (buf->nbytes == 0)
        return 0;
    if (symmetric && wpy_sym_space(buf->addr, buf->nbytes) != WPY_DEVICE)
        what = "is not in the device heap; with stream= a symmetric "
               "argument must be a weft.device array";
    else if (buf->space != WPY_DEVICE)
        what = "is host memory; with stream= every buffer must be device "
               "memory (weft.device arrays, CuPy, PyTorch or Numba device "
               "arrays)";
    if (!what)
        return 0;
    PyErr_Format(PyExc_ValueError, "%s: argument '%s' = <%s object> %s",
                 routine, arg, Py_TYPE(obj)->tp_name, what);
    return -1;
}

/* ---- weft.Stream ------------------------------------------------------ */

static int need_backend(const char *routine)
{
    if (wpy_check_live(routine) < 0)
        return -1;
    if (wpy_device_backend(NULL))
        return 0;
    PyErr_Format(wpy_error,
                 "%s: this PE has no device back end (SHMEM_DEVICE_BACKEND): "
                 "streams need one",
                 routine);
    return -1;
}

static PyObject *stream_new(PyTypeObject *cls, PyObject *args, PyObject *kw)
{
    const char *routine = "weft.Stream";
    void *h = NULL;
    stream_t *s;
    int rc;

    if (!PyArg_ParseTuple(args, ":Stream") ||
        (kw && PyDict_GET_SIZE(kw))) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "weft.Stream: takes no arguments");
        return NULL;
    }
    if (need_backend(routine) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = shmemx_stream_create(&h);
    Py_END_ALLOW_THREADS
    if (rc != 0) {
        PyErr_Format(wpy_error, "%s: shmemx_stream_create returned %d",
                     routine, rc);
        return NULL;
    }
    s = (stream_t *)cls->tp_alloc(cls, 0);
    if (!s) {
        shmemx_stream_destroy(h);
        return NULL;
    }
    s->handle = h;
    s->destroyed = 0;
    return (PyObject *)s;
}

/* Destroys s's stream (after its work: the library waits for it). */
static int stream_do_destroy(stream_t *s, const char *routine)
{
    int rc;

    if (s->destroyed) {
        PyErr_Format(PyExc_ValueError, "%s: the stream was already destroyed",
                     routine);
        return -1;
    }
    if (wpy_check_live(routine) < 0)
        return -1;
    s->destroyed = 1;
    Py_BEGIN_ALLOW_THREADS
    rc = shmemx_stream_destroy(s->handle);
    Py_END_ALLOW_THREADS
    if (rc != 0) {
        PyErr_Format(wpy_error, "%s: shmemx_stream_destroy returned %d",
                     routine, rc);
        return -1;
    }
    return 0;
}

static int stream_do_sync(void *handle, const char *routine)
{
    int rc;

    Py_BEGIN_ALLOW_THREADS
    rc = shmemx_stream_synchronize(handle);
    Py_END_ALLOW_THREADS
    if (rc == 0)
        return 0;
    PyErr_Format(wpy_error,
                 "%s: shmemx_stream_synchronize returned %d (work on the "
                 "stream failed)",
                 routine, rc);
    return -1;
}

/* A stream Python no longer refers to is destroyed, as CuPy's are; after
 * weft.finalize the library has released it already. */
static void stream_dealloc(PyObject *self)
{
    stream_t *s = (stream_t *)self;

    if (!s->destroyed && wpy_state.live) {
        s->destroyed = 1;
        Py_BEGIN_ALLOW_THREADS
        shmemx_stream_destroy(s->handle);
        Py_END_ALLOW_THREADS
    }
    Py_TYPE(self)->tp_free(self);
}

static PyObject *stream_repr(PyObject *self)
{
    stream_t *s = (stream_t *)self;

    if (s->destroyed)
        return PyUnicode_FromString("<weft.Stream (destroyed)>");
    return PyUnicode_FromFormat("<weft.Stream %p>", s->handle);
}

static PyObject *stream_get_handle(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromVoidPtr(((stream_t *)self)->handle);
}

static PyObject *stream_get_destroyed(PyObject *self, void *c)
{
    (void)c;
    return PyBool_FromLong(((stream_t *)self)->destroyed);
}

static PyObject *stream_m_sync(PyObject *self, PyObject *unused)
{
    const char *routine = "weft.Stream.synchronize";
    stream_t *s = (stream_t *)self;

    (void)unused;
    if (s->destroyed)
        return PyErr_Format(PyExc_ValueError,
                            "%s: the stream was destroyed", routine);
    if (wpy_check_live(routine) < 0 || stream_do_sync(s->handle, routine) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *stream_m_destroy(PyObject *self, PyObject *unused)
{
    (void)unused;
    if (stream_do_destroy((stream_t *)self, "weft.Stream.destroy") < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *stream_enter(PyObject *self, PyObject *unused)
{
    (void)unused;
    if (((stream_t *)self)->destroyed)
        return PyErr_Format(PyExc_ValueError,
                            "weft.Stream.__enter__: the stream was destroyed");
    return Py_NewRef(self);
}

/* Leaving the block waits for the stream's work and destroys it. */
static PyObject *stream_exit(PyObject *self, PyObject *args)
{
    stream_t *s = (stream_t *)self;

    (void)args;
    if (s->destroyed || !wpy_state.live)
        Py_RETURN_FALSE;
    if (stream_do_sync(s->handle, "weft.Stream.__exit__") < 0 ||
        stream_do_destroy(s, "weft.Stream.__exit__") < 0)
        return NULL;
    Py_RETURN_FALSE;
}

static PyGetSetDef stream_getset[] = {
    {"ptr", stream_get_handle, NULL, "the back end's stream handle (as CuPy's .ptr)", NULL},
    {"handle", stream_get_handle, NULL, "the back end's stream handle", NULL},
    {"destroyed", stream_get_destroyed, NULL, "whether destroy() was called", NULL},
    {NULL},
};

static PyMethodDef stream_methods[] = {
    {"synchronize", stream_m_sync, METH_NOARGS,
     "synchronize(): waits until the work enqueued on the stream is done."},
    {"destroy", stream_m_destroy, METH_NOARGS,
     "destroy(): releases the stream once its work is done."},
    {"__enter__", stream_enter, METH_NOARGS, NULL},
    {"__exit__", stream_exit, METH_VARARGS,
     "synchronizes and destroys the stream."},
    {NULL},
};

static PyTypeObject stream_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "weft.Stream",
    .tp_basicsize = sizeof(stream_t),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Stream(): a stream of the device back end (shmemx_stream_"
              "create): cudaStream_t on cuda, hipStream_t on hip, an "
              "in-order host queue on the mock.  Pass it as stream=; a "
              "`with` block synchronizes and destroys it at its end.",
    .tp_new = stream_new,
    .tp_dealloc = stream_dealloc,
    .tp_repr = stream_repr,
    .tp_getset = stream_getset,
    .tp_methods = stream_methods,
};

/* ---- Host functions ----------------------------------------------------- */

/* Runs on the back end's thread (the mock's stream worker, CUDA's and
 * HIP's callback thread): takes the GIL, calls, drops the reference. */
static void host_call(void *arg)
{
    PyObject *fn = arg, *r;
    PyGILState_STATE g;

    if (!Py_IsInitialized())
        return;
    g = PyGILState_Ensure();
    r = PyObject_CallNoArgs(fn);
    if (!r)
        PyErr_WriteUnraisable(fn);
    Py_XDECREF(r);
    Py_DECREF(fn);
    PyGILState_Release(g);
}

/* Only drops the reference: keeps objects whose memory queued work uses
 * alive until the stream has passed that work. */
static void host_release(void *arg)
{
    PyGILState_STATE g;

    if (!Py_IsInitialized())
        return;
    g = PyGILState_Ensure();
    Py_DECREF((PyObject *)arg);
    PyGILState_Release(g);
}

/* Enqueues fn(obj) on stream, a reference to obj moving to the stream. */
static int enqueue_host(void *stream, void (*fn)(void *), PyObject *obj,
                        const char *routine)
{
    int rc;

    Py_INCREF(obj);
    rc = shmemx_host_func_on_stream(stream, fn, obj);
    if (rc == 0)
        return 0;
    Py_DECREF(obj);
    PyErr_Format(wpy_error, "%s: shmemx_host_func_on_stream returned %d",
                 routine, rc);
    return -1;
}

/* Whether the memory of obj may go away while stream work still uses it:
 * anything but a weft device array (freed only by the collective
 * weft.free) may be reclaimed by its owner as soon as Python drops it. */
static int needs_keeping(PyObject *obj)
{
    return !wpy_is_device_array(obj);
}

/* ---- Module routines -------------------------------------------------- */

static PyObject *py_stream_create(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    return PyObject_CallNoArgs((PyObject *)&stream_type);
}

static PyObject *py_stream_destroy(PyObject *m, PyObject *obj)
{
    const char *routine = "weft.stream_destroy";

    (void)m;
    if (!PyObject_TypeCheck(obj, &stream_type)) {
        stream_error(PyExc_TypeError, routine, obj,
                     "is not a weft.Stream (destroy other frameworks' "
                     "streams with their own calls)");
        return NULL;
    }
    if (stream_do_destroy((stream_t *)obj, routine) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *py_stream_synchronize(PyObject *m, PyObject *const *args,
                                       Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"stream", NULL};
    const char *routine = "weft.stream_synchronize";
    PyObject *slot[1] = {NULL};
    void *stream;

    (void)m;
    if (wpy_parse(routine, args, nargs, kwnames, names, 0, slot) < 0 ||
        wpy_stream_arg(slot[0], routine, &stream) < 0 ||
        need_backend(routine) < 0 || stream_do_sync(stream, routine) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* memcpy_on_stream(dest, source, stream=None, nbytes=None). */
static PyObject *py_memcpy_on_stream(PyObject *m, PyObject *const *args,
                                     Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"dest", "source", "stream", "nbytes",
                                        NULL};
    const char *routine = "weft.memcpy_on_stream";
    PyObject *slot[4] = {NULL, NULL, NULL, NULL}, *keep = NULL;
    size_t nbytes = (size_t)-1;
    wpy_buf_t d, s;
    void *stream;
    int rc;

    (void)m;
    if (wpy_parse(routine, args, nargs, kwnames, names, 2, slot) < 0 ||
        wpy_stream_arg(slot[2], routine, &stream) < 0 ||
        need_backend(routine) < 0 ||
        wpy_size_arg(slot[3], routine, "nbytes", &nbytes) < 0 ||
        wpy_buf_get(slot[0], WPY_WRITE, routine, "dest", &d) < 0)
        return NULL;
    if (wpy_buf_get(slot[1], WPY_READ, routine, "source", &s) < 0) {
        wpy_buf_release(&d);
        return NULL;
    }
    if (nbytes == (size_t)-1)
        nbytes = s.nbytes;
    if (nbytes > d.nbytes || nbytes > s.nbytes) {
        PyErr_Format(PyExc_ValueError,
                     "%s: argument 'nbytes' = %zu is more than %s holds (%zu "
                     "bytes)",
                     routine, nbytes, nbytes > d.nbytes ? "'dest'" : "'source'",
                     nbytes > d.nbytes ? d.nbytes : s.nbytes);
        goto out;
    }
    if (nbytes && d.space != WPY_DEVICE && s.space != WPY_DEVICE) {
        PyErr_Format(PyExc_ValueError,
                     "%s: neither 'dest' nor 'source' is device memory",
                     routine);
        goto out;
    }
    if (nbytes == 0)
        goto out;
    Py_BEGIN_ALLOW_THREADS
    rc = shmemx_memcpy_on_stream(d.addr, s.addr, nbytes, stream);
    Py_END_ALLOW_THREADS
    if (rc != 0) {
        PyErr_Format(wpy_error, "%s: shmemx_memcpy_on_stream returned %d",
                     routine, rc);
        goto out;
    }
    /* The copy runs later: keep host and foreign memory alive until the
     * stream has passed it. */
    if (needs_keeping(slot[0]) || needs_keeping(slot[1])) {
        keep = PyTuple_Pack(2, slot[0], slot[1]);
        if (keep)
            enqueue_host(stream, host_release, keep, routine);
        Py_XDECREF(keep);
    }
out:
    wpy_buf_release(&s);
    wpy_buf_release(&d);
    if (PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
}

/* host_func_on_stream(stream, fn): fn() runs once the stream reaches it. */
static PyObject *py_host_func_on_stream(PyObject *m, PyObject *const *args,
                                        Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"stream", "fn", NULL};
    const char *routine = "weft.host_func_on_stream";
    PyObject *slot[2] = {NULL, NULL};
    void *stream;

    (void)m;
    if (wpy_parse(routine, args, nargs, kwnames, names, 2, slot) < 0 ||
        wpy_stream_arg(slot[0], routine, &stream) < 0 ||
        need_backend(routine) < 0)
        return NULL;
    if (!PyCallable_Check(slot[1])) {
        PyErr_Format(PyExc_TypeError,
                     "%s: argument 'fn' = %R is not callable", routine,
                     slot[1]);
        return NULL;
    }
    if (enqueue_host(stream, host_call, slot[1], routine) < 0)
        return NULL;
    Py_RETURN_NONE;
}

PyMethodDef wpy_stream_methods[] = {
    {"stream_create", py_stream_create, METH_NOARGS,
     "stream_create() -> Stream: a stream of the device back end."},
    {"stream_destroy", py_stream_destroy, METH_O,
     "stream_destroy(stream): destroys a weft.Stream once its work is done."},
    {"stream_synchronize", (PyCFunction)(void (*)(void))py_stream_synchronize,
     WPY_FASTKW,
     "stream_synchronize(stream=None): waits for the stream's work (None: "
     "the default stream)."},
    {"memcpy_on_stream", (PyCFunction)(void (*)(void))py_memcpy_on_stream,
     WPY_FASTKW,
     "memcpy_on_stream(dest, source, stream=None, nbytes=None): enqueues a "
     "copy of nbytes (default: all of source); either side device memory."},
    {"host_func_on_stream", (PyCFunction)(void (*)(void))py_host_func_on_stream,
     WPY_FASTKW,
     "host_func_on_stream(stream, fn): fn() runs (holding the GIL, on the "
     "back end's thread) once the stream reaches it."},
    {NULL},
};

int wpy_stream_add_types(PyObject *module)
{
    if (PyType_Ready(&stream_type) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "Stream", (PyObject *)&stream_type);
}
