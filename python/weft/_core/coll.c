/* Collectives (OpenSHMEM 1.6 section "Collective Routines"). */
#include "args.h"

static PyObject *py_barrier_all(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    if (wpy_check_live("weft.barrier_all") < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    shmem_barrier_all();
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static PyObject *py_sync_all(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    if (wpy_check_live("weft.sync_all") < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    shmem_sync_all();
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

PyMethodDef wpy_coll_methods[] = {
    {"barrier_all", py_barrier_all, METH_NOARGS,
     "barrier_all(): quiet, then wait for every PE."},
    {"sync_all", py_sync_all, METH_NOARGS, "sync_all(): wait for every PE."},
    {NULL},
};
