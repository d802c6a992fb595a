/* Distributed locks (OpenSHMEM 1.6 section "Distributed Locking
 * Routines"): new_lock/del_lock/set_lock/test_lock/clear_lock on a
 * symmetric int64 (C long) array of one element, as shmem4py has them, and
 * the Lock class (acquire, release, a `with` block, destroy). */
#include "args.h"

/* A lock argument: a symmetric array of one C long. */
static int lock_get(PyObject *obj, const char *routine, wpy_buf_t *lock)
{
    if (wpy_elem_get(obj, WPY_WRITE, routine, "lock", lock) < 0)
        return -1;
    if (lock->itemsize == sizeof(long) &&
        (lock->type == WPY_T_INT64 || lock->type == WPY_T_UINT64) &&
        lock->space == WPY_HOST)
        return 0;
    PyErr_Format(PyExc_TypeError,
                 "%s: argument 'lock' has dtype %s; a lock is a symmetric "
                 "int64 array of one element in host memory "
                 "(weft.new_lock())",
                 routine, wpy_type_name(lock->type));
    wpy_buf_release(lock);
    return -1;
}

static PyObject *lock_new(void)
{
    PyObject *args = Py_BuildValue("((i)s)", 1, "int64");
    PyObject *res;

    if (!args)
        return NULL;
    res = wpy_array_call("zeros", args, NULL);
    Py_DECREF(args);
    return res;
}

static PyObject *lock_free(PyObject *lock)
{
    PyObject *args = PyTuple_Pack(1, lock);
    PyObject *res;

    if (!args)
        return NULL;
    res = wpy_array_call("free", args, NULL);
    Py_DECREF(args);
    return res;
}

static int lock_set(PyObject *obj, const char *routine)
{
    wpy_buf_t l;

    if (wpy_check_live(routine) < 0 || lock_get(obj, routine, &l) < 0)
        return -1;
    Py_BEGIN_ALLOW_THREADS
    shmem_set_lock((long *)l.addr);
    Py_END_ALLOW_THREADS
    wpy_buf_release(&l);
    return 0;
}

/* 1 when the lock was already held (not acquired), 0 when acquired. */
static int lock_test(PyObject *obj, const char *routine)
{
    wpy_buf_t l;
    int held;

    if (wpy_check_live(routine) < 0 || lock_get(obj, routine, &l) < 0)
        return -1;
    held = shmem_test_lock((long *)l.addr) != 0;
    wpy_buf_release(&l);
    return held;
}

static int lock_clear(PyObject *obj, const char *routine)
{
    wpy_buf_t l;

    if (wpy_check_live(routine) < 0 || lock_get(obj, routine, &l) < 0)
        return -1;
    shmem_clear_lock((long *)l.addr);
    wpy_buf_release(&l);
    return 0;
}

/* ---- The functions ------------------------------------------------------- */

static PyObject *py_new_lock(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    if (wpy_check_live("weft.new_lock") < 0)
        return NULL;
    return lock_new();
}

static PyObject *py_del_lock(PyObject *m, PyObject *lock)
{
    wpy_buf_t l;

    (void)m;
    if (lock_get(lock, "weft.del_lock", &l) < 0)
        return NULL;
    wpy_buf_release(&l);
    return lock_free(lock);
}

static PyObject *py_set_lock(PyObject *m, PyObject *lock)
{
    (void)m;
    if (lock_set(lock, "weft.set_lock") < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *py_test_lock(PyObject *m, PyObject *lock)
{
    int held;

    (void)m;
    held = lock_test(lock, "weft.test_lock");
    if (held < 0)
        return NULL;
    return PyBool_FromLong(held);
}

static PyObject *py_clear_lock(PyObject *m, PyObject *lock)
{
    (void)m;
    if (lock_clear(lock, "weft.clear_lock") < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* ---- The Lock class -------------------------------------------------------- */

typedef struct lock_obj {
    PyObject_HEAD
    PyObject *lock; /* the symmetric array; NULL once destroyed */
} lock_obj_t;

static int lock_init(PyObject *self, PyObject *args, PyObject *kw)
{
    lock_obj_t *l = (lock_obj_t *)self;

    if (PyTuple_GET_SIZE(args) || (kw && PyDict_GET_SIZE(kw))) {
        PyErr_SetString(PyExc_TypeError, "weft.Lock: takes no arguments");
        return -1;
    }
    if (wpy_check_live("weft.Lock") < 0)
        return -1;
    Py_CLEAR(l->lock);
    l->lock = lock_new();
    return l->lock ? 0 : -1;
}

static void lock_dealloc(PyObject *self)
{
    Py_XDECREF(((lock_obj_t *)self)->lock);
    Py_TYPE(self)->tp_free(self);
}

/* The lock's array, or ValueError once destroyed. */
static PyObject *lock_of(PyObject *self, const char *routine)
{
    PyObject *lock = ((lock_obj_t *)self)->lock;

    if (!lock)
        PyErr_Format(PyExc_ValueError, "%s: the lock was destroyed",
                     routine);
    return lock;
}

static PyObject *lock_acquire(PyObject *self, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"blocking", NULL};
    const char *routine = "weft.Lock.acquire";
    PyObject *slot[1] = {NULL}, *lock;
    int blocking = 1, held;

    if (wpy_parse(routine, args, nargs, kwnames, names, 0, slot) < 0)
        return NULL;
    if (slot[0]) {
        blocking = PyObject_IsTrue(slot[0]);
        if (blocking < 0)
            return NULL;
    }
    lock = lock_of(self, routine);
    if (!lock)
        return NULL;
    if (blocking) {
        if (lock_set(lock, routine) < 0)
            return NULL;
        Py_RETURN_TRUE;
    }
    held = lock_test(lock, routine);
    if (held < 0)
        return NULL;
    return PyBool_FromLong(!held);
}

static PyObject *lock_release(PyObject *self, PyObject *unused)
{
    PyObject *lock = lock_of(self, "weft.Lock.release");

    (void)unused;
    if (!lock || lock_clear(lock, "weft.Lock.release") < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *lock_destroy(PyObject *self, PyObject *unused)
{
    lock_obj_t *l = (lock_obj_t *)self;
    PyObject *lock = l->lock, *res;

    (void)unused;
    if (!lock)
        Py_RETURN_NONE;
    l->lock = NULL;
    res = lock_free(lock);
    Py_DECREF(lock);
    return res;
}

static PyObject *lock_enter(PyObject *self, PyObject *unused)
{
    PyObject *lock = lock_of(self, "weft.Lock.__enter__");

    (void)unused;
    if (!lock || lock_set(lock, "weft.Lock.__enter__") < 0)
        return NULL;
    return Py_NewRef(self);
}

static PyObject *lock_exit(PyObject *self, PyObject *args)
{
    (void)args;
    return lock_release(self, NULL);
}

static PyObject *lock_get_array(PyObject *self, void *closure)
{
    PyObject *lock = ((lock_obj_t *)self)->lock;

    (void)closure;
    return Py_NewRef(lock ? lock : Py_None);
}

static PyGetSetDef lock_getset[] = {
    {"array", lock_get_array, NULL,
     "the symmetric int64 array of the lock (None once destroyed)", NULL},
    {NULL},
};

static PyMethodDef lock_methods[] = {
    {"acquire", (PyCFunction)(void (*)(void))lock_acquire, WPY_FASTKW,
     "acquire(blocking=True) -> True when acquired (blocking: waits)."},
    {"release", lock_release, METH_NOARGS, "release(): releases the lock."},
    {"destroy", lock_destroy, METH_NOARGS,
     "destroy(): frees the lock (collective)."},
    {"__enter__", lock_enter, METH_NOARGS, NULL},
    {"__exit__", lock_exit, METH_VARARGS, NULL},
    {NULL},
};

static PyTypeObject lock_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "weft.Lock",
    .tp_basicsize = sizeof(lock_obj_t),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Lock(): a distributed lock over every PE (creating and "
              "destroying it are collective); `with lock:` holds it.",
    .tp_new = PyType_GenericNew,
    .tp_init = lock_init,
    .tp_dealloc = lock_dealloc,
    .tp_methods = lock_methods,
    .tp_getset = lock_getset,
};

int wpy_lock_add_types(PyObject *module)
{
    if (PyType_Ready(&lock_type) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "Lock", (PyObject *)&lock_type);
}

PyMethodDef wpy_lock_methods[] = {
    {"new_lock", py_new_lock, METH_NOARGS,
     "new_lock() -> a zeroed symmetric int64 array of one element, a lock "
     "(collective)."},
    {"del_lock", py_del_lock, METH_O,
     "del_lock(lock): frees a lock of new_lock (collective)."},
    {"set_lock", py_set_lock, METH_O,
     "set_lock(lock): waits for and takes the lock."},
    {"test_lock", py_test_lock, METH_O,
     "test_lock(lock) -> False when the lock was taken now, True when "
     "another PE holds it."},
    {"clear_lock", py_clear_lock, METH_O,
     "clear_lock(lock): releases the lock."},
    {NULL},
};
