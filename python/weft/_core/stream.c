/* Placeholder: stream arguments are resolved in this file. */
#include "wpy.h"

int wpy_stream_arg(PyObject *obj, const char *routine, void **stream)
{
    *stream = NULL;
    if (!obj || obj == Py_None)
        return 0;
    PyErr_Format(PyExc_NotImplementedError, "%s: stream= is not supported yet",
                 routine);
    return -1;
}

PyMethodDef wpy_stream_methods[] = {
    {NULL},
};
