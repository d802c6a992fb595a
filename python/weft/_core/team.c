/* Teams (OpenSHMEM 1.6 section "Team Management Routines") as Python
 * objects.  A Team remembers whether it was destroyed, so that a routine
 * given a destroyed team raises ValueError naming it instead of passing a
 * stale handle to the runtime. */
#include "args.h"

#include <limits.h>
#include <string.h>
#include <strings.h>

typedef struct team {
    PyObject_HEAD
    shmem_team_t handle; /* SHMEM_TEAM_INVALID once destroyed */
    int predefined;      /* TEAM_WORLD or TEAM_SHARED: never destroyed */
    int destroyed;       /* destroy() was called */
} team_t;

static PyTypeObject team_type;

int wpy_team_destroyed(PyObject *obj)
{
    return PyObject_TypeCheck(obj, &team_type) && ((team_t *)obj)->destroyed;
}

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

/* Equal objects (one handle) hash alike. */
static Py_hash_t team_hash(PyObject *self)
{
    Py_hash_t h = (Py_hash_t)((uintptr_t)((team_t *)self)->handle >> 4);

    return h == -1 ? -2 : h;
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

/* ---- Splitting, translating, configuration --------------------------------- */

/* A team configuration: a mapping (or None) and keyword arguments, whose
 * keys are the members of shmem_team_config_t (num_contexts; any case). */
static int config_arg(PyObject *config, PyObject *kwargs, const char *routine,
                      const char *arg, shmem_team_config_t *conf, long *mask)
{
    PyObject *maps[2] = {config, kwargs}, *key, *value;
    Py_ssize_t pos;
    int i;

    conf->num_contexts = 0;
    *mask = 0;
    for (i = 0; i < 2; i++) {
        if (!wpy_given(maps[i]))
            continue;
        if (!PyDict_Check(maps[i])) {
            PyErr_Format(PyExc_TypeError,
                         "%s: argument '%s' = %R is not a dict of team "
                         "configuration values ({'num_contexts': N})",
                         routine, arg, maps[i]);
            return -1;
        }
        pos = 0;
        while (PyDict_Next(maps[i], &pos, &key, &value)) {
            const char *k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
            long v;

            if (!k || strcasecmp(k, "num_contexts") != 0) {
                PyErr_Clear();
                PyErr_Format(PyExc_ValueError,
                             "%s: argument '%s' has key %R, which is not a "
                             "team configuration value (num_contexts)",
                             routine, arg, key);
                return -1;
            }
            if (wpy_long_arg(value, routine, "num_contexts", &v) < 0)
                return -1;
            if (v < 0 || v > INT_MAX) {
                PyErr_Format(PyExc_ValueError,
                             "%s: argument 'num_contexts' = %ld is not a "
                             "count of contexts",
                             routine, v);
                return -1;
            }
            conf->num_contexts = (int)v;
            *mask |= SHMEM_TEAM_NUM_CONTEXTS;
        }
    }
    return 0;
}

/* An int argument by name from args/kwargs (METH_VARARGS). */
static int int_item(PyObject *obj, const char *routine, const char *arg,
                    long *out)
{
    return wpy_given(obj) ? wpy_long_arg(obj, routine, arg, out) : 0;
}

/* split_strided(start=0, stride=1, size=None, config=None, **config):
 * the team of the parent's PEs start, start + stride, ... (size of them;
 * None: as many as fit).  Collective over the parent team.  PEs outside
 * the new team get TEAM_INVALID (a Team that is false). */
static PyObject *team_split_strided(PyObject *self, PyObject *args,
                                    PyObject *kw)
{
    const char *routine = "weft.Team.split_strided";
    static const char *const names[] = {"start", "stride", "size", "config"};
    PyObject *slot[4] = {NULL, NULL, NULL, NULL}, *rest = NULL, *res = NULL;
    shmem_team_t parent, team = SHMEM_TEAM_INVALID;
    shmem_team_config_t conf;
    long start = 0, stride = 1, size = -1, mask, last;
    Py_ssize_t i, n = PyTuple_GET_SIZE(args);
    int npes, rc;

    if (n > 4) {
        PyErr_Format(PyExc_TypeError,
                     "%s: takes at most 4 arguments (%zd given)", routine, n);
        return NULL;
    }
    for (i = 0; i < n; i++)
        slot[i] = PyTuple_GET_ITEM(args, i);
    if (kw) {
        rest = PyDict_Copy(kw);
        if (!rest)
            return NULL;
        for (i = 0; i < 4; i++) {
            PyObject *v = PyDict_GetItemString(rest, names[i]);

            if (!v)
                continue;
            if (slot[i]) {
                PyErr_Format(PyExc_TypeError,
                             "%s: argument '%s' given by position and by "
                             "keyword",
                             routine, names[i]);
                goto out;
            }
            slot[i] = v;
            PyDict_DelItemString(rest, names[i]);
        }
    }
    if (wpy_check_live(routine) < 0 ||
        wpy_team_arg(self, routine, &parent, &npes) < 0 ||
        int_item(slot[0], routine, "start", &start) < 0 ||
        int_item(slot[1], routine, "stride", &stride) < 0 ||
        int_item(slot[2], routine, "size", &size) < 0 ||
        config_arg(slot[3], rest, routine, "config", &conf, &mask) < 0)
        goto out;
    if (wpy_check_pe(start, npes, routine, "start") < 0)
        goto out;
    if (size < 0)
        size = stride > 0 ? (npes - start + stride - 1) / stride
                          : stride < 0 ? start / -stride + 1 : 1;
    if (size < 1 || (stride == 0 && size > 1)) {
        PyErr_Format(PyExc_ValueError,
                     "%s: argument '%s' = %ld: a team has at least one PE, "
                     "each once",
                     routine, size < 1 ? "size" : "stride",
                     size < 1 ? size : stride);
        goto out;
    }
    last = start + (size - 1) * stride;
    if (last < 0 || last >= npes) {
        PyErr_Format(PyExc_ValueError,
                     "%s: argument 'size' = %ld: with start = %ld and stride "
                     "= %ld it names PE %ld, not a PE of the parent team (0 "
                     "to %d)",
                     routine, size, start, stride, last, npes - 1);
        goto out;
    }
    Py_BEGIN_ALLOW_THREADS
    rc = shmem_team_split_strided(parent, (int)start, (int)stride, (int)size,
                                  &conf, mask, &team);
    Py_END_ALLOW_THREADS
    if (rc != 0) {
        PyErr_Format(wpy_error, "%s: shmem_team_split_strided returned %d",
                     routine, rc);
        goto out;
    }
    res = wpy_team_new(team, 0);
out:
    Py_XDECREF(rest);
    return res;
}

/* split_2d(xrange, xaxis_config=None, yaxis_config=None) -> (xteam,
 * yteam): the parent's PEs as a grid xrange wide; xteam is this PE's row,
 * yteam its column.  Collective over the parent team. */
static PyObject *team_split_2d(PyObject *self, PyObject *const *args,
                               Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"xrange", "xaxis_config",
                                        "yaxis_config", NULL};
    const char *routine = "weft.Team.split_2d";
    PyObject *slot[3] = {NULL, NULL, NULL}, *x, *y;
    shmem_team_t parent, xteam = SHMEM_TEAM_INVALID, yteam = SHMEM_TEAM_INVALID;
    shmem_team_config_t xconf, yconf;
    long xrange, xmask, ymask;
    int npes, rc;

    if (wpy_parse(routine, args, nargs, kwnames, names, 1, slot) < 0 ||
        wpy_check_live(routine) < 0 ||
        wpy_team_arg(self, routine, &parent, &npes) < 0 ||
        wpy_long_arg(slot[0], routine, "xrange", &xrange) < 0 ||
        config_arg(slot[1], NULL, routine, "xaxis_config", &xconf, &xmask) < 0 ||
        config_arg(slot[2], NULL, routine, "yaxis_config", &yconf, &ymask) < 0)
        return NULL;
    if (xrange < 1 || xrange > INT_MAX) {
        PyErr_Format(PyExc_ValueError,
                     "%s: argument 'xrange' = %ld is not a row length (1 or "
                     "more)",
                     routine, xrange);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    rc = shmem_team_split_2d(parent, (int)xrange, &xconf, xmask, &xteam,
                             &yconf, ymask, &yteam);
    Py_END_ALLOW_THREADS
    if (rc != 0) {
        PyErr_Format(wpy_error, "%s: shmem_team_split_2d returned %d",
                     routine, rc);
        return NULL;
    }
    x = wpy_team_new(xteam, 0);
    y = x ? wpy_team_new(yteam, 0) : NULL;
    if (!y) {
        Py_XDECREF(x);
        return NULL;
    }
    return Py_BuildValue("(NN)", x, y);
}

/* translate_pe(pe=None, team=None) -> the number in team (None: the world
 * team) of this team's PE pe (None: this PE); -1 when it is not a member. */
static PyObject *team_translate_pe(PyObject *self, PyObject *const *args,
                                   Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"pe", "team", NULL};
    const char *routine = "weft.Team.translate_pe";
    PyObject *slot[2] = {NULL, NULL};
    shmem_team_t src, dest;
    long pe;
    int npes, dn;

    if (wpy_parse(routine, args, nargs, kwnames, names, 0, slot) < 0 ||
        wpy_check_live(routine) < 0 ||
        wpy_team_arg(self, routine, &src, &npes) < 0 ||
        wpy_team_arg(slot[1], routine, &dest, &dn) < 0)
        return NULL;
    if (wpy_given(slot[0])) {
        if (wpy_long_arg(slot[0], routine, "pe", &pe) < 0 ||
            wpy_check_pe(pe, npes, routine, "pe") < 0)
            return NULL;
    } else {
        pe = shmem_team_my_pe(src);
    }
    return PyLong_FromLong(shmem_team_translate_pe(src, (int)pe, dest));
}

/* get_config() -> {'num_contexts': N}. */
static PyObject *team_get_config(PyObject *self, PyObject *unused)
{
    const char *routine = "weft.Team.get_config";
    shmem_team_config_t conf = {0};
    shmem_team_t h;
    int rc;

    (void)unused;
    if (wpy_check_live(routine) < 0 ||
        wpy_team_arg(self, routine, &h, NULL) < 0)
        return NULL;
    rc = shmem_team_get_config(h, SHMEM_TEAM_NUM_CONTEXTS, &conf);
    if (rc != 0) {
        PyErr_Format(wpy_error, "%s: shmem_team_get_config returned %d",
                     routine, rc);
        return NULL;
    }
    return Py_BuildValue("{s:i}", "num_contexts", conf.num_contexts);
}

/* create_ctx(options=0) -> a context on this team. */
static PyObject *team_create_ctx(PyObject *self, PyObject *const *args,
                                 Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"options", NULL};
    const char *routine = "weft.Team.create_ctx";
    PyObject *slot[1] = {NULL};
    long options = 0;

    if (wpy_parse(routine, args, nargs, kwnames, names, 0, slot) < 0 ||
        (wpy_given(slot[0]) &&
         wpy_long_arg(slot[0], routine, "options", &options) < 0))
        return NULL;
    return wpy_ctx_create(routine, self, options);
}

/* sync(): shmem_team_sync on this team. */
static PyObject *team_sync(PyObject *self, PyObject *unused)
{
    const char *routine = "weft.Team.sync";
    shmem_team_t h;
    int rc;

    (void)unused;
    if (wpy_check_live(routine) < 0 ||
        wpy_team_arg(self, routine, &h, NULL) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = shmem_team_sync(h);
    Py_END_ALLOW_THREADS
    if (rc != 0) {
        PyErr_Format(wpy_error, "%s: shmem_team_sync returned %d", routine,
                     rc);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef team_methods[] = {
    {"my_pe", team_my_pe, METH_NOARGS, "my_pe() -> this PE's number in the team."},
    {"n_pes", team_n_pes, METH_NOARGS, "n_pes() -> the number of PEs in the team."},
    {"destroy", team_destroy, METH_NOARGS, "destroy(): destroys the team (collective)."},
    {"split_strided", (PyCFunction)(void (*)(void))team_split_strided,
     METH_VARARGS | METH_KEYWORDS,
     "split_strided(start=0, stride=1, size=None, config=None, **config) "
     "-> a new team of the PEs start, start+stride, ... (collective)."},
    {"split_2d", (PyCFunction)(void (*)(void))team_split_2d, WPY_FASTKW,
     "split_2d(xrange, xaxis_config=None, yaxis_config=None) -> (xteam, "
     "yteam): this PE's row and column of a grid xrange wide "
     "(collective)."},
    {"translate_pe", (PyCFunction)(void (*)(void))team_translate_pe,
     WPY_FASTKW,
     "translate_pe(pe=None, team=None) -> pe's number in team (world), or "
     "-1."},
    {"get_config", team_get_config, METH_NOARGS,
     "get_config() -> {'num_contexts': N}."},
    {"create_ctx", (PyCFunction)(void (*)(void))team_create_ctx, WPY_FASTKW,
     "create_ctx(options=0) -> a context on this team."},
    {"sync", team_sync, METH_NOARGS, "sync(): waits for the team's PEs."},
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
    .tp_hash = team_hash,
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
