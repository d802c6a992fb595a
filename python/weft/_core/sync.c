/* Point-to-point synchronization (OpenSHMEM 1.6 section "Point-to-Point
 * Synchronization Routines"): wait_until and test, their _all, _any and
 * _some forms and the _vector forms of those, in shmem4py's argument order
 * (ivars, cmp, value(s), status=None).  Typed by the variables' dtype
 * through the generated table (typed_gen.h).
 *
 * A wait releases the GIL while it blocks.  wait_until first tests once
 * with the GIL held: a variable already set (a ping-pong's common case
 * once the peer is ahead) returns without the cost of handing the GIL
 * over and taking it back. */
#include "args.h"

#include <stdlib.h>
#include <string.h>

/* What a form returns. */
enum sync_ret {
    RET_NONE,  /* wait_until, wait_until_all(_vector) */
    RET_BOOL,  /* test, test_all(_vector) */
    RET_INDEX, /* _any: an index, or None when none */
    RET_LIST,  /* _some: the indices */
};

/* One Python routine of the family. */
typedef struct sync_form {
    const char *routine; /* "weft.wait_until_any" */
    const char *cname;   /* "shmem_wait_until_any" */
    int op;              /* WPY_SYNC_* */
    int multi;           /* takes an array of variables and status= */
    int vector;          /* compares with an array of values */
    int waits;           /* blocks: releases the GIL */
    enum sync_ret ret;
} sync_form_t;

/* The status= argument: NULL for None, else nelems C ints (the caller's
 * int32 array itself, or a copy of a sequence, in *copy). */
static int status_arg(PyObject *obj, size_t nelems, const sync_form_t *f,
                      wpy_buf_t *buf, int **copy, const int **status)
{
    PyObject *seq;
    Py_ssize_t i, n;

    *status = NULL;
    *copy = NULL;
    if (!wpy_given(obj))
        return 0;
    if (PyObject_CheckBuffer(obj)) {
        if (wpy_buf_get(obj, WPY_READ, f->routine, "status", buf) < 0)
            return -1;
        if (buf->type != WPY_T_INT32 || buf->itemsize != sizeof(int)) {
            PyErr_Format(PyExc_TypeError,
                         "%s: argument 'status' has dtype %s; it must be "
                         "int32 (C int), or a sequence of ints",
                         f->routine, wpy_type_name(buf->type));
            return -1;
        }
        if (buf->count < nelems) {
            PyErr_Format(PyExc_ValueError,
                         "%s: argument 'status' holds %zu elements, fewer "
                         "than the %zu of 'ivars'",
                         f->routine, buf->count, nelems);
            return -1;
        }
        *status = (const int *)buf->addr;
        return 0;
    }
    seq = PySequence_Fast(obj, "");
    if (!seq) {
        PyErr_Format(PyExc_TypeError,
                     "%s: argument 'status' = %R is not an int32 array or a "
                     "sequence of ints",
                     f->routine, obj);
        return -1;
    }
    n = PySequence_Fast_GET_SIZE(seq);
    if ((size_t)n < nelems) {
        PyErr_Format(PyExc_ValueError,
                     "%s: argument 'status' holds %zd elements, fewer than "
                     "the %zu of 'ivars'",
                     f->routine, n, nelems);
        goto fail;
    }
    *copy = PyMem_Malloc((nelems ? nelems : 1) * sizeof(int));
    if (!*copy) {
        PyErr_NoMemory();
        goto fail;
    }
    for (i = 0; i < (Py_ssize_t)nelems; i++) {
        long v;

        if (wpy_long_arg(PySequence_Fast_GET_ITEM(seq, i), f->routine,
                         "status", &v) < 0)
            goto fail;
        (*copy)[i] = v != 0;
    }
    Py_DECREF(seq);
    *status = *copy;
    return 0;
fail:
    Py_DECREF(seq);
    return -1;
}

/* The values of a _vector form: an array of the variables' dtype, or a
 * sequence converted into *copy. */
static int values_arg(PyObject *obj, const wpy_buf_t *ivars,
                      const sync_form_t *f, wpy_buf_t *buf, void **copy,
                      const void **values)
{
    PyObject *seq;
    Py_ssize_t i, n;

    *copy = NULL;
    if (PyObject_CheckBuffer(obj)) {
        if (wpy_buf_get(obj, WPY_READ, f->routine, "values", buf) < 0)
            return -1;
        if (buf->type != ivars->type) {
            PyErr_Format(PyExc_TypeError,
                         "%s: argument 'values' has dtype %s, argument "
                         "'ivars' %s: they must be the same",
                         f->routine, wpy_type_name(buf->type),
                         wpy_type_name(ivars->type));
            return -1;
        }
        if (buf->count < ivars->count) {
            PyErr_Format(PyExc_ValueError,
                         "%s: argument 'values' holds %zu elements, fewer "
                         "than the %zu of 'ivars'",
                         f->routine, buf->count, ivars->count);
            return -1;
        }
        *values = buf->addr;
        return 0;
    }
    seq = PySequence_Fast(obj, "");
    if (!seq) {
        PyErr_Format(PyExc_TypeError,
                     "%s: argument 'values' = %R is not an array or a "
                     "sequence",
                     f->routine, obj);
        return -1;
    }
    n = PySequence_Fast_GET_SIZE(seq);
    if ((size_t)n < ivars->count) {
        PyErr_Format(PyExc_ValueError,
                     "%s: argument 'values' holds %zd elements, fewer than "
                     "the %zu of 'ivars'",
                     f->routine, n, ivars->count);
        goto fail;
    }
    *copy = PyMem_Malloc((ivars->count ? ivars->count : 1) * ivars->itemsize);
    if (!*copy) {
        PyErr_NoMemory();
        goto fail;
    }
    for (i = 0; i < (Py_ssize_t)ivars->count; i++) {
        wpy_val_t v;

        if (wpy_val_from_py(PySequence_Fast_GET_ITEM(seq, i), ivars->type,
                            f->routine, "values", "ivars", &v) < 0)
            goto fail;
        memcpy((char *)*copy + (size_t)i * ivars->itemsize, &v,
               ivars->itemsize);
    }
    Py_DECREF(seq);
    *values = *copy;
    return 0;
fail:
    Py_DECREF(seq);
    return -1;
}

static PyObject *sync_result(const sync_form_t *f, const wpy_sync_args_t *a)
{
    PyObject *list;
    size_t i;

    switch (f->ret) {
    case RET_NONE:
        Py_RETURN_NONE;
    case RET_BOOL:
        return PyBool_FromLong(a->result != 0);
    case RET_INDEX:
        if (a->result >= a->nelems)
            Py_RETURN_NONE;
        return PyLong_FromSize_t(a->result);
    default:
        list = PyList_New((Py_ssize_t)a->result);
        if (!list)
            return NULL;
        for (i = 0; i < a->result; i++) {
            PyObject *v = PyLong_FromSize_t(a->indices[i]);
            if (!v) {
                Py_DECREF(list);
                return NULL;
            }
            PyList_SET_ITEM(list, (Py_ssize_t)i, v);
        }
        return list;
    }
}

static const char *const one_names[] = {"ivar", "cmp", "value", NULL};
static const char *const multi_names[] = {"ivars", "cmp", "value", "status",
                                          NULL};
static const char *const vector_names[] = {"ivars", "cmp", "values",
                                           "status", NULL};

static PyObject *sync_call(const sync_form_t *f, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *slot[4] = {NULL, NULL, NULL, NULL}, *res = NULL;
    const char *const *names = !f->multi ? one_names
                               : f->vector ? vector_names : multi_names;
    wpy_buf_t ivars, sbuf, vbuf;
    wpy_sync_fn_t fn;
    wpy_sync_args_t a;
    int *status_copy = NULL;
    void *values_copy = NULL;

    memset(&a, 0, sizeof(a));
    sbuf.has_view = vbuf.has_view = 0;
    if (wpy_parse(f->routine, args, nargs, kwnames, names, 3, slot) < 0 ||
        wpy_check_live(f->routine) < 0 ||
        wpy_cmp_arg(slot[1], f->routine, "cmp", &a.cmp) < 0)
        return NULL;
    if (f->multi) {
        if (wpy_buf_get(slot[0], WPY_SYMMETRIC, f->routine, names[0],
                        &ivars) < 0)
            return NULL;
    } else if (wpy_elem_get(slot[0], WPY_READ, f->routine, names[0],
                            &ivars) < 0) {
        return NULL;
    }
    fn = wpy_sync_table[ivars.type][f->op];
    if (!fn) {
        unsigned char have[WPY_NTYPES];
        int t;

        for (t = 0; t < WPY_NTYPES; t++)
            have[t] = wpy_sync_table[t][f->op] != NULL;
        wpy_no_typed_routine(f->routine, names[0], ivars.type, f->cname,
                             have);
        goto out;
    }
    a.ivars = ivars.addr;
    a.nelems = ivars.count;
    if (f->vector) {
        if (values_arg(slot[2], &ivars, f, &vbuf, &values_copy,
                       &a.values) < 0)
            goto out;
    } else if (wpy_val_from_py(slot[2], ivars.type, f->routine, "value",
                               names[0], &a.value) < 0) {
        goto out;
    }
    if (f->multi && status_arg(slot[3], a.nelems, f, &sbuf, &status_copy,
                               &a.status) < 0)
        goto out;
    if (f->ret == RET_LIST) {
        a.indices = PyMem_Malloc((a.nelems ? a.nelems : 1) * sizeof(size_t));
        if (!a.indices) {
            PyErr_NoMemory();
            goto out;
        }
    }
    if (f->waits && !f->multi && ivars.space == WPY_HOST) {
        /* One test with the GIL held; wait only when it fails. */
        wpy_sync_args_t t = a;

        wpy_sync_table[ivars.type][WPY_SYNC_TEST](&t);
        if (!t.result) {
            Py_BEGIN_ALLOW_THREADS
            fn(&a);
            Py_END_ALLOW_THREADS
        }
    } else if (f->waits) {
        Py_BEGIN_ALLOW_THREADS
        fn(&a);
        Py_END_ALLOW_THREADS
    } else {
        fn(&a);
    }
    res = sync_result(f, &a);
out:
    PyMem_Free(a.indices);
    PyMem_Free(status_copy);
    PyMem_Free(values_copy);
    wpy_buf_release(&vbuf);
    wpy_buf_release(&sbuf);
    wpy_buf_release(&ivars);
    return res;
}

/* The forms, in the order of the method table below. */
static const sync_form_t forms[] = {
    {"weft.wait_until", "shmem_wait_until", WPY_SYNC_WAIT_UNTIL, 0, 0, 1, RET_NONE},
    {"weft.wait_until_all", "shmem_wait_until_all", WPY_SYNC_WAIT_UNTIL_ALL, 1, 0, 1, RET_NONE},
    {"weft.wait_until_any", "shmem_wait_until_any", WPY_SYNC_WAIT_UNTIL_ANY, 1, 0, 1, RET_INDEX},
    {"weft.wait_until_some", "shmem_wait_until_some", WPY_SYNC_WAIT_UNTIL_SOME, 1, 0, 1, RET_LIST},
    {"weft.wait_until_all_vector", "shmem_wait_until_all_vector", WPY_SYNC_WAIT_UNTIL_ALL_VECTOR, 1, 1, 1, RET_NONE},
    {"weft.wait_until_any_vector", "shmem_wait_until_any_vector", WPY_SYNC_WAIT_UNTIL_ANY_VECTOR, 1, 1, 1, RET_INDEX},
    {"weft.wait_until_some_vector", "shmem_wait_until_some_vector", WPY_SYNC_WAIT_UNTIL_SOME_VECTOR, 1, 1, 1, RET_LIST},
    {"weft.test", "shmem_test", WPY_SYNC_TEST, 0, 0, 0, RET_BOOL},
    {"weft.test_all", "shmem_test_all", WPY_SYNC_TEST_ALL, 1, 0, 0, RET_BOOL},
    {"weft.test_any", "shmem_test_any", WPY_SYNC_TEST_ANY, 1, 0, 0, RET_INDEX},
    {"weft.test_some", "shmem_test_some", WPY_SYNC_TEST_SOME, 1, 0, 0, RET_LIST},
    {"weft.test_all_vector", "shmem_test_all_vector", WPY_SYNC_TEST_ALL_VECTOR, 1, 1, 0, RET_BOOL},
    {"weft.test_any_vector", "shmem_test_any_vector", WPY_SYNC_TEST_ANY_VECTOR, 1, 1, 0, RET_INDEX},
    {"weft.test_some_vector", "shmem_test_some_vector", WPY_SYNC_TEST_SOME_VECTOR, 1, 1, 0, RET_LIST},
};

/* One C entry point per form (METH_FASTCALL passes no closure). */
#define SYNC_ENTRY(name, i)                                                  \
    static PyObject *py_##name(PyObject *m, PyObject *const *a,              \
                               Py_ssize_t n, PyObject *k)                    \
    {                                                                        \
        (void)m;                                                             \
        return sync_call(&forms[i], a, n, k);                                \
    }
SYNC_ENTRY(wait_until, 0)
SYNC_ENTRY(wait_until_all, 1)
SYNC_ENTRY(wait_until_any, 2)
SYNC_ENTRY(wait_until_some, 3)
SYNC_ENTRY(wait_until_all_vector, 4)
SYNC_ENTRY(wait_until_any_vector, 5)
SYNC_ENTRY(wait_until_some_vector, 6)
SYNC_ENTRY(test, 7)
SYNC_ENTRY(test_all, 8)
SYNC_ENTRY(test_any, 9)
SYNC_ENTRY(test_some, 10)
SYNC_ENTRY(test_all_vector, 11)
SYNC_ENTRY(test_any_vector, 12)
SYNC_ENTRY(test_some_vector, 13)

#define SYNC_METHOD(name, doc)                                               \
    {#name, (PyCFunction)(void (*)(void))py_##name, WPY_FASTKW, doc}

PyMethodDef wpy_sync_methods[] = {
    SYNC_METHOD(wait_until,
                "wait_until(ivar, cmp, value): waits until the symmetric "
                "one-element array ivar compares true with value."),
    SYNC_METHOD(wait_until_all,
                "wait_until_all(ivars, cmp, value, status=None): waits "
                "until every variable not excluded by status compares true."),
    SYNC_METHOD(wait_until_any,
                "wait_until_any(ivars, cmp, value, status=None) -> the index "
                "of one variable that compares true (None if all excluded)."),
    SYNC_METHOD(wait_until_some,
                "wait_until_some(ivars, cmp, value, status=None) -> the "
                "indices of the variables that compare true (at least one)."),
    SYNC_METHOD(wait_until_all_vector,
                "wait_until_all_vector(ivars, cmp, values, status=None): as "
                "wait_until_all, each variable with its own value."),
    SYNC_METHOD(wait_until_any_vector,
                "wait_until_any_vector(ivars, cmp, values, status=None) -> "
                "an index, or None."),
    SYNC_METHOD(wait_until_some_vector,
                "wait_until_some_vector(ivars, cmp, values, status=None) -> "
                "a list of indices."),
    SYNC_METHOD(test, "test(ivar, cmp, value) -> whether ivar compares true."),
    SYNC_METHOD(test_all,
                "test_all(ivars, cmp, value, status=None) -> whether every "
                "variable not excluded compares true."),
    SYNC_METHOD(test_any,
                "test_any(ivars, cmp, value, status=None) -> the index of one "
                "that compares true, or None."),
    SYNC_METHOD(test_some,
                "test_some(ivars, cmp, value, status=None) -> the indices "
                "that compare true (maybe none)."),
    SYNC_METHOD(test_all_vector,
                "test_all_vector(ivars, cmp, values, status=None) -> bool."),
    SYNC_METHOD(test_any_vector,
                "test_any_vector(ivars, cmp, values, status=None) -> an "
                "index, or None."),
    SYNC_METHOD(test_some_vector,
                "test_some_vector(ivars, cmp, values, status=None) -> a list "
                "of indices."),
    {NULL},
};
