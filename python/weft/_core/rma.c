/* Remote memory access (OpenSHMEM 1.6 section "Remote Memory Access
 * Routines"): put, get and their non-blocking forms, in shmem4py's argument
 * order (target, source, pe, size=None, ctx=None).  Sizes are in elements;
 * the bytes move with the *mem routines, so any dtype moves.  p and g move
 * one element through the typed routines (typed_gen.h); the strided forms
 * iput, iget, ibput and ibget go through the sized routines (iput8 ...
 * iput128), chosen by the element size. */
#include "args.h"

void wpy_rma_release(rma_call_t *c)
{
    wpy_buf_release(&c->target);
    wpy_buf_release(&c->source);
}

int wpy_rma_prepare(const char *routine, PyObject *const *slot, int put,
                    rma_call_t *c)
{
    int npes, want_t = WPY_WRITE, want_s = WPY_READ, rs;
    long pe;
    size_t size = (size_t)-1;

    c->target.has_view = c->source.has_view = 0;
    if (wpy_check_live(routine) < 0)
        return -1;
    if (put)
        want_t |= WPY_SYMMETRIC;
    else
        want_s |= WPY_SYMMETRIC;
    if (wpy_long_arg(slot[2], routine, "pe", &pe) < 0 ||
        wpy_size_arg(slot[3], routine, "size", &size) < 0 ||
        wpy_ctx_arg(slot[4], routine, &c->ctx, &npes) < 0 ||
        wpy_check_pe(pe, npes, routine, "pe") < 0)
        return -1;
    rs = wpy_stream_arg(slot[5], routine, &c->stream);
    if (rs < 0)
        return -1;
    c->on_stream = rs;
    if (rs && slot[4] && slot[4] != Py_None) {
        PyErr_Format(PyExc_ValueError,
                     "%s: give 'ctx' or 'stream', not both (stream-ordered "
                     "routines run on the default context)",
                     routine);
        return -1;
    }
    if (wpy_buf_get(slot[0], want_t, routine, "target", &c->target) < 0)
        return -1;
    if (wpy_buf_get(slot[1], want_s, routine, "source", &c->source) < 0)
        goto fail;
    if (c->target.itemsize != c->source.itemsize ||
        c->target.type != c->source.type) {
        PyErr_Format(PyExc_TypeError,
                     "%s: argument 'source' has dtype %s, argument 'target' "
                     "%s: they must be the same",
                     routine, wpy_type_name(c->source.type),
                     wpy_type_name(c->target.type));
        goto fail;
    }
    if (c->on_stream &&
        (wpy_stream_need_device(slot[0], &c->target, put, routine,
                                "target") < 0 ||
         wpy_stream_need_device(slot[1], &c->source, !put, routine,
                                "source") < 0))
        goto fail;
    if (size == (size_t)-1) {
        size = c->target.count < c->source.count ? c->target.count
                                                  : c->source.count;
    } else if (size > c->target.count || size > c->source.count) {
        PyErr_Format(PyExc_ValueError,
                     "%s: argument 'size' = %zu is more than %s holds (%zu "
                     "elements)",
                     routine, size,
                     size > c->target.count ? "'target'" : "'source'",
                     size > c->target.count ? c->target.count
                                            : c->source.count);
        goto fail;
    }
    c->nelems = size;
    c->pe = (int)pe;
    return 0;
fail:
    wpy_rma_release(c);
    return -1;
}

static const char *const rma_names[] = {"target", "source", "pe", "size",
                                        "ctx",    "stream", NULL};

/* The four blocking/non-blocking put/get calls differ only in the routine
 * they end in. */
enum rma_kind { RMA_PUT, RMA_GET, RMA_PUT_NBI, RMA_GET_NBI };

static PyObject *rma_call(const char *routine, enum rma_kind kind,
                          PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames)
{
    PyObject *slot[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    int put = kind == RMA_PUT || kind == RMA_PUT_NBI;
    rma_call_t c;
    size_t nbytes;

    if (wpy_parse(routine, args, nargs, kwnames, rma_names, 3, slot) < 0 ||
        wpy_rma_prepare(routine, slot, put, &c) < 0)
        return NULL;
    nbytes = c.nelems * c.target.itemsize;
    if (c.on_stream) {
        if (put)
            shmemx_putmem_on_stream(c.target.addr, c.source.addr, nbytes,
                                    c.pe, c.stream);
        else
            shmemx_getmem_on_stream(c.target.addr, c.source.addr, nbytes,
                                    c.pe, c.stream);
        wpy_rma_release(&c);
        Py_RETURN_NONE;
    }
    /* Small transfers run with the GIL held: releasing it costs more than
     * an on-node put of a few KiB. */
    if (nbytes <= 65536) {
        switch (kind) {
        case RMA_PUT: shmem_ctx_putmem(c.ctx, c.target.addr, c.source.addr, nbytes, c.pe); break;
        case RMA_GET: shmem_ctx_getmem(c.ctx, c.target.addr, c.source.addr, nbytes, c.pe); break;
        case RMA_PUT_NBI: shmem_ctx_putmem_nbi(c.ctx, c.target.addr, c.source.addr, nbytes, c.pe); break;
        case RMA_GET_NBI: shmem_ctx_getmem_nbi(c.ctx, c.target.addr, c.source.addr, nbytes, c.pe); break;
        }
    } else {
        Py_BEGIN_ALLOW_THREADS
        switch (kind) {
        case RMA_PUT: shmem_ctx_putmem(c.ctx, c.target.addr, c.source.addr, nbytes, c.pe); break;
        case RMA_GET: shmem_ctx_getmem(c.ctx, c.target.addr, c.source.addr, nbytes, c.pe); break;
        case RMA_PUT_NBI: shmem_ctx_putmem_nbi(c.ctx, c.target.addr, c.source.addr, nbytes, c.pe); break;
        case RMA_GET_NBI: shmem_ctx_getmem_nbi(c.ctx, c.target.addr, c.source.addr, nbytes, c.pe); break;
        }
        Py_END_ALLOW_THREADS
    }
    wpy_rma_release(&c);
    Py_RETURN_NONE;
}

static PyObject *py_put(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)m;
    return rma_call("weft.put", RMA_PUT, a, n, k);
}

static PyObject *py_get(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)m;
    return rma_call("weft.get", RMA_GET, a, n, k);
}

static PyObject *py_put_nbi(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)m;
    return rma_call("weft.put_nbi", RMA_PUT_NBI, a, n, k);
}

static PyObject *py_get_nbi(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)m;
    return rma_call("weft.get_nbi", RMA_GET_NBI, a, n, k);
}

/* ---- p and g ------------------------------------------------------------- */

static const char *const p_names[] = {"target", "value", "pe", "ctx", NULL};
static const char *const g_names[] = {"source", "pe", "ctx", NULL};

/* The typed p/g for buf's dtype, or a TypeError naming it. */
static wpy_elem_fn_t elem_fn(const char *routine, const char *arg,
                             const char *cname, const wpy_buf_t *buf, int op)
{
    wpy_elem_fn_t fn = wpy_rma_table[buf->type][op];
    unsigned char have[WPY_NTYPES];
    int t;

    if (fn)
        return fn;
    for (t = 0; t < WPY_NTYPES; t++)
        have[t] = wpy_rma_table[t][op] != NULL;
    wpy_no_typed_routine(routine, arg, buf->type, cname, have);
    return NULL;
}

/* p(target, value, pe, ctx=None): writes value into the symmetric
 * one-element array target on pe. */
static PyObject *py_p(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                      PyObject *kwnames)
{
    const char *routine = "weft.p";
    PyObject *slot[4] = {NULL, NULL, NULL, NULL};
    wpy_elem_args_t a;
    wpy_elem_fn_t fn;
    wpy_buf_t t;
    int npes;

    (void)m;
    if (wpy_parse(routine, args, nargs, kwnames, p_names, 3, slot) < 0 ||
        wpy_check_live(routine) < 0 ||
        wpy_ctx_arg(slot[3], routine, &a.ctx, &npes) < 0 ||
        wpy_pe_arg(slot[2], npes, routine, "pe", &a.pe) < 0 ||
        wpy_elem_get(slot[0], WPY_WRITE, routine, "target", &t) < 0)
        return NULL;
    fn = elem_fn(routine, "target", "shmem_p", &t, WPY_RMA_P);
    if (!fn || wpy_val_from_py(slot[1], t.type, routine, "value", "target",
                               &a.value) < 0) {
        wpy_buf_release(&t);
        return NULL;
    }
    a.dest = t.addr;
    fn(&a);
    wpy_buf_release(&t);
    Py_RETURN_NONE;
}

/* g(source, pe, ctx=None) -> the value of the symmetric one-element array
 * source on pe. */
static PyObject *py_g(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                      PyObject *kwnames)
{
    const char *routine = "weft.g";
    PyObject *slot[3] = {NULL, NULL, NULL};
    wpy_elem_args_t a;
    wpy_elem_fn_t fn;
    wpy_buf_t s;
    int npes;

    (void)m;
    if (wpy_parse(routine, args, nargs, kwnames, g_names, 2, slot) < 0 ||
        wpy_check_live(routine) < 0 ||
        wpy_ctx_arg(slot[2], routine, &a.ctx, &npes) < 0 ||
        wpy_pe_arg(slot[1], npes, routine, "pe", &a.pe) < 0 ||
        wpy_elem_get(slot[0], WPY_READ, routine, "source", &s) < 0)
        return NULL;
    fn = elem_fn(routine, "source", "shmem_g", &s, WPY_RMA_G);
    if (!fn) {
        wpy_buf_release(&s);
        return NULL;
    }
    a.dest = s.addr;
    fn(&a);
    wpy_buf_release(&s);
    return wpy_val_to_py(s.type, &a.result);
}

/* ---- Strided: iput, iget, ibput, ibget -------------------------------------- */

enum strided_kind { ST_IPUT, ST_IGET, ST_IBPUT, ST_IBGET };

static const char *const istride_names[] = {"target", "source", "pe", "tst",
                                            "sst",    "size",   "ctx", NULL};
static const char *const ibstride_names[] = {"target", "source", "pe",
                                             "tst",    "sst",    "bsize",
                                             "size",   "ctx",    NULL};

/* A stride argument: an integer of at least 1 (None: *out unchanged). */
static int stride_arg(PyObject *obj, const char *routine, const char *arg,
                      ptrdiff_t *out)
{
    long v;

    if (!wpy_given(obj))
        return 0;
    if (wpy_long_arg(obj, routine, arg, &v) < 0)
        return -1;
    if (v < 1) {
        PyErr_Format(PyExc_ValueError,
                     "%s: argument '%s' = %ld is not a stride (1 or more "
                     "elements)",
                     routine, arg, v);
        return -1;
    }
    *out = v;
    return 0;
}

/* Blocks of bsize elements, stride apart, that an array of count elements
 * holds. */
static size_t blocks_in(size_t count, ptrdiff_t stride, size_t bsize)
{
    if (count < bsize)
        return 0;
    return (count - bsize) / (size_t)stride + 1;
}

static PyObject *strided_call(const char *routine, enum strided_kind kind,
                              PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames)
{
    int blocked = kind == ST_IBPUT || kind == ST_IBGET;
    int put = kind == ST_IPUT || kind == ST_IBPUT;
    PyObject *slot[8] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    PyObject *size_obj, *ctx_obj;
    ptrdiff_t tst = 1, sst = 1, bsize = 1;
    size_t size = (size_t)-1, have;
    wpy_buf_t t, s;
    shmem_ctx_t ctx;
    int npes, pe;

    if (wpy_parse(routine, args, nargs, kwnames,
                  blocked ? ibstride_names : istride_names, 3, slot) < 0 ||
        wpy_check_live(routine) < 0)
        return NULL;
    size_obj = blocked ? slot[6] : slot[5];
    ctx_obj = blocked ? slot[7] : slot[6];
    if (wpy_ctx_arg(ctx_obj, routine, &ctx, &npes) < 0 ||
        wpy_pe_arg(slot[2], npes, routine, "pe", &pe) < 0 ||
        stride_arg(slot[3], routine, "tst", &tst) < 0 ||
        stride_arg(slot[4], routine, "sst", &sst) < 0 ||
        (blocked && stride_arg(slot[5], routine, "bsize", &bsize) < 0) ||
        wpy_size_arg(size_obj, routine, "size", &size) < 0)
        return NULL;
    if (wpy_buf_get(slot[0], WPY_WRITE | (put ? WPY_SYMMETRIC : 0), routine,
                    "target", &t) < 0)
        return NULL;
    if (wpy_buf_get(slot[1], put ? WPY_READ : WPY_SYMMETRIC, routine,
                    "source", &s) < 0) {
        wpy_buf_release(&t);
        return NULL;
    }
    if (t.type != s.type || t.itemsize != s.itemsize) {
        PyErr_Format(PyExc_TypeError,
                     "%s: argument 'source' has dtype %s, argument 'target' "
                     "%s: they must be the same",
                     routine, wpy_type_name(s.type), wpy_type_name(t.type));
        goto fail;
    }
    have = blocks_in(t.count, tst, (size_t)bsize);
    if (blocks_in(s.count, sst, (size_t)bsize) < have)
        have = blocks_in(s.count, sst, (size_t)bsize);
    if (size == (size_t)-1) {
        size = have;
    } else if (size > have) {
        PyErr_Format(PyExc_ValueError,
                     "%s: argument 'size' = %zu is more %s than 'target' "
                     "(stride %td) and 'source' (stride %td) hold (%zu)",
                     routine, size, blocked ? "blocks" : "elements", tst,
                     sst, have);
        goto fail;
    }
    switch (t.itemsize) {
    case 1: case 2: case 4: case 8: case 16: break;
    default:
        PyErr_Format(PyExc_TypeError,
                     "%s: argument 'target' has elements of %zu bytes; the "
                     "strided routines move elements of 1, 2, 4, 8 or 16",
                     routine, t.itemsize);
        goto fail;
    }
    Py_BEGIN_ALLOW_THREADS
    switch (kind * 32 + (int)t.itemsize) {
    case ST_IPUT * 32 + 1: shmem_ctx_iput8(ctx, t.addr, s.addr, tst, sst, size, pe); break;
    case ST_IPUT * 32 + 2: shmem_ctx_iput16(ctx, t.addr, s.addr, tst, sst, size, pe); break;
    case ST_IPUT * 32 + 4: shmem_ctx_iput32(ctx, t.addr, s.addr, tst, sst, size, pe); break;
    case ST_IPUT * 32 + 8: shmem_ctx_iput64(ctx, t.addr, s.addr, tst, sst, size, pe); break;
    case ST_IPUT * 32 + 16: shmem_ctx_iput128(ctx, t.addr, s.addr, tst, sst, size, pe); break;
    case ST_IGET * 32 + 1: shmem_ctx_iget8(ctx, t.addr, s.addr, tst, sst, size, pe); break;
    case ST_IGET * 32 + 2: shmem_ctx_iget16(ctx, t.addr, s.addr, tst, sst, size, pe); break;
    case ST_IGET * 32 + 4: shmem_ctx_iget32(ctx, t.addr, s.addr, tst, sst, size, pe); break;
    case ST_IGET * 32 + 8: shmem_ctx_iget64(ctx, t.addr, s.addr, tst, sst, size, pe); break;
    case ST_IGET * 32 + 16: shmem_ctx_iget128(ctx, t.addr, s.addr, tst, sst, size, pe); break;
    case ST_IBPUT * 32 + 1: shmem_ctx_ibput8(ctx, t.addr, s.addr, tst, sst, bsize, size, pe); break;
    case ST_IBPUT * 32 + 2: shmem_ctx_ibput16(ctx, t.addr, s.addr, tst, sst, bsize, size, pe); break;
    case ST_IBPUT * 32 + 4: shmem_ctx_ibput32(ctx, t.addr, s.addr, tst, sst, bsize, size, pe); break;
    case ST_IBPUT * 32 + 8: shmem_ctx_ibput64(ctx, t.addr, s.addr, tst, sst, bsize, size, pe); break;
    case ST_IBPUT * 32 + 16: shmem_ctx_ibput128(ctx, t.addr, s.addr, tst, sst, bsize, size, pe); break;
    case ST_IBGET * 32 + 1: shmem_ctx_ibget8(ctx, t.addr, s.addr, tst, sst, bsize, size, pe); break;
    case ST_IBGET * 32 + 2: shmem_ctx_ibget16(ctx, t.addr, s.addr, tst, sst, bsize, size, pe); break;
    case ST_IBGET * 32 + 4: shmem_ctx_ibget32(ctx, t.addr, s.addr, tst, sst, bsize, size, pe); break;
    case ST_IBGET * 32 + 8: shmem_ctx_ibget64(ctx, t.addr, s.addr, tst, sst, bsize, size, pe); break;
    case ST_IBGET * 32 + 16: shmem_ctx_ibget128(ctx, t.addr, s.addr, tst, sst, bsize, size, pe); break;
    }
    Py_END_ALLOW_THREADS
    wpy_buf_release(&t);
    wpy_buf_release(&s);
    Py_RETURN_NONE;
fail:
    wpy_buf_release(&t);
    wpy_buf_release(&s);
    return NULL;
}

static PyObject *py_iput(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)m;
    return strided_call("weft.iput", ST_IPUT, a, n, k);
}

static PyObject *py_iget(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)m;
    return strided_call("weft.iget", ST_IGET, a, n, k);
}

static PyObject *py_ibput(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)m;
    return strided_call("weft.ibput", ST_IBPUT, a, n, k);
}

static PyObject *py_ibget(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)m;
    return strided_call("weft.ibget", ST_IBGET, a, n, k);
}

PyMethodDef wpy_rma_methods[] = {
    {"put", (PyCFunction)(void (*)(void))py_put, WPY_FASTKW,
     "put(target, source, pe, size=None, ctx=None, stream=None): copies "
     "source to the symmetric target on pe."},
    {"get", (PyCFunction)(void (*)(void))py_get, WPY_FASTKW,
     "get(target, source, pe, size=None, ctx=None, stream=None): copies the "
     "symmetric source on pe to target."},
    {"put_nbi", (PyCFunction)(void (*)(void))py_put_nbi, WPY_FASTKW,
     "put_nbi(target, source, pe, size=None, ctx=None): put that returns "
     "before completion (weft.quiet completes it)."},
    {"get_nbi", (PyCFunction)(void (*)(void))py_get_nbi, WPY_FASTKW,
     "get_nbi(target, source, pe, size=None, ctx=None): get that returns "
     "before completion (weft.quiet completes it)."},
    {"p", (PyCFunction)(void (*)(void))py_p, WPY_FASTKW,
     "p(target, value, pe, ctx=None): writes value into the symmetric "
     "one-element array target on pe."},
    {"g", (PyCFunction)(void (*)(void))py_g, WPY_FASTKW,
     "g(source, pe, ctx=None) -> the value of the symmetric one-element "
     "array source on pe."},
    {"iput", (PyCFunction)(void (*)(void))py_iput, WPY_FASTKW,
     "iput(target, source, pe, tst=1, sst=1, size=None, ctx=None): copies "
     "size elements, sst apart in source, to tst apart in the symmetric "
     "target on pe."},
    {"iget", (PyCFunction)(void (*)(void))py_iget, WPY_FASTKW,
     "iget(target, source, pe, tst=1, sst=1, size=None, ctx=None): copies "
     "size elements, sst apart in the symmetric source on pe, to tst apart "
     "in target."},
    {"ibput", (PyCFunction)(void (*)(void))py_ibput, WPY_FASTKW,
     "ibput(target, source, pe, tst=1, sst=1, bsize=1, size=None, "
     "ctx=None): copies size blocks of bsize elements, block starts sst "
     "apart in source, to block starts tst apart in the symmetric target."},
    {"ibget", (PyCFunction)(void (*)(void))py_ibget, WPY_FASTKW,
     "ibget(target, source, pe, tst=1, sst=1, bsize=1, size=None, "
     "ctx=None): the blocked get, as ibput."},
    {NULL},
};
