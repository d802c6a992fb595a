/* Argument parsing shared by the routines (args.h). */
#include "args.h"

#include <string.h>

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
                     "%s: argument '%s' is a %s, not an integer", routine, arg,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    v = PyLong_AsLong(obj);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_OverflowError,
                     "%s: argument '%s' does not fit a C long", routine, arg);
        return -1;
    }
    *out = v;
    return 0;
}
