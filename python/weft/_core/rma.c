/* Remote memory access (OpenSHMEM 1.6 section "Remote Memory Access
 * Routines"): put, get and their non-blocking forms, in shmem4py's argument
 * order (target, source, pe, size=None, ctx=None).  Sizes are in elements;
 * the bytes move with the *mem routines, so any dtype moves. */
#include "args.h"

/* One RMA call's arguments, resolved and checked. */
typedef struct rma_call {
    wpy_buf_t target, source;
    size_t nelems;    /* elements to move */
    int pe;
    shmem_ctx_t ctx;
    void *stream;     /* non-NULL: the *_on_stream form */
} rma_call_t;

static void rma_release(rma_call_t *c)
{
    wpy_buf_release(&c->target);
    wpy_buf_release(&c->source);
}

/* Resolves (target, source, pe, size, ctx, stream); `remote` names the
 * argument that must be symmetric ("target" for put, "source" for get). */
static int rma_prepare(const char *routine, PyObject *const *slot,
                       int put, rma_call_t *c)
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
    rma_release(c);
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
        rma_prepare(routine, slot, put, &c) < 0)
        return NULL;
    nbytes = c.nelems * c.target.itemsize;
    if (c.stream) {
        if (put)
            shmemx_putmem_on_stream(c.target.addr, c.source.addr, nbytes,
                                    c.pe, c.stream);
        else
            shmemx_getmem_on_stream(c.target.addr, c.source.addr, nbytes,
                                    c.pe, c.stream);
        rma_release(&c);
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
    rma_release(&c);
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
    {NULL},
};
