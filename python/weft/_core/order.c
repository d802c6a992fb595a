/* Memory ordering (OpenSHMEM 1.6 section "Memory Ordering Routines"):
 * fence, quiet and pe_quiet, on the default context or ctx=. */
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
    static const char *const names[] = {"ctx", NULL};
    PyObject *slot[1] = {NULL};
    shmem_ctx_t ctx;
    int npes;

    (void)m;
    if (wpy_parse("weft.quiet", args, nargs, kwnames, names, 0, slot) < 0 ||
        wpy_check_live("weft.quiet") < 0 ||
        wpy_ctx_arg(slot[0], "weft.quiet", &ctx, &npes) < 0)
        return NULL;
    shmem_ctx_quiet(ctx);
    Py_RETURN_NONE;
}

PyMethodDef wpy_order_methods[] = {
    {"fence", (PyCFunction)(void (*)(void))py_fence, WPY_FASTKW,
     "fence(ctx=None): orders the puts, AMOs and stores to each PE."},
    {"quiet", (PyCFunction)(void (*)(void))py_quiet, WPY_FASTKW,
     "quiet(ctx=None): completes every put, get and AMO issued."},
    {NULL},
};
