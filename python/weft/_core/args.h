/* Argument parsing for METH_FASTCALL | METH_KEYWORDS routines: positional
 * and keyword arguments into one array of slots, without building a tuple
 * or dict (the calls on the data path parse in tens of nanoseconds). */
#ifndef WPY_ARGS_H
#define WPY_ARGS_H

#include "wpy.h"

/* Fills slot[i] with the argument named names[i] (names ends with NULL),
 * given by position or keyword; slots not given are left as they were
 * (NULL, or a default the caller set).  The first `required` must be
 * given.  Returns 0, or -1 with a TypeError naming the routine. */
int wpy_parse(const char *routine, PyObject *const *args, Py_ssize_t nargs,
              PyObject *kwnames, const char *const *names, int required,
              PyObject **slot);

/* A Python int as a C long / int64 / uint64, with a TypeError naming the
 * routine and argument. */
int wpy_long_arg(PyObject *obj, const char *routine, const char *arg,
                 long *out);

#endif
