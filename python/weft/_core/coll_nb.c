/* Nonblocking collectives (docs/nonblocking-collectives.md) from Python:
 * barrier_all_nb, sync_nb, broadcast_nb, alltoall_nb, reduce_nb and the
 * OP_reduce_nb forms post the collective and return a weft.Request;
 * Request.test() is True once it has completed on this PE (the request is
 * then done), Request.wait() waits for that.  Arguments as in the blocking
 * forms (coll.c), without stream=.
 *
 * A Request holds its arrays until the collective completes: the lane
 * that runs it writes and reads them meanwhile.  A Request dropped before
 * completion therefore waits for it first. */
#include "coll.h"
#include "typed_gen.h"

typedef struct req {
    PyObject_HEAD
    shmemx_req_h handle;
    int done;             /* test or wait saw it complete */
    const char *routine;  /* the posting routine, for messages */
    wpy_coll_call_t call; /* its arrays, held until done */
    int has_call;
} req_t;

static PyTypeObject req_type;

static void req_finish(req_t *r)
{
    r->done = 1;
    if (r->has_call) {
        wpy_coll_release(&r->call);
        r->has_call = 0;
    }
}

static PyObject *req_test(PyObject *self, PyObject *unused)
{
    req_t *r = (req_t *)self;

    (void)unused;
    if (r->done)
        Py_RETURN_TRUE;
    if (wpy_check_live("weft.Request.test") < 0)
        return NULL;
    if (shmemx_req_test(r->handle) != 0)
        Py_RETURN_FALSE;
    req_finish(r);
    Py_RETURN_TRUE;
}

static PyObject *req_wait(PyObject *self, PyObject *unused)
{
    req_t *r = (req_t *)self;

    (void)unused;
    if (r->done)
        Py_RETURN_NONE;
    if (wpy_check_live("weft.Request.wait") < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    shmemx_req_wait(r->handle);
    Py_END_ALLOW_THREADS
    req_finish(r);
    Py_RETURN_NONE;
}

static void req_dealloc(PyObject *self)
{
    req_t *r = (req_t *)self;

    /* Its arrays must outlive the collective; after shmem_finalize it has
     * run to its end anyway. */
    if (!r->done && wpy_state.live) {
        Py_BEGIN_ALLOW_THREADS
        shmemx_req_wait(r->handle);
        Py_END_ALLOW_THREADS
    }
    req_finish(r);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *req_repr(PyObject *self)
{
    req_t *r = (req_t *)self;

    return PyUnicode_FromFormat("<weft.Request of %s, %s>", r->routine,
                                r->done ? "complete" : "posted");
}

static PyObject *req_get_done(PyObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(((req_t *)self)->done);
}

static PyMethodDef req_methods[] = {
    {"test", req_test, METH_NOARGS,
     "test() -> True once the collective has completed on this PE."},
    {"wait", req_wait, METH_NOARGS,
     "wait(): waits until the collective has completed on this PE."},
    {NULL},
};

static PyGetSetDef req_getset[] = {
    {"done", req_get_done, NULL,
     "True once test() or wait() saw the collective complete.", NULL},
    {NULL},
};

static PyTypeObject req_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "weft.Request",
    .tp_basicsize = sizeof(req_t),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A posted nonblocking collective (shmemx_req_h).",
    .tp_dealloc = req_dealloc,
    .tp_repr = req_repr,
    .tp_methods = req_methods,
    .tp_getset = req_getset,
};

/* A Request for a post that returned rc, holding c (NULL: no arrays). */
static PyObject *req_posted(const char *routine, const char *cname, int rc,
                            shmemx_req_h h, wpy_coll_call_t *c)
{
    req_t *r;

    if (rc != 0) {
        if (c)
            wpy_coll_release(c);
        PyErr_Format(wpy_error, "%s: %s returned %d", routine, cname, rc);
        return NULL;
    }
    r = PyObject_New(req_t, &req_type);
    if (!r) {
        shmemx_req_wait(h);
        if (c)
            wpy_coll_release(c);
        return NULL;
    }
    r->handle = h;
    r->done = 0;
    r->routine = routine;
    r->has_call = c != NULL;
    if (c)
        r->call = *c;
    return (PyObject *)r;
}

/* ---- barrier_all_nb, sync_nb ---------------------------------------------- */

static PyObject *py_barrier_all_nb(PyObject *m, PyObject *const *args,
                                   Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {NULL};
    const char *routine = "weft.barrier_all_nb";
    shmemx_req_h h;

    (void)m;
    if (wpy_parse(routine, args, nargs, kwnames, names, 0, NULL) < 0 ||
        wpy_check_live(routine) < 0)
        return NULL;
    shmemx_barrier_all_nb(&h);
    return req_posted(routine, "shmemx_barrier_all_nb", 0, h, NULL);
}

static PyObject *py_sync_nb(PyObject *m, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"team", NULL};
    const char *routine = "weft.sync_nb";
    PyObject *slot[1] = {NULL};
    shmem_team_t team;
    shmemx_req_h h;
    int npes, rc;

    (void)m;
    if (wpy_parse(routine, args, nargs, kwnames, names, 0, slot) < 0 ||
        wpy_check_live(routine) < 0 ||
        wpy_team_arg(slot[0], routine, &team, &npes) < 0)
        return NULL;
    rc = shmemx_sync_nb(team, &h);
    return req_posted(routine, "shmemx_sync_nb", rc, h, NULL);
}

/* ---- broadcast_nb, alltoall_nb ------------------------------------------- */

/* size: the size argument resolved against both arrays, times `times`. */
static int nb_size(const char *routine, wpy_coll_call_t *c, size_t times,
                   size_t *size)
{
    size_t tcount = c->target.count / times, scount = c->source.count / times;

    *size = c->size;
    if (*size == (size_t)-1) {
        *size = tcount < scount ? tcount : scount;
        return 0;
    }
    if (*size > tcount || *size > scount)
        return wpy_coll_size_error(routine, *size, times,
                                   *size > tcount ? "target" : "source",
                                   *size > tcount ? c->target.count
                                                  : c->source.count);
    return 0;
}

static PyObject *py_broadcast_nb(PyObject *m, PyObject *const *args,
                                 Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"target", "source", "root", "size",
                                        "team", NULL};
    const char *routine = "weft.broadcast_nb";
    PyObject *slot[5] = {NULL, NULL, NULL, NULL, NULL};
    wpy_coll_call_t c;
    shmemx_req_h h = SHMEMX_REQ_NULL;
    size_t size;
    long root;
    int rc;

    (void)m;
    if (wpy_parse(routine, args, nargs, kwnames, names, 3, slot) < 0 ||
        wpy_long_arg(slot[2], routine, "root", &root) < 0 ||
        wpy_coll_prepare(routine, slot[0], slot[1], slot[3], slot[4], NULL,
                         &c) < 0)
        return NULL;
    if (wpy_check_pe(root, c.npes, routine, "root") < 0 ||
        nb_size(routine, &c, 1, &size) < 0) {
        wpy_coll_release(&c);
        return NULL;
    }
    rc = shmemx_broadcastmem_nb(c.team, c.target.addr, c.source.addr,
                                size * c.target.itemsize, (int)root, &h);
    return req_posted(routine, "shmemx_broadcastmem_nb", rc, h, &c);
}

static PyObject *py_alltoall_nb(PyObject *m, PyObject *const *args,
                                Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"target", "source", "size", "team",
                                        NULL};
    const char *routine = "weft.alltoall_nb";
    PyObject *slot[4] = {NULL, NULL, NULL, NULL};
    wpy_coll_call_t c;
    shmemx_req_h h = SHMEMX_REQ_NULL;
    size_t size;
    int rc;

    (void)m;
    if (wpy_parse(routine, args, nargs, kwnames, names, 2, slot) < 0 ||
        wpy_coll_prepare(routine, slot[0], slot[1], slot[2], slot[3], NULL,
                         &c) < 0)
        return NULL;
    if (nb_size(routine, &c, (size_t)c.npes, &size) < 0) {
        wpy_coll_release(&c);
        return NULL;
    }
    rc = shmemx_alltoallmem_nb(c.team, c.target.addr, c.source.addr,
                               size * c.target.itemsize, &h);
    return req_posted(routine, "shmemx_alltoallmem_nb", rc, h, &c);
}

/* ---- reduce_nb, OP_reduce_nb ---------------------------------------------- */

static const char *const nb_cnames[] = {
    "shmemx_and_reduce_nb", "shmemx_or_reduce_nb",  "shmemx_xor_reduce_nb",
    "shmemx_max_reduce_nb", "shmemx_min_reduce_nb", "shmemx_sum_reduce_nb",
    "shmemx_prod_reduce_nb"};

/* slot: (target, source, size, team). */
static PyObject *reduce_nb_run(const char *routine, int op,
                               PyObject *const *slot)
{
    wpy_coll_args_t a;
    wpy_coll_fn_t fn;
    wpy_coll_call_t c;
    shmemx_req_h h = SHMEMX_REQ_NULL;
    size_t size;
    int t, rc;

    if (wpy_coll_prepare(routine, slot[0], slot[1], slot[2], slot[3], NULL,
                         &c) < 0)
        return NULL;
    fn = wpy_reduce_nb_table[c.target.type][op];
    if (!fn) {
        unsigned char have[WPY_NTYPES];

        for (t = 0; t < WPY_NTYPES; t++)
            have[t] = wpy_reduce_nb_table[t][op] != NULL;
        wpy_no_typed_routine(routine, "target", c.target.type, nb_cnames[op],
                             have);
        wpy_coll_release(&c);
        return NULL;
    }
    if (nb_size(routine, &c, 1, &size) < 0) {
        wpy_coll_release(&c);
        return NULL;
    }
    a.team = c.team;
    a.dest = c.target.addr;
    a.source = c.source.addr;
    a.nelems = size;
    a.stream = NULL;
    a.request = &h;
    rc = fn(&a); /* before h is read */
    return req_posted(routine, nb_cnames[op], rc, h, &c);
}

static PyObject *py_reduce_nb(PyObject *m, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"target", "source", "op", "size",
                                        "team", NULL};
    const char *routine = "weft.reduce_nb";
    PyObject *slot[5] = {NULL, NULL, NULL, NULL, NULL};
    PyObject *rest[4];
    int op = WPY_REDUCE_NB_SUM;

    (void)m;
    if (wpy_parse(routine, args, nargs, kwnames, names, 2, slot) < 0 ||
        (wpy_given(slot[2]) &&
         wpy_name_arg(slot[2], routine, "op", wpy_reduce_op_names,
                      "a reduction operator (OP_AND, OP_OR, OP_XOR, OP_MAX, "
                      "OP_MIN, OP_SUM, OP_PROD)",
                      &op) < 0))
        return NULL;
    rest[0] = slot[0];
    rest[1] = slot[1];
    rest[2] = slot[3];
    rest[3] = slot[4];
    return reduce_nb_run(routine, op, rest);
}

static PyObject *reduce_nb_op(const char *routine, int op,
                              PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames)
{
    static const char *const names[] = {"target", "source", "size", "team",
                                        NULL};
    PyObject *slot[4] = {NULL, NULL, NULL, NULL};

    if (wpy_parse(routine, args, nargs, kwnames, names, 2, slot) < 0)
        return NULL;
    return reduce_nb_run(routine, op, slot);
}

/* One C entry point per routine (METH_FASTCALL passes no closure), as in
 * coll.c. */
#define NB_ENTRY(name, op)                                                   \
    static PyObject *py_##name(PyObject *m, PyObject *const *a,              \
                               Py_ssize_t n, PyObject *k)                    \
    {                                                                        \
        (void)m;                                                             \
        return reduce_nb_op("weft." #name, op, a, n, k);                     \
    }
NB_ENTRY(and_reduce_nb, WPY_REDUCE_NB_AND)
NB_ENTRY(or_reduce_nb, WPY_REDUCE_NB_OR)
NB_ENTRY(xor_reduce_nb, WPY_REDUCE_NB_XOR)
NB_ENTRY(max_reduce_nb, WPY_REDUCE_NB_MAX)
NB_ENTRY(min_reduce_nb, WPY_REDUCE_NB_MIN)
NB_ENTRY(sum_reduce_nb, WPY_REDUCE_NB_SUM)
NB_ENTRY(prod_reduce_nb, WPY_REDUCE_NB_PROD)

#define NB_METHOD(name, doc)                                                 \
    {#name, (PyCFunction)(void (*)(void))py_##name, WPY_FASTKW, doc}

PyMethodDef wpy_coll_nb_methods[] = {
    NB_METHOD(barrier_all_nb,
              "barrier_all_nb() -> Request: completes this PE's operations "
              "issued so far, and posts a barrier over every PE."),
    NB_METHOD(sync_nb, "sync_nb(team=None) -> Request: posts a sync of the "
                       "team's PEs."),
    NB_METHOD(broadcast_nb,
              "broadcast_nb(target, source, root, size=None, team=None) -> "
              "Request: posts broadcast(); the arrays are in use until it "
              "completes."),
    NB_METHOD(alltoall_nb,
              "alltoall_nb(target, source, size=None, team=None) -> "
              "Request: posts alltoall()."),
    NB_METHOD(reduce_nb,
              "reduce_nb(target, source, op='sum', size=None, team=None) -> "
              "Request: posts reduce()."),
    NB_METHOD(and_reduce_nb, "and_reduce_nb(target, source, size=None, "
                             "team=None) -> Request."),
    NB_METHOD(or_reduce_nb, "or_reduce_nb(target, source, size=None, "
                            "team=None) -> Request."),
    NB_METHOD(xor_reduce_nb, "xor_reduce_nb(target, source, size=None, "
                             "team=None) -> Request."),
    NB_METHOD(max_reduce_nb, "max_reduce_nb(target, source, size=None, "
                             "team=None) -> Request."),
    NB_METHOD(min_reduce_nb, "min_reduce_nb(target, source, size=None, "
                             "team=None) -> Request."),
    NB_METHOD(sum_reduce_nb, "sum_reduce_nb(target, source, size=None, "
                             "team=None) -> Request."),
    NB_METHOD(prod_reduce_nb, "prod_reduce_nb(target, source, size=None, "
                              "team=None) -> Request."),
    {NULL},
};

int wpy_coll_nb_add_types(PyObject *module)
{
    if (PyType_Ready(&req_type) < 0 ||
        PyModule_AddObjectRef(module, "Request", (PyObject *)&req_type) < 0)
        return -1;
    return 0;
}
