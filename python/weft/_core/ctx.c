/* Communication contexts (OpenSHMEM 1.6 section "Communication Management
 * Routines") as Python objects, usable in a `with` block that destroys
 * them.  A context remembers the size of the team it was created on: the
 * PE numbers a routine on it takes are that team's. */
#include "args.h"

typedef struct ctx {
    PyObject_HEAD
    shmem_ctx_t handle; /* SHMEM_CTX_INVALID once destroyed */
    int npes;           /* PEs of the context's team; 0 before init */
    int predefined;     /* CTX_DEFAULT or CTX_INVALID */
    int destroyed;
    PyObject *team;     /* the Team it was created on, or NULL (world) */
} ctx_t;

static PyTypeObject ctx_type;

static PyObject *ctx_new_object(shmem_ctx_t handle, int npes, int predefined,
                                PyObject *team)
{
    ctx_t *c = PyObject_New(ctx_t, &ctx_type);

    if (!c)
        return NULL;
    c->handle = handle;
    c->npes = npes;
    c->predefined = predefined;
    c->destroyed = 0;
    c->team = Py_XNewRef(team);
    return (PyObject *)c;
}

int wpy_ctx_arg(PyObject *obj, const char *routine, shmem_ctx_t *ctx,
                int *npes)
{
    ctx_t *c;

    if (!obj || obj == Py_None) {
        *ctx = SHMEM_CTX_DEFAULT;
        *npes = wpy_state.n_pes;
        return 0;
    }
    if (Py_TYPE(obj) != &ctx_type && !PyObject_TypeCheck(obj, &ctx_type)) {
        PyErr_Format(PyExc_TypeError,
                     "%s: argument 'ctx' is a %s, not a weft.Ctx", routine,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    c = (ctx_t *)obj;
    if (c->destroyed || c->handle == SHMEM_CTX_INVALID) {
        PyErr_Format(PyExc_ValueError, "%s: argument 'ctx' = %R %s", routine,
                     obj, c->destroyed ? "was destroyed" : "is CTX_INVALID");
        return -1;
    }
    if (c->team && wpy_team_destroyed(c->team)) {
        PyErr_Format(PyExc_ValueError,
                     "%s: argument 'ctx' = %R: its team was destroyed",
                     routine, obj);
        return -1;
    }
    *ctx = c->handle;
    *npes = c->handle == SHMEM_CTX_DEFAULT ? wpy_state.n_pes : c->npes;
    return 0;
}

static void ctx_dealloc(PyObject *self)
{
    Py_XDECREF(((ctx_t *)self)->team);
    PyObject_Free(self);
}

static PyObject *ctx_repr(PyObject *self)
{
    ctx_t *c = (ctx_t *)self;

    if (c->destroyed)
        return PyUnicode_FromString("<weft.Ctx (destroyed)>");
    if (c->handle == SHMEM_CTX_DEFAULT)
        return PyUnicode_FromString("<weft.Ctx CTX_DEFAULT>");
    if (c->handle == SHMEM_CTX_INVALID)
        return PyUnicode_FromString("<weft.Ctx CTX_INVALID>");
    return PyUnicode_FromFormat("<weft.Ctx on %d PEs>", c->npes);
}

PyObject *wpy_ctx_create(const char *routine, PyObject *team_obj,
                         long options)
{
    shmem_team_t team = SHMEM_TEAM_WORLD;
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    int npes, rc;

    if (wpy_check_live(routine) < 0 ||
        wpy_team_arg(team_obj, routine, &team, &npes) < 0)
        return NULL;
    if (options & ~(long)(SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE |
                          SHMEM_CTX_NOSTORE)) {
        PyErr_Format(PyExc_ValueError,
                     "%s: argument 'options' = %ld has bits that are not "
                     "CTX_SERIALIZED, CTX_PRIVATE or CTX_NOSTORE",
                     routine, options);
        return NULL;
    }
    if (wpy_given(team_obj))
        rc = shmem_team_create_ctx(team, options, &ctx);
    else
        rc = shmem_ctx_create(options, &ctx);
    if (rc != 0) {
        PyErr_Format(wpy_error, "%s: the runtime could not create a context "
                                "(return code %d)", routine, rc);
        return NULL;
    }
    return ctx_new_object(ctx, npes, 0, wpy_given(team_obj) ? team_obj : NULL);
}

/* Ctx.create(options=0, team=None): shmem_ctx_create or
 * shmem_team_create_ctx.  A context the runtime cannot create raises
 * weft.Error (the specification lets creation fail). */
static PyObject *ctx_create(PyObject *cls, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"options", "team", NULL};
    const char *routine = "weft.Ctx.create";
    PyObject *slot[2] = {NULL, NULL};
    long options = 0;

    (void)cls;
    if (wpy_parse(routine, args, nargs, kwnames, names, 0, slot) < 0 ||
        (wpy_given(slot[0]) &&
         wpy_long_arg(slot[0], routine, "options", &options) < 0))
        return NULL;
    return wpy_ctx_create(routine, slot[1], options);
}

static PyObject *ctx_destroy(PyObject *self, PyObject *unused)
{
    ctx_t *c = (ctx_t *)self;

    (void)unused;
    if (c->predefined || c->destroyed || c->handle == SHMEM_CTX_INVALID)
        Py_RETURN_NONE;
    if (wpy_check_live("weft.Ctx.destroy") < 0)
        return NULL;
    shmem_ctx_destroy(c->handle);
    c->handle = SHMEM_CTX_INVALID;
    c->destroyed = 1;
    Py_RETURN_NONE;
}

static PyObject *ctx_fence(PyObject *self, PyObject *unused)
{
    shmem_ctx_t h;
    int n;

    (void)unused;
    if (wpy_ctx_arg(self, "weft.Ctx.fence", &h, &n) < 0)
        return NULL;
    shmem_ctx_fence(h);
    Py_RETURN_NONE;
}

static PyObject *ctx_quiet(PyObject *self, PyObject *unused)
{
    shmem_ctx_t h;
    int n;

    (void)unused;
    if (wpy_ctx_arg(self, "weft.Ctx.quiet", &h, &n) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    shmem_ctx_quiet(h);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static PyObject *ctx_get_team(PyObject *self, PyObject *unused)
{
    ctx_t *c = (ctx_t *)self;
    shmem_ctx_t h;
    int n;

    (void)unused;
    if (wpy_ctx_arg(self, "weft.Ctx.get_team", &h, &n) < 0)
        return NULL;
    if (c->team)
        return Py_NewRef(c->team);
    return wpy_team_new(SHMEM_TEAM_WORLD, 1);
}

static PyObject *ctx_enter(PyObject *self, PyObject *unused)
{
    (void)unused;
    return Py_NewRef(self);
}

static PyObject *ctx_exit(PyObject *self, PyObject *args)
{
    (void)args;
    return ctx_destroy(self, NULL);
}

static int ctx_bool(PyObject *self)
{
    ctx_t *c = (ctx_t *)self;

    return !c->destroyed && c->handle != SHMEM_CTX_INVALID;
}

static PyObject *ctx_richcompare(PyObject *a, PyObject *b, int op)
{
    int eq;

    if (!PyObject_TypeCheck(b, &ctx_type) || (op != Py_EQ && op != Py_NE))
        Py_RETURN_NOTIMPLEMENTED;
    eq = ((ctx_t *)a)->handle == ((ctx_t *)b)->handle;
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

/* Equal objects (one handle) hash alike. */
static Py_hash_t ctx_hash(PyObject *self)
{
    Py_hash_t h = (Py_hash_t)((uintptr_t)((ctx_t *)self)->handle >> 4);

    return h == -1 ? -2 : h;
}

static PyObject *ctx_get_handle(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr((void *)((ctx_t *)self)->handle);
}

static PyGetSetDef ctx_getset[] = {
    {"handle", ctx_get_handle, NULL, "the C shmem_ctx_t, as an integer", NULL},
    {NULL},
};

static PyNumberMethods ctx_as_number = {.nb_bool = ctx_bool};

static PyMethodDef ctx_methods[] = {
    {"create", (PyCFunction)(void (*)(void))ctx_create,
     METH_FASTCALL | METH_KEYWORDS | METH_CLASS,
     "Ctx.create(options=0, team=None) -> a new context."},
    {"destroy", ctx_destroy, METH_NOARGS, "destroy(): destroys the context."},
    {"fence", ctx_fence, METH_NOARGS, "fence(): orders the context's puts."},
    {"quiet", ctx_quiet, METH_NOARGS, "quiet(): completes the context's operations."},
    {"get_team", ctx_get_team, METH_NOARGS, "get_team() -> the context's team."},
    {"__enter__", ctx_enter, METH_NOARGS, NULL},
    {"__exit__", ctx_exit, METH_VARARGS, NULL},
    {NULL},
};

static PyTypeObject ctx_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "weft.Ctx",
    .tp_basicsize = sizeof(ctx_t),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An OpenSHMEM communication context.",
    .tp_dealloc = ctx_dealloc,
    .tp_repr = ctx_repr,
    .tp_methods = ctx_methods,
    .tp_getset = ctx_getset,
    .tp_as_number = &ctx_as_number,
    .tp_richcompare = ctx_richcompare,
    .tp_hash = ctx_hash,
};

static PyObject *py_ctx_create(PyObject *mod, PyObject *const *args,
                               Py_ssize_t nargs, PyObject *kwnames)
{
    (void)mod;
    return ctx_create((PyObject *)&ctx_type, args, nargs, kwnames);
}

PyMethodDef wpy_ctx_methods[] = {
    {"ctx_create", (PyCFunction)(void (*)(void))py_ctx_create,
     METH_FASTCALL | METH_KEYWORDS,
     "ctx_create(options=0, team=None) -> a new context."},
    {NULL},
};

int wpy_ctx_add_types(PyObject *module)
{
    PyObject *c;

    if (PyType_Ready(&ctx_type) < 0 ||
        PyModule_AddObjectRef(module, "Ctx", (PyObject *)&ctx_type) < 0)
        return -1;
    c = ctx_new_object(SHMEM_CTX_DEFAULT, 0, 1, NULL);
    if (!c || PyModule_AddObject(module, "CTX_DEFAULT", c) < 0)
        return -1;
    c = ctx_new_object(SHMEM_CTX_INVALID, 0, 1, NULL);
    if (!c || PyModule_AddObject(module, "CTX_INVALID", c) < 0)
        return -1;
    return 0;
}
