/* Device arrays: symmetric allocations in the device heap
 * (shmemx_malloc_device, docs/gpu.md) and views of them, and the
 * resolution of any device array a routine is handed (wpy_buf_get):
 *
 *  - weft._core._DeviceBlock: one device allocation of this PE, recorded
 *    in the symmetric table as WPY_DEVICE; freed explicitly and
 *    collectively, never by the garbage collector (as host blocks);
 *  - weft._core._DeviceArray: shape, strides and element type over a
 *    block, in this PE's view or in the IPC mapping of a peer's heap
 *    (shmem_ptr).  The Python class weft.device.DeviceArray derives from
 *    it and adds indexing and reshaping; the C part holds what the
 *    routines and the exchange protocols read, so that resolving one is a
 *    type check and a few loads.  It exports __cuda_array_interface__
 *    (cuda and hip back ends), __dlpack__ and __dlpack_device__
 *    (dlpack.c), never the buffer protocol: device memory is not host
 *    memory (on the mock it is kept PROT_NONE, and a host load faults);
 *  - foreign objects: anything with __cuda_array_interface__ (CuPy,
 *    PyTorch CUDA tensors, Numba device arrays; foreign.c), then anything
 *    with __dlpack__ alone (dlpack.c). */
#include "args.h"
#include "dlpack.h"

#include <string.h>

/* ---- The back end ---------------------------------------------------------- */

/* Weak: a libweft older than this routine still loads the module, which
 * then sees no device heap (device arrays and streams unavailable). */
#pragma weak shmemx_device_info

static struct {
    int known;        /* asked shmemx_device_info once live */
    const char *name; /* "cuda", "hip", "mock", or NULL: no device heap */
    int device;       /* its ordinal, -1 without */
} backend = {0, NULL, -1};

const char *wpy_device_backend(int *device)
{
    if (!backend.known && wpy_state.live) {
        if (!shmemx_device_info ||
            shmemx_device_info(&backend.name, &backend.device) != 0) {
            backend.name = NULL;
            backend.device = -1;
        }
        backend.known = 1;
    }
    if (device)
        *device = wpy_state.live ? backend.device : -1;
    return wpy_state.live ? backend.name : NULL;
}

int wpy_dl_device(int32_t *type, int32_t *id)
{
    int dev;
    const char *name = wpy_device_backend(&dev);

    if (!name)
        return -1;
    if (strcmp(name, "cuda") == 0)
        *type = WPY_DL_CUDA;
    else if (strcmp(name, "hip") == 0)
        *type = WPY_DL_ROCM;
    else
        *type = WPY_DL_EXT_DEV; /* the mock: memory no host code may touch */
    *id = dev < 0 ? 0 : dev;
    return 0;
}

/* ---- Blocks ----------------------------------------------------------------- */

typedef struct dblock {
    PyObject_HEAD
    char *base;    /* shmemx_malloc_device's pointer; NULL once freed */
    size_t nbytes; /* bytes asked for (at least 1 is allocated) */
} dblock_t;

static PyObject *dblock_repr(PyObject *self)
{
    dblock_t *b = (dblock_t *)self;

    if (!b->base)
        return PyUnicode_FromString("<weft device block (freed)>");
    return PyUnicode_FromFormat("<weft device block of %zu bytes at %p>",
                                b->nbytes, b->base);
}

static PyObject *dblock_get_address(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(((dblock_t *)self)->base);
}

static PyObject *dblock_get_nbytes(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromSize_t(((dblock_t *)self)->nbytes);
}

static PyGetSetDef dblock_getset[] = {
    {"address", dblock_get_address, NULL, "the block's device address (0 once freed)", NULL},
    {"nbytes", dblock_get_nbytes, NULL, "bytes in the block", NULL},
    {NULL},
};

static PyTypeObject dblock_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "weft._core._DeviceBlock",
    .tp_basicsize = sizeof(dblock_t),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One allocation of this PE's device heap (see weft.device.empty).",
    .tp_repr = dblock_repr,
    .tp_getset = dblock_getset,
};

/* ---- Arrays ------------------------------------------------------------------ */

typedef struct darray {
    PyObject_HEAD
    dblock_t *block;     /* owns the memory (a reference) */
    char *addr;          /* first element, in this process's address space */
    Py_ssize_t offset;   /* bytes from the block's start to addr */
    int ndim;
    Py_ssize_t *shape;   /* ndim extents, then ndim strides in bytes */
    Py_ssize_t size;     /* elements */
    size_t itemsize;
    wpy_type_t type;
    PyObject *typestr;   /* the array-interface type string ("<f8") */
    int c_contig, f_contig;
    int peer;            /* -1: this PE's memory; else the PE whose heap
                            addr lies in, through its IPC mapping */
} darray_t;

static PyTypeObject darray_type;

#define DA_STRIDES(a) ((a)->shape + (a)->ndim)

static int is_contig(const darray_t *a, int fortran)
{
    Py_ssize_t want = (Py_ssize_t)a->itemsize;
    int i;

    if (a->size == 0)
        return 1;
    for (i = 0; i < a->ndim; i++) {
        int d = fortran ? i : a->ndim - 1 - i;
        if (a->shape[d] != 1 && DA_STRIDES(a)[d] != want)
            return 0;
        want *= a->shape[d];
    }
    return 1;
}

/* Reads a tuple of ndim Python ints into out. */
static int read_dims(PyObject *seq, const char *what, int ndim,
                     Py_ssize_t *out)
{
    int i;

    if (!PyTuple_Check(seq) || PyTuple_GET_SIZE(seq) != ndim) {
        PyErr_Format(PyExc_ValueError,
                     "weft.device.DeviceArray: %s must be a tuple of %d ints",
                     what, ndim);
        return -1;
    }
    for (i = 0; i < ndim; i++) {
        out[i] = PyNumber_AsSsize_t(PyTuple_GET_ITEM(seq, i),
                                    PyExc_OverflowError);
        if (out[i] == -1 && PyErr_Occurred())
            return -1;
    }
    return 0;
}

/* Checks that every element of the view lies in [origin, origin + cap). */
static int view_in_block(const darray_t *a, size_t cap)
{
    Py_ssize_t lo = 0, hi = 0;
    int i;

    if (a->offset < 0 || (size_t)a->offset > cap)
        return 0;
    if (a->size == 0)
        return 1;
    for (i = 0; i < a->ndim; i++) {
        Py_ssize_t span = (a->shape[i] - 1) * DA_STRIDES(a)[i];
        if (span < 0)
            lo += span;
        else
            hi += span;
    }
    return a->offset + lo >= 0 &&
           (size_t)(a->offset + hi) + a->itemsize <= cap;
}

/* _DeviceArray(block, offset, shape, strides, typestr, peer=None). */
static PyObject *darray_new(PyTypeObject *cls, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"block", "offset", "shape", "strides",
                             "typestr", "peer", NULL};
    PyObject *block, *shape, *strides, *typestr, *peer = Py_None;
    Py_ssize_t offset;
    darray_t *a;
    char *origin;
    int i;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!nO!OU|O:DeviceArray",
                                     kwlist, &dblock_type, &block, &offset,
                                     &PyTuple_Type, &shape, &strides,
                                     &typestr, &peer))
        return NULL;
    if (!((dblock_t *)block)->base) {
        PyErr_SetString(PyExc_ValueError,
                        "weft.device.DeviceArray: the device block was freed "
                        "(weft.free)");
        return NULL;
    }
    a = (darray_t *)cls->tp_alloc(cls, 0);
    if (!a)
        return NULL;
    a->block = (dblock_t *)Py_NewRef(block);
    a->typestr = Py_NewRef(typestr);
    a->offset = offset;
    a->peer = -1;
    a->ndim = (int)PyTuple_GET_SIZE(shape);
    if (wpy_typestr_parse(PyUnicode_AsUTF8(typestr), &a->type,
                          &a->itemsize) < 0) {
        PyErr_Format(PyExc_TypeError,
                     "weft.device.DeviceArray: dtype %R cannot live in "
                     "device memory (native numbers, bools, records)",
                     typestr);
        goto fail;
    }
    a->shape = PyMem_Malloc((size_t)(2 * a->ndim + 1) * sizeof(Py_ssize_t));
    if (!a->shape) {
        PyErr_NoMemory();
        goto fail;
    }
    if (read_dims(shape, "shape", a->ndim, a->shape) < 0)
        goto fail;
    if (strides == Py_None) {
        Py_ssize_t s = (Py_ssize_t)a->itemsize;
        for (i = a->ndim - 1; i >= 0; i--) {
            DA_STRIDES(a)[i] = s;
            s *= a->shape[i];
        }
    } else if (read_dims(strides, "strides", a->ndim, DA_STRIDES(a)) < 0) {
        goto fail;
    }
    a->size = 1;
    for (i = 0; i < a->ndim; i++) {
        if (a->shape[i] < 0 ||
            DA_STRIDES(a)[i] % (Py_ssize_t)a->itemsize != 0) {
            PyErr_Format(PyExc_ValueError,
                         "weft.device.DeviceArray: shape %R / strides %R: "
                         "negative extent, or a stride that is not a "
                         "multiple of the item size %zu",
                         shape, strides, a->itemsize);
            goto fail;
        }
        a->size *= a->shape[i];
    }
    origin = a->block->base;
    if (peer != Py_None) {
        long pe;
        if (wpy_long_arg(peer, "weft.device.DeviceArray", "peer", &pe) < 0 ||
            wpy_check_live("weft.device.DeviceArray") < 0 ||
            wpy_check_pe(pe, wpy_state.n_pes, "weft.device.DeviceArray",
                         "peer") < 0)
            goto fail;
        origin = shmem_ptr(a->block->base, (int)pe);
        if (!origin) {
            PyErr_Format(PyExc_ValueError,
                         "weft.device.DeviceArray: PE %ld's device heap is "
                         "not mapped here (shmem_ptr gives NULL)",
                         pe);
            goto fail;
        }
        a->peer = (int)pe;
    }
    if (!view_in_block(a, a->block->nbytes ? a->block->nbytes : 1)) {
        PyErr_Format(PyExc_ValueError,
                     "weft.device.DeviceArray: offset %zd, shape %R, strides "
                     "%R reach outside the block of %zu bytes",
                     offset, shape, strides, a->block->nbytes);
        goto fail;
    }
    a->addr = origin + offset;
    a->c_contig = is_contig(a, 0);
    a->f_contig = is_contig(a, 1);
    return (PyObject *)a;
fail:
    Py_DECREF(a);
    return NULL;
}

static void darray_dealloc(PyObject *self)
{
    darray_t *a = (darray_t *)self;

    Py_XDECREF(a->block);
    Py_XDECREF(a->typestr);
    PyMem_Free(a->shape);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *dims_tuple(const Py_ssize_t *d, int n)
{
    PyObject *t = PyTuple_New(n);
    int i;

    if (!t)
        return NULL;
    for (i = 0; i < n; i++) {
        PyObject *v = PyLong_FromSsize_t(d[i]);
        if (!v) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

#define A(self) ((darray_t *)(self))

static PyObject *da_ptr(PyObject *s, void *c) { (void)c; return PyLong_FromVoidPtr(A(s)->addr); }
static PyObject *da_shape(PyObject *s, void *c) { (void)c; return dims_tuple(A(s)->shape, A(s)->ndim); }
static PyObject *da_strides(PyObject *s, void *c) { (void)c; return dims_tuple(DA_STRIDES(A(s)), A(s)->ndim); }
static PyObject *da_ndim(PyObject *s, void *c) { (void)c; return PyLong_FromLong(A(s)->ndim); }
static PyObject *da_size(PyObject *s, void *c) { (void)c; return PyLong_FromSsize_t(A(s)->size); }
static PyObject *da_itemsize(PyObject *s, void *c) { (void)c; return PyLong_FromSize_t(A(s)->itemsize); }
static PyObject *da_nbytes(PyObject *s, void *c) { (void)c; return PyLong_FromSize_t((size_t)A(s)->size * A(s)->itemsize); }
static PyObject *da_offset(PyObject *s, void *c) { (void)c; return PyLong_FromSsize_t(A(s)->offset); }
static PyObject *da_typestr(PyObject *s, void *c) { (void)c; return Py_NewRef(A(s)->typestr); }
static PyObject *da_block(PyObject *s, void *c) { (void)c; return Py_NewRef((PyObject *)A(s)->block); }
static PyObject *da_c_contig(PyObject *s, void *c) { (void)c; return PyBool_FromLong(A(s)->c_contig); }
static PyObject *da_f_contig(PyObject *s, void *c) { (void)c; return PyBool_FromLong(A(s)->f_contig); }
static PyObject *da_freed(PyObject *s, void *c) { (void)c; return PyBool_FromLong(!A(s)->block->base); }

static PyObject *da_peer(PyObject *s, void *c)
{
    (void)c;
    if (A(s)->peer < 0)
        Py_RETURN_NONE;
    return PyLong_FromLong(A(s)->peer);
}

/* The __cuda_array_interface__ dictionary (version 3) of a. */
static PyObject *cai_dict(darray_t *a)
{
    PyObject *shape = dims_tuple(a->shape, a->ndim);
    PyObject *strides = a->c_contig ? Py_NewRef(Py_None)
                                    : dims_tuple(DA_STRIDES(a), a->ndim);
    PyObject *d = NULL;

    if (shape && strides)
        /* stream None: the array has no stream work of its own pending
         * (Weft's blocking routines complete before they return). */
        d = Py_BuildValue("{s:N,s:O,s:(NO),s:N,s:i,s:O,s:[(sO)]}",
                          "shape", shape, "typestr", a->typestr, "data",
                          PyLong_FromVoidPtr(a->addr), Py_False, "strides",
                          strides, "version", 3, "stream", Py_None, "descr",
                          "", a->typestr);
    else {
        Py_XDECREF(shape);
        Py_XDECREF(strides);
    }
    return d;
}

static int check_not_freed(darray_t *a, const char *routine)
{
    if (a->block->base)
        return 0;
    PyErr_Format(PyExc_ValueError,
                 "%s: the device array was freed (weft.free)", routine);
    return -1;
}

/* CUDA and HIP frameworks (CuPy, PyTorch and Numba on CUDA, CuPy and
 * PyTorch on ROCm) read __cuda_array_interface__; on the mock the address
 * is no memory such a framework can use, so the attribute is absent there
 * (weft.device.interface(a) gives the dictionary on every back end). */
static PyObject *da_cai(PyObject *s, void *c)
{
    const char *name;

    (void)c;
    if (check_not_freed(A(s), "weft.device.DeviceArray.__cuda_array_interface__") < 0)
        return NULL;
    name = wpy_device_backend(NULL);
    if (!name || (strcmp(name, "cuda") != 0 && strcmp(name, "hip") != 0)) {
        PyErr_Format(PyExc_AttributeError,
                     "__cuda_array_interface__: the device back end is %s, "
                     "not cuda or hip (weft.device.interface(a) gives the "
                     "dictionary anyway)",
                     name ? name : "none");
        return NULL;
    }
    return cai_dict(A(s));
}

static PyGetSetDef darray_getset[] = {
    {"ptr", da_ptr, NULL, "address of the first element (a device address)", NULL},
    {"shape", da_shape, NULL, "extents", NULL},
    {"strides", da_strides, NULL, "strides in bytes", NULL},
    {"ndim", da_ndim, NULL, "number of dimensions", NULL},
    {"size", da_size, NULL, "number of elements", NULL},
    {"itemsize", da_itemsize, NULL, "bytes per element", NULL},
    {"nbytes", da_nbytes, NULL, "size * itemsize", NULL},
    {"offset", da_offset, NULL, "bytes from the block's start to ptr", NULL},
    {"typestr", da_typestr, NULL, "array-interface type string", NULL},
    {"block", da_block, NULL, "the device block that owns the memory", NULL},
    {"peer", da_peer, NULL, "None, or the PE whose device heap this views", NULL},
    {"c_contiguous", da_c_contig, NULL, "C-contiguous", NULL},
    {"f_contiguous", da_f_contig, NULL, "Fortran-contiguous", NULL},
    {"freed", da_freed, NULL, "whether weft.free released the memory", NULL},
    {"__cuda_array_interface__", da_cai, NULL,
     "CUDA array interface, version 3 (cuda and hip back ends)", NULL},
    {NULL},
};

static PyObject *darray_dlpack(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"stream", "max_version", "dl_device", "copy",
                             NULL};
    const char *routine = "weft.device.DeviceArray.__dlpack__";
    PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None,
             *copy = Py_None;
    darray_t *a = A(self);
    int versioned = 0;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$OOO:__dlpack__", kwlist,
                                     &stream, &max_version, &dl_device, &copy))
        return NULL;
    if (check_not_freed(a, routine) < 0 ||
        wpy_dlpack_check_request(routine, stream, max_version, dl_device,
                                 copy, &versioned) < 0)
        return NULL;
    return wpy_dlpack_export(self, a->addr, a->ndim, a->shape,
                             DA_STRIDES(a), a->itemsize, a->type, versioned);
}

static PyObject *darray_dlpack_device(PyObject *self, PyObject *unused)
{
    int32_t type, id;

    (void)self;
    (void)unused;
    if (wpy_dl_device(&type, &id) < 0) {
        PyErr_SetString(PyExc_BufferError,
                        "weft.device.DeviceArray.__dlpack_device__: Weft is "
                        "not live or has no device heap");
        return NULL;
    }
    return Py_BuildValue("(ii)", (int)type, (int)id);
}

static PyMethodDef darray_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))darray_dlpack,
     METH_VARARGS | METH_KEYWORDS,
     "__dlpack__(stream=None, *, max_version=None, dl_device=None, "
     "copy=None) -> PyCapsule: the DLPack export (zero-copy)."},
    {"__dlpack_device__", darray_dlpack_device, METH_NOARGS,
     "__dlpack_device__() -> (device type, device id): kDLCUDA (2) on cuda, "
     "kDLROCM (10) on hip, kDLExtDev (12) on the mock."},
    {NULL},
};

static PyTypeObject darray_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "weft._core._DeviceArray",
    .tp_basicsize = sizeof(darray_t),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The C part of weft.device.DeviceArray.",
    .tp_new = darray_new,
    .tp_dealloc = darray_dealloc,
    .tp_getset = darray_getset,
    .tp_methods = darray_methods,
};

/* ---- Resolving arguments -------------------------------------------------- */

int wpy_is_device_array(PyObject *obj)
{
    return PyObject_TypeCheck(obj, &darray_type);
}

static int own_resolve(darray_t *a, int want, const char *routine,
                       const char *arg, wpy_buf_t *out)
{
    (void)want;
    if (!a->block->base) {
        PyErr_Format(PyExc_ValueError,
                     "%s: argument '%s' is a device array that was freed "
                     "(weft.free)",
                     routine, arg);
        return -1;
    }
    if (!a->c_contig && !a->f_contig) {
        PyObject *shape = dims_tuple(a->shape, a->ndim);
        PyObject *strides = dims_tuple(DA_STRIDES(a), a->ndim);
        if (shape && strides)
            PyErr_Format(PyExc_ValueError,
                         "%s: argument '%s' is a device array of shape %R and "
                         "strides %R, which is not contiguous (pass a "
                         "contiguous view)",
                         routine, arg, shape, strides);
        Py_XDECREF(shape);
        Py_XDECREF(strides);
        return -1;
    }
    out->addr = a->addr;
    out->count = (size_t)a->size;
    out->itemsize = a->itemsize;
    out->nbytes = out->count * a->itemsize;
    out->type = a->type;
    out->space = WPY_DEVICE;
    return 1;
}

int wpy_device_resolve(PyObject *obj, int want, const char *routine,
                       const char *arg, wpy_buf_t *out)
{
    PyObject *cai;
    int r;

    if (PyObject_TypeCheck(obj, &darray_type))
        return own_resolve(A(obj), want, routine, arg, out);
    /* Host arrays (NumPy and everything with the buffer protocol) are the
     * common case: one slot test. */
    if (PyObject_CheckBuffer(obj))
        return 0;
    cai = PyObject_GetAttrString(obj, "__cuda_array_interface__");
    if (cai) {
        r = wpy_cai_resolve(cai, want, routine, arg, out);
        Py_DECREF(cai);
    } else if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
        return -1;
    } else {
        PyErr_Clear();
        r = wpy_dlpack_import(obj, want, routine, arg, out);
    }
    if (r == 1 && out->space == WPY_DEVICE && !wpy_device_backend(NULL)) {
        wpy_buf_release(out);
        PyErr_Format(PyExc_ValueError,
                     "%s: argument '%s' is device memory, and this PE has no "
                     "device back end (SHMEM_DEVICE_BACKEND)",
                     routine, arg);
        return -1;
    }
    return r;
}

/* ---- Module routines -------------------------------------------------- */

/* _device_info() -> (backend, device, dlpack device type), or None. */
static PyObject *py_device_info(PyObject *m, PyObject *unused)
{
    int32_t type, id;
    const char *name;

    (void)m;
    (void)unused;
    if (wpy_check_live("weft.device.info") < 0)
        return NULL;
    name = wpy_device_backend(NULL);
    if (!name || wpy_dl_device(&type, &id) < 0)
        Py_RETURN_NONE;
    return Py_BuildValue("(sii)", name, (int)id, (int)type);
}

/* _device_alloc(nbytes, align=0, clear=False, routine=...): collective. */
static PyObject *py_device_alloc(PyObject *m, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"nbytes", "align", "clear", "routine", NULL};
    const char *routine = "weft.device.empty";
    Py_ssize_t nbytes, align = 0;
    int clear = 0;
    size_t n;
    void *p;
    dblock_t *b;

    (void)m;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "n|nps:_device_alloc", kwlist,
                                     &nbytes, &align, &clear, &routine))
        return NULL;
    if (wpy_check_live(routine) < 0)
        return NULL;
    if (nbytes < 0) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes is negative", routine,
                     nbytes);
        return NULL;
    }
    if (align < 0 || (align & (align - 1)) || align > 256) {
        PyErr_Format(PyExc_ValueError,
                     "%s: argument 'align' = %zd is not a power of two of at "
                     "most 256",
                     routine, align);
        return NULL;
    }
    if (!wpy_device_backend(NULL)) {
        PyErr_Format(wpy_error,
                     "%s: this PE has no device heap (set "
                     "SHMEM_DEVICE_BACKEND=cuda, hip, auto or mock, and "
                     "SHMEM_SYMMETRIC_DEVICE_SIZE above 0)",
                     routine);
        return NULL;
    }
    /* As for host blocks, an array of no elements still gets a distinct
     * symmetric address. */
    n = nbytes ? (size_t)nbytes : 1;
    Py_BEGIN_ALLOW_THREADS
    if (align > 1)
        p = shmemx_align_device((size_t)align, n);
    else if (clear)
        p = shmemx_calloc_device(1, n);
    else
        p = shmemx_malloc_device(n);
    Py_END_ALLOW_THREADS
    if (!p) {
        PyErr_Format(PyExc_MemoryError,
                     "%s: the device heap has no %zd bytes left "
                     "(SHMEM_SYMMETRIC_DEVICE_SIZE sets its size)",
                     routine, nbytes);
        return NULL;
    }
    b = PyObject_New(dblock_t, &dblock_type);
    if (!b)
        return NULL;
    b->base = p;
    b->nbytes = (size_t)nbytes;
    if (wpy_sym_add(p, n, WPY_DEVICE) < 0) {
        Py_DECREF(b);
        return NULL;
    }
    return (PyObject *)b;
}

/* _device_free(array_or_block, routine="weft.free"): collective. */
static PyObject *py_device_free(PyObject *m, PyObject *args)
{
    const char *routine = "weft.free";
    PyObject *obj;
    dblock_t *b;

    (void)m;
    if (!PyArg_ParseTuple(args, "O|s:_device_free", &obj, &routine))
        return NULL;
    if (PyObject_TypeCheck(obj, &darray_type))
        b = A(obj)->block;
    else if (PyObject_TypeCheck(obj, &dblock_type))
        b = (dblock_t *)obj;
    else {
        PyErr_Format(PyExc_TypeError,
                     "%s: argument 'a' is a %s, not a device array", routine,
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    if (!b->base) {
        PyErr_Format(PyExc_ValueError,
                     "%s: argument 'a' (a device array) was already freed",
                     routine);
        return NULL;
    }
    if (wpy_check_live(routine) < 0)
        return NULL;
    wpy_sym_remove(b->base);
    Py_BEGIN_ALLOW_THREADS
    shmem_free(b->base);
    Py_END_ALLOW_THREADS
    b->base = NULL;
    Py_RETURN_NONE;
}

/* _device_interface(a) -> the __cuda_array_interface__ dict, any back end. */
static PyObject *py_device_interface(PyObject *m, PyObject *obj)
{
    (void)m;
    if (!PyObject_TypeCheck(obj, &darray_type)) {
        PyErr_Format(PyExc_TypeError,
                     "weft.device.interface: argument 'a' is a %s, not a "
                     "weft device array",
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    if (check_not_freed(A(obj), "weft.device.interface") < 0)
        return NULL;
    return cai_dict(A(obj));
}

/* _device_mapped(a, pe) -> whether pe's device heap is mapped here
 * (shmem_ptr on a's block gives an address): weft.device.ptr. */
static PyObject *py_device_mapped(PyObject *m, PyObject *args)
{
    const char *routine = "weft.device.ptr";
    PyObject *obj;
    long pe;

    (void)m;
    if (!PyArg_ParseTuple(args, "O!l:_device_mapped", &darray_type, &obj,
                          &pe) ||
        wpy_check_live(routine) < 0 ||
        check_not_freed(A(obj), routine) < 0 ||
        wpy_check_pe(pe, wpy_state.n_pes, routine, "pe") < 0)
        return NULL;
    return PyBool_FromLong(shmem_ptr(A(obj)->block->base, (int)pe) != NULL);
}

/* _device_copy(dest, source, routine): dest <- source, whole, blocking;
 * either side device memory (an array of this module or a foreign one),
 * the other host or device memory. */
static PyObject *py_device_copy(PyObject *m, PyObject *args)
{
    const char *routine;
    PyObject *dobj, *sobj;
    wpy_buf_t d, s;
    int rc = 0;

    (void)m;
    if (!PyArg_ParseTuple(args, "OOs:_device_copy", &dobj, &sobj, &routine))
        return NULL;
    if (wpy_check_live(routine) < 0 ||
        wpy_buf_get(dobj, WPY_WRITE, routine, "dest", &d) < 0)
        return NULL;
    if (wpy_buf_get(sobj, WPY_READ, routine, "source", &s) < 0)
        goto out;
    if (d.nbytes != s.nbytes) {
        PyErr_Format(PyExc_ValueError,
                     "%s: argument 'dest' has %zu bytes, argument 'source' "
                     "%zu: they must be the same",
                     routine, d.nbytes, s.nbytes);
        goto out_s;
    }
    if (d.space != WPY_DEVICE && s.space != WPY_DEVICE) {
        PyErr_Format(PyExc_ValueError,
                     "%s: neither 'dest' nor 'source' is device memory",
                     routine);
        goto out_s;
    }
    if (d.nbytes) {
        Py_BEGIN_ALLOW_THREADS
        rc = shmemx_memcpy_on_stream(d.addr, s.addr, d.nbytes, NULL);
        if (rc == 0)
            rc = shmemx_stream_synchronize(NULL);
        Py_END_ALLOW_THREADS
    }
    if (rc != 0)
        PyErr_Format(wpy_error, "%s: the device copy of %zu bytes failed",
                     routine, d.nbytes);
out_s:
    wpy_buf_release(&s);
out:
    wpy_buf_release(&d);
    if (PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
}

PyMethodDef wpy_device_methods[] = {
    {"_device_info", py_device_info, METH_NOARGS,
     "_device_info() -> (backend, device id, DLPack device type) or None."},
    {"_device_alloc", (PyCFunction)(void (*)(void))py_device_alloc,
     METH_VARARGS | METH_KEYWORDS,
     "_device_alloc(nbytes, align=0, clear=False, routine=...) -> device "
     "block (collective)."},
    {"_device_free", py_device_free, METH_VARARGS,
     "_device_free(a, routine='weft.free'): frees a device array's block "
     "(collective)."},
    {"_device_interface", py_device_interface, METH_O,
     "_device_interface(a) -> a's __cuda_array_interface__ dictionary."},
    {"_device_mapped", py_device_mapped, METH_VARARGS,
     "_device_mapped(a, pe) -> whether pe's device heap is mapped here."},
    {"_device_copy", py_device_copy, METH_VARARGS,
     "_device_copy(dest, source, routine): blocking copy of equal sizes, "
     "either side device memory."},
    {NULL},
};

int wpy_device_add_types(PyObject *module)
{
    if (PyType_Ready(&dblock_type) < 0 || PyType_Ready(&darray_type) < 0)
        return -1;
    if (PyModule_AddObjectRef(module, "_DeviceBlock",
                              (PyObject *)&dblock_type) < 0 ||
        PyModule_AddObjectRef(module, "_DeviceArray",
                              (PyObject *)&darray_type) < 0)
        return -1;
    return wpy_stream_add_types(module);
}
