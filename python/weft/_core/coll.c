/* Collectives (OpenSHMEM 1.6 section "Collective Routines"): barrier_all,
 * sync_all, sync, barrier, broadcast, collect, fcollect, alltoall,
 * alltoalls, reductions with every operator and the scans, in shmem4py's
 * argument order (target, source, ..., size=None, team=None).
 *
 * Sizes are in elements.  The data-moving collectives use the *mem
 * routines (any dtype moves); alltoalls, whose strides count elements,
 * the typed routine of the element size; reductions and scans the typed
 * routine of the dtype (typed_gen.h).  stream= maps to the
 * shmemx_*_on_stream routines.  Every check below is made on each PE from
 * its own arguments before it enters the collective, so arguments that
 * are wrong alike on every PE raise on every PE and nobody waits. */
#include "coll.h"

void wpy_coll_release(wpy_coll_call_t *c)
{
    wpy_buf_release(&c->target);
    wpy_buf_release(&c->source);
}

int wpy_coll_prepare(const char *routine, PyObject *target, PyObject *source,
                     PyObject *size, PyObject *team, PyObject *stream_obj,
                     wpy_coll_call_t *c)
{
    c->target.has_view = c->source.has_view = 0;
    c->stream = NULL;
    c->on_stream = 0;
    c->size = (size_t)-1;
    if (wpy_check_live(routine) < 0 ||
        wpy_team_arg(team, routine, &c->team, &c->npes) < 0 ||
        wpy_size_arg(size, routine, "size", &c->size) < 0)
        return -1;
    if (stream_obj) {
        c->on_stream = wpy_stream_arg(stream_obj, routine, &c->stream);
        if (c->on_stream < 0)
            return -1;
    }
    if (wpy_buf_get(target, WPY_WRITE | WPY_SYMMETRIC, routine, "target",
                    &c->target) < 0)
        return -1;
    if (wpy_buf_get(source, WPY_SYMMETRIC, routine, "source",
                    &c->source) < 0)
        goto fail;
    if (c->target.type != c->source.type ||
        c->target.itemsize != c->source.itemsize) {
        PyErr_Format(PyExc_TypeError,
                     "%s: argument 'source' has dtype %s, argument 'target' "
                     "%s: they must be the same",
                     routine, wpy_type_name(c->source.type),
                     wpy_type_name(c->target.type));
        goto fail;
    }
    if (c->on_stream &&
        (wpy_stream_need_device(target, &c->target, 1, routine, "target") < 0 ||
         wpy_stream_need_device(source, &c->source, 1, routine, "source") < 0))
        goto fail;
    return 0;
fail:
    wpy_coll_release(c);
    return -1;
}

int wpy_coll_size_error(const char *routine, size_t size, size_t times,
                        const char *arg, size_t count)
{
    if (times == 1)
        PyErr_Format(PyExc_ValueError,
                     "%s: argument 'size' = %zu is more than argument '%s' "
                     "holds (%zu elements)",
                     routine, size, arg, count);
    else
        PyErr_Format(PyExc_ValueError,
                     "%s: argument 'size' = %zu times %zu PEs is more than "
                     "argument '%s' holds (%zu elements)",
                     routine, size, times, arg, count);
    return -1;
}

/* The routine's return code as weft.Error. */
static PyObject *coll_result(const char *routine, const char *cname, int rc)
{
    if (rc == 0)
        Py_RETURN_NONE;
    PyErr_Format(wpy_error, "%s: %s returned %d", routine, cname, rc);
    return NULL;
}

/* ---- barrier_all, sync_all, sync, barrier -------------------------------- */

static PyObject *py_barrier_all(PyObject *m, PyObject *const *args,
                                Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"stream", NULL};
    const char *routine = "weft.barrier_all";
    PyObject *slot[1] = {NULL};
    void *stream = NULL;
    int rs;

    (void)m;
    if (wpy_parse(routine, args, nargs, kwnames, names, 0, slot) < 0 ||
        wpy_check_live(routine) < 0)
        return NULL;
    rs = wpy_stream_arg(slot[0], routine, &stream);
    if (rs < 0)
        return NULL;
    if (rs) {
        shmemx_barrier_all_on_stream(stream);
        Py_RETURN_NONE;
    }
    Py_BEGIN_ALLOW_THREADS
    shmem_barrier_all();
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

/* sync(team=None, stream=None), and sync_all(stream=None) as sync on the
 * world team. */
static PyObject *sync_call(const char *routine, PyObject *team_obj,
                           PyObject *stream_obj)
{
    shmem_team_t team;
    void *stream = NULL;
    int npes, rs, rc;

    if (wpy_check_live(routine) < 0 ||
        wpy_team_arg(team_obj, routine, &team, &npes) < 0)
        return NULL;
    rs = wpy_stream_arg(stream_obj, routine, &stream);
    if (rs < 0)
        return NULL;
    if (rs)
        return coll_result(routine, "shmemx_team_sync_on_stream",
                           shmemx_team_sync_on_stream(team, stream));
    if (!wpy_given(team_obj)) {
        Py_BEGIN_ALLOW_THREADS
        shmem_sync_all();
        Py_END_ALLOW_THREADS
        Py_RETURN_NONE;
    }
    Py_BEGIN_ALLOW_THREADS
    rc = shmem_team_sync(team);
    Py_END_ALLOW_THREADS
    return coll_result(routine, "shmem_team_sync", rc);
}

static PyObject *py_sync_all(PyObject *m, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"stream", NULL};
    PyObject *slot[1] = {NULL};

    (void)m;
    if (wpy_parse("weft.sync_all", args, nargs, kwnames, names, 0, slot) < 0)
        return NULL;
    return sync_call("weft.sync_all", NULL, slot[0]);
}

static PyObject *py_sync(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames)
{
    static const char *const names[] = {"team", "stream", NULL};
    PyObject *slot[2] = {NULL, NULL};

    (void)m;
    if (wpy_parse("weft.sync", args, nargs, kwnames, names, 0, slot) < 0)
        return NULL;
    return sync_call("weft.sync", slot[0], slot[1]);
}

/* barrier(team=None): quiet (the default context), then sync on the team;
 * on the world team, barrier_all. */
static PyObject *py_barrier(PyObject *m, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"team", NULL};
    const char *routine = "weft.barrier";
    PyObject *slot[1] = {NULL};
    shmem_team_t team;
    int npes, rc;

    (void)m;
    if (wpy_parse(routine, args, nargs, kwnames, names, 0, slot) < 0 ||
        wpy_check_live(routine) < 0 ||
        wpy_team_arg(slot[0], routine, &team, &npes) < 0)
        return NULL;
    if (team == SHMEM_TEAM_WORLD) {
        Py_BEGIN_ALLOW_THREADS
        shmem_barrier_all();
        Py_END_ALLOW_THREADS
        Py_RETURN_NONE;
    }
    Py_BEGIN_ALLOW_THREADS
    shmem_quiet();
    rc = shmem_team_sync(team);
    Py_END_ALLOW_THREADS
    return coll_result(routine, "shmem_team_sync", rc);
}

/* ---- broadcast ------------------------------------------------------------ */

static PyObject *py_broadcast(PyObject *m, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"target", "source", "root", "size",
                                        "team",   "stream", NULL};
    const char *routine = "weft.broadcast";
    PyObject *slot[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    wpy_coll_call_t c;
    size_t size, nbytes;
    long root;
    int rc;

    (void)m;
    if (wpy_parse(routine, args, nargs, kwnames, names, 3, slot) < 0 ||
        wpy_long_arg(slot[2], routine, "root", &root) < 0 ||
        wpy_coll_prepare(routine, slot[0], slot[1], slot[3], slot[4], slot[5],
                     &c) < 0)
        return NULL;
    if (wpy_check_pe(root, c.npes, routine, "root") < 0)
        goto fail;
    size = c.size;
    if (size == (size_t)-1)
        size = c.target.count < c.source.count ? c.target.count
                                               : c.source.count;
    else if (size > c.target.count || size > c.source.count) {
        wpy_coll_size_error(routine, size, 1,
                   size > c.target.count ? "target" : "source",
                   size > c.target.count ? c.target.count : c.source.count);
        goto fail;
    }
    nbytes = size * c.target.itemsize;
    if (c.on_stream) {
        rc = shmemx_broadcastmem_on_stream(c.team, c.target.addr,
                                           c.source.addr, nbytes, (int)root,
                                           c.stream);
    } else {
        Py_BEGIN_ALLOW_THREADS
        rc = shmem_broadcastmem(c.team, c.target.addr, c.source.addr, nbytes,
                                (int)root);
        Py_END_ALLOW_THREADS
    }
    wpy_coll_release(&c);
    return coll_result(routine, c.on_stream ? "shmemx_broadcastmem_on_stream"
                                         : "shmem_broadcastmem",
                       rc);
fail:
    wpy_coll_release(&c);
    return NULL;
}

/* ---- collect, fcollect, alltoall ------------------------------------------ */

enum gather_kind { G_COLLECT, G_FCOLLECT, G_ALLTOALL };

static PyObject *gather_call(const char *routine, enum gather_kind kind,
                             PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
    static const char *const names[] = {"target", "source", "size", "team",
                                        "stream", NULL};
    static const char *const names_nostream[] = {"target", "source", "size",
                                                 "team", NULL};
    PyObject *slot[5] = {NULL, NULL, NULL, NULL, NULL};
    const char *cname;
    wpy_coll_call_t c;
    size_t size, times, nbytes;
    int rc;

    if (wpy_parse(routine, args, nargs, kwnames,
                  kind == G_COLLECT ? names_nostream : names, 2, slot) < 0 ||
        wpy_coll_prepare(routine, slot[0], slot[1], slot[2], slot[3],
                     kind == G_COLLECT ? NULL : slot[4], &c) < 0)
        return NULL;
    size = c.size;
    times = kind == G_COLLECT ? 1 : (size_t)c.npes;
    if (size == (size_t)-1) {
        if (kind != G_ALLTOALL) {
            size = c.source.count;
        } else {
            size_t least = c.target.count < c.source.count ? c.target.count
                                                           : c.source.count;
            if (least % times) {
                PyErr_Format(PyExc_ValueError,
                             "%s: arguments 'target' and 'source' hold %zu "
                             "elements, not a multiple of the team's %zu "
                             "PEs (give size=)",
                             routine, least, times);
                goto fail;
            }
            size = least / times;
        }
    }
    if (kind == G_ALLTOALL ? size * times > c.source.count
                           : size > c.source.count) {
        wpy_coll_size_error(routine, size, kind == G_ALLTOALL ? times : 1, "source",
                   c.source.count);
        goto fail;
    }
    if (size * times > c.target.count) {
        wpy_coll_size_error(routine, size, times, "target", c.target.count);
        goto fail;
    }
    nbytes = size * c.target.itemsize;
    if (c.on_stream) {
        if (kind == G_FCOLLECT) {
            cname = "shmemx_fcollectmem_on_stream";
            rc = shmemx_fcollectmem_on_stream(c.team, c.target.addr,
                                              c.source.addr, nbytes,
                                              c.stream);
        } else {
            cname = "shmemx_alltoallmem_on_stream";
            rc = shmemx_alltoallmem_on_stream(c.team, c.target.addr,
                                              c.source.addr, nbytes,
                                              c.stream);
        }
    } else {
        cname = kind == G_COLLECT    ? "shmem_collectmem"
                : kind == G_FCOLLECT ? "shmem_fcollectmem"
                                     : "shmem_alltoallmem";
        Py_BEGIN_ALLOW_THREADS
        if (kind == G_COLLECT)
            rc = shmem_collectmem(c.team, c.target.addr, c.source.addr,
                                  nbytes);
        else if (kind == G_FCOLLECT)
            rc = shmem_fcollectmem(c.team, c.target.addr, c.source.addr,
                                   nbytes);
        else
            rc = shmem_alltoallmem(c.team, c.target.addr, c.source.addr,
                                   nbytes);
        Py_END_ALLOW_THREADS
    }
    wpy_coll_release(&c);
    return coll_result(routine, cname, rc);
fail:
    wpy_coll_release(&c);
    return NULL;
}

static PyObject *py_collect(PyObject *m, PyObject *const *a, Py_ssize_t n,
                            PyObject *k)
{
    (void)m;
    return gather_call("weft.collect", G_COLLECT, a, n, k);
}

static PyObject *py_fcollect(PyObject *m, PyObject *const *a, Py_ssize_t n,
                             PyObject *k)
{
    (void)m;
    return gather_call("weft.fcollect", G_FCOLLECT, a, n, k);
}

static PyObject *py_alltoall(PyObject *m, PyObject *const *a, Py_ssize_t n,
                             PyObject *k)
{
    (void)m;
    return gather_call("weft.alltoall", G_ALLTOALL, a, n, k);
}

/* ---- alltoalls -------------------------------------------------------------- */

/* Elements an array of count holds at the given stride (shmem4py's
 * ceiling division). */
static size_t strided_count(size_t count, long stride)
{
    return (count + (size_t)stride - 1) / (size_t)stride;
}

static PyObject *py_alltoalls(PyObject *m, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"target", "source", "tst", "sst",
                                        "size",   "team",   NULL};
    const char *routine = "weft.alltoalls";
    PyObject *slot[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    long tst = 1, sst = 1;
    size_t size, tn, sn;
    wpy_coll_call_t c;
    int rc = 0;

    (void)m;
    if (wpy_parse(routine, args, nargs, kwnames, names, 2, slot) < 0 ||
        (wpy_given(slot[2]) &&
         wpy_long_arg(slot[2], routine, "tst", &tst) < 0) ||
        (wpy_given(slot[3]) &&
         wpy_long_arg(slot[3], routine, "sst", &sst) < 0))
        return NULL;
    if (tst < 1 || sst < 1) {
        PyErr_Format(PyExc_ValueError,
                     "%s: argument '%s' = %ld is not a stride (1 or more "
                     "elements)",
                     routine, tst < 1 ? "tst" : "sst", tst < 1 ? tst : sst);
        return NULL;
    }
    if (wpy_coll_prepare(routine, slot[0], slot[1], slot[4], slot[5], NULL,
                     &c) < 0)
        return NULL;
    tn = strided_count(c.target.count, tst);
    sn = strided_count(c.source.count, sst);
    size = c.size;
    if (size == (size_t)-1) {
        size_t least = tn < sn ? tn : sn;
        if (least % (size_t)c.npes) {
            PyErr_Format(PyExc_ValueError,
                         "%s: arguments 'target' and 'source' hold %zu "
                         "elements at their strides, not a multiple of the "
                         "team's %d PEs (give size=)",
                         routine, least, c.npes);
            goto fail;
        }
        size = least / (size_t)c.npes;
    }
    if (size * (size_t)c.npes > tn || size * (size_t)c.npes > sn) {
        wpy_coll_size_error(routine, size, (size_t)c.npes,
                   size * (size_t)c.npes > tn ? "target" : "source",
                   size * (size_t)c.npes > tn ? tn : sn);
        goto fail;
    }
    switch (c.target.itemsize) {
    case 1: case 2: case 4: case 8: break;
    case 16:
        if (sizeof(long double) == 16)
            break;
        /* fall through */
    default:
        PyErr_Format(PyExc_TypeError,
                     "%s: argument 'target' has elements of %zu bytes; "
                     "alltoalls moves elements of 1, 2, 4, 8 or 16",
                     routine, c.target.itemsize);
        goto fail;
    }
    Py_BEGIN_ALLOW_THREADS
    switch (c.target.itemsize) {
    case 1: rc = shmem_uint8_alltoalls(c.team, (uint8_t *)c.target.addr, (const uint8_t *)c.source.addr, tst, sst, size); break;
    case 2: rc = shmem_uint16_alltoalls(c.team, (uint16_t *)c.target.addr, (const uint16_t *)c.source.addr, tst, sst, size); break;
    case 4: rc = shmem_uint32_alltoalls(c.team, (uint32_t *)c.target.addr, (const uint32_t *)c.source.addr, tst, sst, size); break;
    case 8: rc = shmem_uint64_alltoalls(c.team, (uint64_t *)c.target.addr, (const uint64_t *)c.source.addr, tst, sst, size); break;
    case 16: rc = shmem_longdouble_alltoalls(c.team, (long double *)c.target.addr, (const long double *)c.source.addr, tst, sst, size); break;
    }
    Py_END_ALLOW_THREADS
    wpy_coll_release(&c);
    return coll_result(routine, "shmem_alltoalls", rc);
fail:
    wpy_coll_release(&c);
    return NULL;
}

/* ---- Reductions and scans ----------------------------------------------------- */

/* The operators, in the order of WPY_REDUCE_AND ... WPY_REDUCE_PROD. */
const char *const wpy_reduce_op_names[] = {"and", "or",  "xor",  "max",
                                       "min", "sum", "prod", NULL};
static const char *const op_cnames[] = {
    "shmem_and_reduce", "shmem_or_reduce",  "shmem_xor_reduce",
    "shmem_max_reduce", "shmem_min_reduce", "shmem_sum_reduce",
    "shmem_prod_reduce"};

/* op: WPY_REDUCE_* (the scans: WPY_REDUCE_SUM_INSCAN, _EXSCAN).  slot is
 * (target, source, size, team, stream); stream NULL for the scans. */
static PyObject *reduce_run(const char *routine, const char *cname, int op,
                            PyObject *const *slot)
{
    wpy_coll_args_t a;
    wpy_coll_fn_t fn;
    wpy_coll_call_t c;
    size_t size;
    int rc, t;

    if (wpy_coll_prepare(routine, slot[0], slot[1], slot[2], slot[3], slot[4],
                     &c) < 0)
        return NULL;
    fn = c.on_stream ? wpy_reduce_stream_table[c.target.type][op]
                  : wpy_reduce_table[c.target.type][op];
    if (!fn) {
        unsigned char have[WPY_NTYPES];

        for (t = 0; t < WPY_NTYPES; t++)
            have[t] = (c.on_stream ? wpy_reduce_stream_table[t][op]
                                : wpy_reduce_table[t][op]) != NULL;
        wpy_no_typed_routine(routine, "target", c.target.type, cname, have);
        goto fail;
    }
    size = c.size;
    if (size == (size_t)-1)
        size = c.target.count < c.source.count ? c.target.count
                                               : c.source.count;
    else if (size > c.target.count || size > c.source.count) {
        wpy_coll_size_error(routine, size, 1,
                   size > c.target.count ? "target" : "source",
                   size > c.target.count ? c.target.count : c.source.count);
        goto fail;
    }
    a.team = c.team;
    a.dest = c.target.addr;
    a.source = c.source.addr;
    a.nelems = size;
    a.stream = c.stream;
    if (c.on_stream) {
        rc = fn(&a);
    } else {
        Py_BEGIN_ALLOW_THREADS
        rc = fn(&a);
        Py_END_ALLOW_THREADS
    }
    wpy_coll_release(&c);
    return coll_result(routine, cname, rc);
fail:
    wpy_coll_release(&c);
    return NULL;
}

/* reduce(target, source, op='sum', size=None, team=None, stream=None). */
static PyObject *py_reduce(PyObject *m, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"target", "source", "op", "size",
                                        "team",   "stream", NULL};
    const char *routine = "weft.reduce";
    PyObject *slot[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    PyObject *rest[5];
    int op = WPY_REDUCE_SUM;

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
    rest[4] = slot[5];
    return reduce_run(routine, op_cnames[op], op, rest);
}

/* OP_reduce(target, source, size=None, team=None, stream=None). */
static PyObject *reduce_op_call(const char *routine, int op,
                                PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
    static const char *const names[] = {"target", "source", "size", "team",
                                        "stream", NULL};
    PyObject *slot[5] = {NULL, NULL, NULL, NULL, NULL};

    if (wpy_parse(routine, args, nargs, kwnames, names, 2, slot) < 0)
        return NULL;
    return reduce_run(routine, op_cnames[op], op, slot);
}

/* inscan / exscan(target, source, op='sum', size=None, team=None); the
 * specification defines the sum scans only. */
static PyObject *scan_call(const char *routine, int exclusive,
                           PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
    static const char *const names[] = {"target", "source", "op", "size",
                                        "team",   NULL};
    PyObject *slot[5] = {NULL, NULL, NULL, NULL, NULL};
    PyObject *rest[5];
    int op = WPY_REDUCE_SUM;

    if (wpy_parse(routine, args, nargs, kwnames, names, 2, slot) < 0 ||
        (wpy_given(slot[2]) &&
         wpy_name_arg(slot[2], routine, "op", wpy_reduce_op_names,
                      "a reduction operator", &op) < 0))
        return NULL;
    if (op != WPY_REDUCE_SUM) {
        PyErr_Format(PyExc_ValueError,
                     "%s: argument 'op' = %R: OpenSHMEM 1.6 defines the sum "
                     "scans only (OP_SUM)",
                     routine, slot[2]);
        return NULL;
    }
    rest[0] = slot[0];
    rest[1] = slot[1];
    rest[2] = slot[3];
    rest[3] = slot[4];
    rest[4] = NULL;
    return reduce_run(routine,
                      exclusive ? "shmem_sum_exscan" : "shmem_sum_inscan",
                      exclusive ? WPY_REDUCE_SUM_EXSCAN
                                : WPY_REDUCE_SUM_INSCAN,
                      rest);
}

static PyObject *scan_op_call(const char *routine, int exclusive,
                              PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames)
{
    static const char *const names[] = {"target", "source", "size", "team",
                                        NULL};
    PyObject *slot[5] = {NULL, NULL, NULL, NULL, NULL};

    if (wpy_parse(routine, args, nargs, kwnames, names, 2, slot) < 0)
        return NULL;
    return reduce_run(routine,
                      exclusive ? "shmem_sum_exscan" : "shmem_sum_inscan",
                      exclusive ? WPY_REDUCE_SUM_EXSCAN
                                : WPY_REDUCE_SUM_INSCAN,
                      slot);
}

/* One C entry point per routine (METH_FASTCALL passes no closure). */
#define COLL_ENTRY(name, call, arg)                                          \
    static PyObject *py_##name(PyObject *m, PyObject *const *a,              \
                               Py_ssize_t n, PyObject *k)                    \
    {                                                                        \
        (void)m;                                                             \
        return call("weft." #name, arg, a, n, k);                            \
    }
COLL_ENTRY(and_reduce, reduce_op_call, WPY_REDUCE_AND)
COLL_ENTRY(or_reduce, reduce_op_call, WPY_REDUCE_OR)
COLL_ENTRY(xor_reduce, reduce_op_call, WPY_REDUCE_XOR)
COLL_ENTRY(max_reduce, reduce_op_call, WPY_REDUCE_MAX)
COLL_ENTRY(min_reduce, reduce_op_call, WPY_REDUCE_MIN)
COLL_ENTRY(sum_reduce, reduce_op_call, WPY_REDUCE_SUM)
COLL_ENTRY(prod_reduce, reduce_op_call, WPY_REDUCE_PROD)
COLL_ENTRY(inscan, scan_call, 0)
COLL_ENTRY(exscan, scan_call, 1)
COLL_ENTRY(sum_inscan, scan_op_call, 0)
COLL_ENTRY(sum_exscan, scan_op_call, 1)

#define COLL_METHOD(name, doc)                                               \
    {#name, (PyCFunction)(void (*)(void))py_##name, WPY_FASTKW, doc}

PyMethodDef wpy_coll_methods[] = {
    COLL_METHOD(barrier_all,
                "barrier_all(stream=None): completes this PE's operations, "
                "then waits for every PE."),
    COLL_METHOD(sync_all, "sync_all(stream=None): waits for every PE."),
    COLL_METHOD(sync, "sync(team=None, stream=None): waits for the team's "
                      "PEs (shmem_team_sync)."),
    COLL_METHOD(barrier, "barrier(team=None): quiet, then sync(team)."),
    COLL_METHOD(broadcast,
                "broadcast(target, source, root, size=None, team=None, "
                "stream=None): copies source of the team's PE root into "
                "target on every PE of the team."),
    COLL_METHOD(collect,
                "collect(target, source, size=None, team=None): "
                "concatenates each PE's size elements (sizes may differ) "
                "into target on every PE."),
    COLL_METHOD(fcollect,
                "fcollect(target, source, size=None, team=None, "
                "stream=None): concatenates each PE's size elements into "
                "target (npes * size elements) on every PE."),
    COLL_METHOD(alltoall,
                "alltoall(target, source, size=None, team=None, "
                "stream=None): block j of source goes to PE j, into block "
                "i of its target (i this PE)."),
    COLL_METHOD(alltoalls,
                "alltoalls(target, source, tst=1, sst=1, size=None, "
                "team=None): alltoall with element strides."),
    COLL_METHOD(reduce,
                "reduce(target, source, op='sum', size=None, team=None, "
                "stream=None): target = op over the team's sources, "
                "elementwise; op is OP_AND, OP_OR, OP_XOR, OP_MAX, OP_MIN, "
                "OP_SUM or OP_PROD."),
    COLL_METHOD(and_reduce, "and_reduce(target, source, size=None, "
                            "team=None, stream=None)."),
    COLL_METHOD(or_reduce, "or_reduce(target, source, size=None, team=None, "
                           "stream=None)."),
    COLL_METHOD(xor_reduce, "xor_reduce(target, source, size=None, "
                            "team=None, stream=None)."),
    COLL_METHOD(max_reduce, "max_reduce(target, source, size=None, "
                            "team=None, stream=None)."),
    COLL_METHOD(min_reduce, "min_reduce(target, source, size=None, "
                            "team=None, stream=None)."),
    COLL_METHOD(sum_reduce, "sum_reduce(target, source, size=None, "
                            "team=None, stream=None)."),
    COLL_METHOD(prod_reduce, "prod_reduce(target, source, size=None, "
                             "team=None, stream=None)."),
    COLL_METHOD(inscan, "inscan(target, source, op='sum', size=None, "
                        "team=None): inclusive prefix sum over the team's "
                        "PEs in order."),
    COLL_METHOD(exscan, "exscan(target, source, op='sum', size=None, "
                        "team=None): exclusive prefix sum (PE 0 gets "
                        "zeros)."),
    COLL_METHOD(sum_inscan, "sum_inscan(target, source, size=None, "
                            "team=None)."),
    COLL_METHOD(sum_exscan, "sum_exscan(target, source, size=None, "
                            "team=None)."),
    {NULL},
};
