/* Put-with-signal and signals (OpenSHMEM 1.6 sections "Signaling
 * Operations" and "Point-to-Point Synchronization Routines"): put_signal,
 * put_signal_nbi, signal_fetch, signal_add, signal_set, signal_wait_until,
 * and new_signal/del_signal, in shmem4py's argument order.  A signal is a
 * symmetric uint64 array of one element.  stream= on put_signal and
 * signal_wait_until maps to the shmemx_*_on_stream routines. */
#include "args.h"

/* A signal argument: a symmetric uint64 array of one element. */
static int signal_get(PyObject *obj, int want, const char *routine,
                      const char *arg, wpy_buf_t *sig)
{
    if (wpy_elem_get(obj, want, routine, arg, sig) < 0)
        return -1;
    if (sig->type == WPY_T_UINT64)
        return 0;
    PyErr_Format(PyExc_TypeError,
                 "%s: argument '%s' has dtype %s; a signal is a symmetric "
                 "uint64 array of one element (weft.new_signal())",
                 routine, arg, wpy_type_name(sig->type));
    wpy_buf_release(sig);
    return -1;
}

static int signal_value(PyObject *obj, const char *routine, const char *arg,
                        uint64_t *out)
{
    wpy_val_t v;

    if (wpy_val_from_py(obj, WPY_T_UINT64, routine, arg, "sig_addr", &v) < 0)
        return -1;
    *out = v.v_uint64;
    return 0;
}

/* sig_op: SIGNAL_SET, SIGNAL_ADD, or "set", "add". */
static int sig_op_arg(PyObject *obj, const char *routine, int *op)
{
    static const char *const names[] = {"set", "add", NULL};
    long v;
    int i;

    if (PyUnicode_Check(obj)) {
        if (wpy_name_arg(obj, routine, "sig_op", names,
                         "a signal operation (SIGNAL_SET, SIGNAL_ADD, 'set', "
                         "'add')",
                         &i) < 0)
            return -1;
        *op = i == 0 ? SHMEM_SIGNAL_SET : SHMEM_SIGNAL_ADD;
        return 0;
    }
    if (wpy_long_arg(obj, routine, "sig_op", &v) < 0)
        return -1;
    if (v != SHMEM_SIGNAL_SET && v != SHMEM_SIGNAL_ADD) {
        PyErr_Format(PyExc_ValueError,
                     "%s: argument 'sig_op' = %ld is not SIGNAL_SET (%d) or "
                     "SIGNAL_ADD (%d)",
                     routine, v, SHMEM_SIGNAL_SET, SHMEM_SIGNAL_ADD);
        return -1;
    }
    *op = (int)v;
    return 0;
}

static const char *const put_signal_names[] = {
    "target", "source", "pe",  "sig_addr", "signal",
    "sig_op", "size",   "ctx", "stream",   NULL};

/* put_signal / put_signal_nbi(target, source, pe, sig_addr, signal, sig_op,
 * size=None, ctx=None, stream=None). */
static PyObject *put_signal_call(const char *routine, int nbi,
                                 PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames)
{
    PyObject *slot[9] = {NULL, NULL, NULL, NULL, NULL,
                         NULL, NULL, NULL, NULL};
    PyObject *rma_slot[6];
    rma_call_t c;
    wpy_buf_t sig;
    uint64_t signal;
    size_t nbytes;
    int sig_op;

    if (wpy_parse(routine, args, nargs, kwnames, put_signal_names, 6,
                  slot) < 0)
        return NULL;
    if (nbi && wpy_given(slot[8])) {
        PyErr_Format(PyExc_TypeError,
                     "%s: takes no 'stream' (put_signal with stream= is "
                     "stream-ordered already)",
                     routine);
        return NULL;
    }
    if (signal_value(slot[4], routine, "signal", &signal) < 0 ||
        sig_op_arg(slot[5], routine, &sig_op) < 0)
        return NULL;
    rma_slot[0] = slot[0];
    rma_slot[1] = slot[1];
    rma_slot[2] = slot[2];
    rma_slot[3] = slot[6];
    rma_slot[4] = slot[7];
    rma_slot[5] = slot[8];
    if (wpy_rma_prepare(routine, rma_slot, 1, &c) < 0)
        return NULL;
    if (signal_get(slot[3], WPY_WRITE, routine, "sig_addr", &sig) < 0) {
        wpy_rma_release(&c);
        return NULL;
    }
    if (c.on_stream &&
        wpy_stream_need_device(slot[3], &sig, 1, routine, "sig_addr") < 0) {
        wpy_buf_release(&sig);
        wpy_rma_release(&c);
        return NULL;
    }
    nbytes = c.nelems * c.target.itemsize;
    if (c.on_stream) {
        shmemx_putmem_signal_on_stream(c.target.addr, c.source.addr, nbytes,
                                       (uint64_t *)sig.addr, signal, sig_op,
                                       c.pe, c.stream);
    } else if (nbi) {
        shmem_ctx_putmem_signal_nbi(c.ctx, c.target.addr, c.source.addr,
                                    nbytes, (uint64_t *)sig.addr, signal,
                                    sig_op, c.pe);
    } else if (nbytes <= 65536) {
        shmem_ctx_putmem_signal(c.ctx, c.target.addr, c.source.addr, nbytes,
                                (uint64_t *)sig.addr, signal, sig_op, c.pe);
    } else {
        Py_BEGIN_ALLOW_THREADS
        shmem_ctx_putmem_signal(c.ctx, c.target.addr, c.source.addr, nbytes,
                                (uint64_t *)sig.addr, signal, sig_op, c.pe);
        Py_END_ALLOW_THREADS
    }
    wpy_buf_release(&sig);
    wpy_rma_release(&c);
    Py_RETURN_NONE;
}

static PyObject *py_put_signal(PyObject *m, PyObject *const *a, Py_ssize_t n,
                               PyObject *k)
{
    (void)m;
    return put_signal_call("weft.put_signal", 0, a, n, k);
}

static PyObject *py_put_signal_nbi(PyObject *m, PyObject *const *a,
                                   Py_ssize_t n, PyObject *k)
{
    (void)m;
    return put_signal_call("weft.put_signal_nbi", 1, a, n, k);
}

/* signal_fetch(sig_addr) -> the signal's value, read atomically. */
static PyObject *py_signal_fetch(PyObject *m, PyObject *const *args,
                                 Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"sig_addr", NULL};
    const char *routine = "weft.signal_fetch";
    PyObject *slot[1] = {NULL};
    wpy_buf_t sig;
    uint64_t v;

    (void)m;
    if (wpy_parse(routine, args, nargs, kwnames, names, 1, slot) < 0 ||
        wpy_check_live(routine) < 0 ||
        signal_get(slot[0], WPY_READ, routine, "sig_addr", &sig) < 0)
        return NULL;
    v = shmem_signal_fetch((const uint64_t *)sig.addr);
    wpy_buf_release(&sig);
    return PyLong_FromUnsignedLongLong(v);
}

/* signal_add / signal_set(sig_addr, signal, pe, ctx=None). */
static PyObject *signal_update(const char *routine, int add,
                               PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
    static const char *const names[] = {"sig_addr", "signal", "pe", "ctx",
                                        NULL};
    PyObject *slot[4] = {NULL, NULL, NULL, NULL};
    shmem_ctx_t ctx;
    wpy_buf_t sig;
    uint64_t signal;
    int npes, pe;

    if (wpy_parse(routine, args, nargs, kwnames, names, 3, slot) < 0 ||
        wpy_check_live(routine) < 0 ||
        wpy_ctx_arg(slot[3], routine, &ctx, &npes) < 0 ||
        wpy_pe_arg(slot[2], npes, routine, "pe", &pe) < 0 ||
        signal_value(slot[1], routine, "signal", &signal) < 0 ||
        signal_get(slot[0], WPY_WRITE, routine, "sig_addr", &sig) < 0)
        return NULL;
    if (add)
        shmem_ctx_signal_add(ctx, (uint64_t *)sig.addr, signal, pe);
    else
        shmem_ctx_signal_set(ctx, (uint64_t *)sig.addr, signal, pe);
    wpy_buf_release(&sig);
    Py_RETURN_NONE;
}

static PyObject *py_signal_add(PyObject *m, PyObject *const *a, Py_ssize_t n,
                               PyObject *k)
{
    (void)m;
    return signal_update("weft.signal_add", 1, a, n, k);
}

static PyObject *py_signal_set(PyObject *m, PyObject *const *a, Py_ssize_t n,
                               PyObject *k)
{
    (void)m;
    return signal_update("weft.signal_set", 0, a, n, k);
}

/* signal_wait_until(signal, cmp, value, stream=None) -> the signal's value
 * that satisfied the comparison (None with stream=: the wait is enqueued).
 * A signal already satisfied returns without releasing the GIL. */
static PyObject *py_signal_wait_until(PyObject *m, PyObject *const *args,
                                      Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"signal", "cmp", "value", "stream",
                                        NULL};
    const char *routine = "weft.signal_wait_until";
    PyObject *slot[4] = {NULL, NULL, NULL, NULL};
    wpy_buf_t sig;
    uint64_t value, v;
    void *stream = NULL;
    int cmp, rs;

    (void)m;
    if (wpy_parse(routine, args, nargs, kwnames, names, 3, slot) < 0 ||
        wpy_check_live(routine) < 0 ||
        wpy_cmp_arg(slot[1], routine, "cmp", &cmp) < 0 ||
        signal_value(slot[2], routine, "value", &value) < 0)
        return NULL;
    rs = wpy_stream_arg(slot[3], routine, &stream);
    if (rs < 0 || signal_get(slot[0], WPY_WRITE, routine, "signal", &sig) < 0)
        return NULL;
    if (rs) {
        if (wpy_stream_need_device(slot[0], &sig, 1, routine, "signal") < 0) {
            wpy_buf_release(&sig);
            return NULL;
        }
        shmemx_signal_wait_until_on_stream((uint64_t *)sig.addr, cmp, value,
                                           stream);
        wpy_buf_release(&sig);
        Py_RETURN_NONE;
    }
    if (sig.space == WPY_HOST) {
        v = shmem_signal_fetch((const uint64_t *)sig.addr);
        if (wpy_cmp_u64(v, cmp, value)) {
            wpy_buf_release(&sig);
            return PyLong_FromUnsignedLongLong(v);
        }
    }
    Py_BEGIN_ALLOW_THREADS
    v = shmem_signal_wait_until((uint64_t *)sig.addr, cmp, value);
    Py_END_ALLOW_THREADS
    wpy_buf_release(&sig);
    return PyLong_FromUnsignedLongLong(v);
}

/* new_signal() -> a symmetric uint64 array of one element, zero,
 * allocated with MALLOC_SIGNAL_REMOTE (collective). */
static PyObject *py_new_signal(PyObject *m, PyObject *unused)
{
    PyObject *args, *kw, *res;

    (void)m;
    (void)unused;
    if (wpy_check_live("weft.new_signal") < 0)
        return NULL;
    args = Py_BuildValue("((i)s)", 1, "uint64");
    kw = Py_BuildValue("{s:l}", "hints", (long)SHMEM_MALLOC_SIGNAL_REMOTE);
    res = args && kw ? wpy_array_call("zeros", args, kw) : NULL;
    Py_XDECREF(args);
    Py_XDECREF(kw);
    return res;
}

/* del_signal(signal): frees it (collective). */
static PyObject *py_del_signal(PyObject *m, PyObject *sig)
{
    wpy_buf_t b;
    PyObject *args, *res;

    (void)m;
    if (signal_get(sig, WPY_READ, "weft.del_signal", "signal", &b) < 0)
        return NULL;
    wpy_buf_release(&b);
    args = PyTuple_Pack(1, sig);
    if (!args)
        return NULL;
    res = wpy_array_call("free", args, NULL);
    Py_DECREF(args);
    return res;
}

PyMethodDef wpy_signal_methods[] = {
    {"put_signal", (PyCFunction)(void (*)(void))py_put_signal, WPY_FASTKW,
     "put_signal(target, source, pe, sig_addr, signal, sig_op, size=None, "
     "ctx=None, stream=None): puts source into target on pe, then updates "
     "the signal sig_addr on pe with signal by sig_op (SIGNAL_SET or "
     "SIGNAL_ADD)."},
    {"put_signal_nbi", (PyCFunction)(void (*)(void))py_put_signal_nbi,
     WPY_FASTKW,
     "put_signal_nbi(target, source, pe, sig_addr, signal, sig_op, "
     "size=None, ctx=None): put_signal that returns before completion."},
    {"signal_fetch", (PyCFunction)(void (*)(void))py_signal_fetch,
     WPY_FASTKW, "signal_fetch(sig_addr) -> the signal's value."},
    {"signal_add", (PyCFunction)(void (*)(void))py_signal_add, WPY_FASTKW,
     "signal_add(sig_addr, signal, pe, ctx=None): adds signal to the signal "
     "sig_addr on pe."},
    {"signal_set", (PyCFunction)(void (*)(void))py_signal_set, WPY_FASTKW,
     "signal_set(sig_addr, signal, pe, ctx=None): sets the signal sig_addr "
     "on pe."},
    {"signal_wait_until", (PyCFunction)(void (*)(void))py_signal_wait_until,
     WPY_FASTKW,
     "signal_wait_until(signal, cmp, value, stream=None) -> the signal's "
     "value once it compares true with value."},
    {"new_signal", py_new_signal, METH_NOARGS,
     "new_signal() -> a zeroed symmetric uint64 array of one element "
     "(collective)."},
    {"del_signal", py_del_signal, METH_O,
     "del_signal(signal): frees a signal of new_signal (collective)."},
    {NULL},
};
