/* Memory ordering (OpenSHMEM 1.6 section "Memory Ordering Routines"):
 * fence, quiet and pe_quiet, on the default context or ctx=; quiet with
 * stream= is shmemx_quiet_on_stream. */
#include "args.h"

static PyObject *py_fence(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames)
{
    static const char *const names[] = {"ctx", NULL};
    PyObject *slot[1] = {NULL};
    shmem_ctx_t ctx;
    int npes;

    (void)m;
    if (wpy_parse("weft.fence", args, nargs, kwnames, names, 0, slot) < 0 ||
        wpy_check_live("weft.fence") < 0 ||
        wpy_ctx_arg(slot[0], "weft.fence", &ctx, &npes) < 0)
        return NULL;
    shmem_ctx_fence(ctx);
    Py_RETURN_NONE;
}

static PyObject *py_quiet(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames)
{
    static const char *const names[] = {"ctx", "stream", NULL};
    const char *routine = "weft.quiet";
    PyObject *slot[2] = {NULL, NULL};
    shmem_ctx_t ctx;
    void *stream = NULL;
    int npes, rs;

    (void)m;
    if (wpy_parse(routine, args, nargs, kwnames, names, 0, slot) < 0 ||
        wpy_check_live(routine) < 0 ||
        wpy_ctx_arg(slot[0], routine, &ctx, &npes) < 0)
        return NULL;
    rs = wpy_stream_arg(slot[1], routine, &stream);
    if (rs < 0)
        return NULL;
    if (rs) {
        if (wpy_given(slot[0])) {
            PyErr_Format(PyExc_ValueError,
                         "%s: give 'ctx' or 'stream', not both "
                         "(stream-ordered routines run on the default "
                         "context)",
                         routine);
            return NULL;
        }
        shmemx_quiet_on_stream(stream);
        Py_RETURN_NONE;
    }
    shmem_ctx_quiet(ctx);
    Py_RETURN_NONE;
}

/* pe_quiet(pes, ctx=None): completes the operations issued to the PEs
 * listed (a sequence of ints, or an int32 array). */
static PyObject *py_pe_quiet(PyObject *m, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"pes", "ctx", NULL};
    const char *routine = "weft.pe_quiet";
    PyObject *slot[2] = {NULL, NULL}, *seq;
    shmem_ctx_t ctx;
    Py_ssize_t i, n;
    int npes, *pes;

    (void)m;
    if (wpy_parse(routine, args, nargs, kwnames, names, 1, slot) < 0 ||
        wpy_check_live(routine) < 0 ||
        wpy_ctx_arg(slot[1], routine, &ctx, &npes) < 0)
        return NULL;
    if (!PySequence_Check(slot[0]))
        seq = PyTuple_Pack(1, slot[0]); /* one PE */
    else
        seq = PySequence_Fast(slot[0], "");
    if (!seq) {
        PyErr_Format(PyExc_TypeError,
                     "%s: argument 'pes' = %R is not a sequence of PE "
                     "numbers",
                     routine, slot[0]);
        return NULL;
    }
    n = PySequence_Fast_GET_SIZE(seq);
    pes = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(int));
    if (!pes) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (i = 0; i < n; i++)
        if (wpy_pe_arg(PySequence_Fast_GET_ITEM(seq, i), npes, routine,
                       "pes", &pes[i]) < 0) {
            PyMem_Free(pes);
            Py_DECREF(seq);
            return NULL;
        }
    Py_DECREF(seq);
    Py_BEGIN_ALLOW_THREADS
    shmem_ctx_pe_quiet(ctx, pes, (size_t)n);
    Py_END_ALLOW_THREADS
    PyMem_Free(pes);
    Py_RETURN_NONE;
}

PyMethodDef wpy_order_methods[] = {
    {"fence", (PyCFunction)(void (*)(void))py_fence, WPY_FASTKW,
     "fence(ctx=None): orders the puts, AMOs and stores to each PE."},
    {"quiet", (PyCFunction)(void (*)(void))py_quiet, WPY_FASTKW,
     "quiet(ctx=None, stream=None): completes every put, get and AMO "
     "issued (with stream=: those enqueued on the stream before it)."},
    {"pe_quiet", (PyCFunction)(void (*)(void))py_pe_quiet, WPY_FASTKW,
     "pe_quiet(pes, ctx=None): completes the puts, gets and AMOs issued to "
     "the PEs listed."},
    {NULL},
};
