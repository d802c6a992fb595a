/* Teams (OpenSHMEM 1.6 section "Team Management Routines") as Python
 * objects.  A Team remembers whether it was destroyed, so that a routine
 * given a destroyed team raises ValueError naming it instead of passing a
 * stale handle to the runtime. */
#include "args.h"

typedef struct team {
    PyObject_HEAD
    shmem_team_t handle; /* SHMEM_TEAM_INVALID once destroyed */
    int predefined;      /* TEAM_WORLD or TEAM_SHARED: never destroyed */
    int destroyed;       /* destroy() was called */
} team_t;

static PyTypeObject team_type;

PyObject *wpy_team_new(shmem_team_t handle, int predefined)
{
    team_t *t = PyObject_New(team_t, &team_type);

    if (!t)
        return NULL;
    t->handle = handle;
    t->predefined = predefined;
    t->destroyed = 0;
    return (PyObject *)t;
}

int wpy_team_arg(PyObject *obj, const char *routine, shmem_team_t *team,
                 int *npes)
{
    team_t *t;
    int n;

    if (!obj || obj == Py_None) {
        *team = SHMEM_TEAM_WORLD;
        if (npes)
            *npes = wpy_state.n_pes;
        return 0;
    }
    if (!PyObject_TypeCheck(obj, &team_type)) {
        PyErr_Format(PyExc_TypeError,
                     "%s: argument 'team' is a %s, not a weft.Team", routine,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    t = (team_t *)obj;
    if (t->destroyed || t->handle == SHMEM_TEAM_INVALID) {
        PyErr_Format(PyExc_ValueError,
                     "%s: argument 'team' = %R %s", routine, obj,
                     t->destroyed ? "was destroyed" : "is TEAM_INVALID");
        return -1;
    }
    if (npes) {
        n = shmem_team_n_pes(t->handle);
        if (n < 0) {
            PyErr_Format(PyExc_ValueError,
                         "%s: argument 'team' = %R is not a valid team",
                         routine, obj);
            return -1;
        }
        *npes = n;
    }
    *team = t->handle;
    return 0;
}

static PyObject *team_repr(PyObject *self)
{
    team_t *t = (team_t *)self;

    if (t->destroyed)
        return PyUnicode_FromString("<weft.Team (destroyed)>");
    if (t->handle == SHMEM_TEAM_WORLD)
        return PyUnicode_FromString("<weft.Team TEAM_WORLD>");
    if (t->handle == SHMEM_TEAM_SHARED)
        return PyUnicode_FromString("<weft.Team TEAM_SHARED>");
    if (t->handle == SHMEM_TEAM_INVALID)
        return PyUnicode_FromString("<weft.Team TEAM_INVALID>");
    return PyUnicode_FromFormat("<weft.Team of %d PEs>",
                                shmem_team_n_pes(t->handle));
}

static PyObject *team_my_pe(PyObject *self, PyObject *unused)
{
    shmem_team_t h;

    (void)unused;
    if (wpy_team_arg(self, "weft.Team.my_pe", &h, NULL) < 0)
        return NULL;
    return PyLong_FromLong(shmem_team_my_pe(h));
}

static PyObject *team_n_pes(PyObject *self, PyObject *unused)
{
    shmem_team_t h;
    int n;

    (void)unused;
    if (wpy_team_arg(self, "weft.Team.n_pes", &h, &n) < 0)
        return NULL;
    return PyLong_FromLong(n);
}

/* destroy(): TEAM_WORLD, TEAM_SHARED and TEAM_INVALID are left as they are
 * (as shmem4py does); a second destroy is a no-op. */
static PyObject *team_destroy(PyObject *self, PyObject *unused)
{
    team_t *t = (team_t *)self;

    (void)unused;
    if (t->predefined || t->destroyed || t->handle == SHMEM_TEAM_INVALID)
        Py_RETURN_NONE;
    if (wpy_check_live("weft.Team.destroy") < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    shmem_team_destroy(t->handle);
    Py_END_ALLOW_THREADS
    t->handle = SHMEM_TEAM_INVALID;
    t->destroyed = 1;
    Py_RETURN_NONE;
}

static PyObject *team_enter(PyObject *self, PyObject *unused)
{
    (void)unused;
    return Py_NewRef(self);
}

static PyObject *team_exit(PyObject *self, PyObject *args)
{
    (void)args;
    return team_destroy(self, NULL);
}

static int team_bool(PyObject *self)
{
    team_t *t = (team_t *)self;

    return !t->destroyed && t->handle != SHMEM_TEAM_INVALID;
}

static PyObject *team_richcompare(PyObject *a, PyObject *b, int op)
{
    int eq;

    if (!PyObject_TypeCheck(b, &team_type) || (op != Py_EQ && op != Py_NE))
        Py_RETURN_NOTIMPLEMENTED;
    eq = ((team_t *)a)->handle == ((team_t *)b)->handle;
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyObject *team_get_handle(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr((void *)((team_t *)self)->handle);
}

static PyGetSetDef team_getset[] = {
    {"handle", team_get_handle, NULL, "the C shmem_team_t, as an integer", NULL},
    {NULL},
};

static PyNumberMethods team_as_number = {.nb_bool = team_bool};

/* Methods the other team routines add (teams.c of the package's later
 * parts) go in this table. */
static PyMethodDef team_methods[] = {
    {"my_pe", team_my_pe, METH_NOARGS, "my_pe() -> this PE's number in the team."},
    {"n_pes", team_n_pes, METH_NOARGS, "n_pes() -> the number of PEs in the team."},
    {"destroy", team_destroy, METH_NOARGS, "destroy(): destroys the team (collective)."},
    {"__enter__", team_enter, METH_NOARGS, NULL},
    {"__exit__", team_exit, METH_VARARGS, NULL},
    {NULL},
};

static PyTypeObject team_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "weft.Team",
    .tp_basicsize = sizeof(team_t),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An OpenSHMEM team (TEAM_WORLD, TEAM_SHARED, or one split "
              "from them).",
    .tp_repr = team_repr,
    .tp_methods = team_methods,
    .tp_getset = team_getset,
    .tp_as_number = &team_as_number,
    .tp_richcompare = team_richcompare,
};

PyMethodDef wpy_team_methods[] = {
    {NULL},
};

int wpy_team_add_types(PyObject *module)
{
    PyObject *t;

    if (PyType_Ready(&team_type) < 0 ||
        PyModule_AddObjectRef(module, "Team", (PyObject *)&team_type) < 0)
        return -1;
    t = wpy_team_new(SHMEM_TEAM_WORLD, 1);
    if (!t || PyModule_AddObject(module, "TEAM_WORLD", t) < 0)
        return -1;
    t = wpy_team_new(SHMEM_TEAM_SHARED, 1);
    if (!t || PyModule_AddObject(module, "TEAM_SHARED", t) < 0)
        return -1;
    t = wpy_team_new(SHMEM_TEAM_INVALID, 1);
    if (!t || PyModule_AddObject(module, "TEAM_INVALID", t) < 0)
        return -1;
    return 0;
}
