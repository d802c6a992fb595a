/* Library setup, exit and query (OpenSHMEM 1.6 section "Library Setup, Exit,
 * and Query Routines") and accessibility. */
#include "args.h"

static void state_after_init(void)
{
    wpy_state.live = 1;
    wpy_state.my_pe = shmem_my_pe();
    wpy_state.n_pes = shmem_n_pes();
}

static PyObject *py_init(PyObject *mod, PyObject *unused)
{
    int initialized = 0;

    (void)mod;
    (void)unused;
    shmem_query_initialized(&initialized);
    if (!initialized) {
        Py_BEGIN_ALLOW_THREADS
        shmem_init();
        Py_END_ALLOW_THREADS
    }
    state_after_init();
    Py_RETURN_NONE;
}

static PyObject *py_init_thread(PyObject *mod, PyObject *const *args,
                                Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"requested", NULL};
    PyObject *slot[1] = {NULL};
    long requested = SHMEM_THREAD_MULTIPLE;
    int provided = SHMEM_THREAD_SINGLE, initialized = 0, rc = 0;

    (void)mod;
    if (wpy_parse("weft.init_thread", args, nargs, kwnames, names, 0, slot) < 0)
        return NULL;
    if (slot[0] && wpy_long_arg(slot[0], "weft.init_thread", "requested",
                                &requested) < 0)
        return NULL;
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
        PyErr_Format(PyExc_ValueError,
                     "weft.init_thread: argument 'requested' = %ld is not a "
                     "thread level (THREAD_SINGLE to THREAD_MULTIPLE)",
                     requested);
        return NULL;
    }
    shmem_query_initialized(&initialized);
    if (initialized) {
        shmem_query_thread(&provided);
    } else {
        Py_BEGIN_ALLOW_THREADS
        rc = shmem_init_thread((int)requested, &provided);
        Py_END_ALLOW_THREADS
        if (rc != 0) {
            PyErr_Format(wpy_error, "weft.init_thread: shmem_init_thread "
                                    "returned %d", rc);
            return NULL;
        }
    }
    state_after_init();
    return PyLong_FromLong(provided);
}

static PyObject *py_finalize(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    if (!wpy_state.live)
        Py_RETURN_NONE;
    wpy_state.live = 0;
    Py_BEGIN_ALLOW_THREADS
    shmem_finalize();
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static PyObject *py_initialized(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    return PyBool_FromLong(wpy_state.live);
}

static PyObject *py_global_exit(PyObject *mod, PyObject *const *args,
                                Py_ssize_t nargs)
{
    long status = 0;

    (void)mod;
    if (nargs > 1) {
        PyErr_SetString(PyExc_TypeError, "weft.global_exit: takes at most 1 argument");
        return NULL;
    }
    if (nargs == 1 && wpy_long_arg(args[0], "weft.global_exit", "status", &status) < 0)
        return NULL;
    fflush(NULL);
    shmem_global_exit((int)status);
    Py_RETURN_NONE; /* not reached */
}

static PyObject *py_my_pe(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    if (wpy_check_live("weft.my_pe") < 0)
        return NULL;
    return PyLong_FromLong(wpy_state.my_pe);
}

static PyObject *py_n_pes(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    if (wpy_check_live("weft.n_pes") < 0)
        return NULL;
    return PyLong_FromLong(wpy_state.n_pes);
}

static PyObject *py_query_thread(PyObject *mod, PyObject *unused)
{
    int provided = SHMEM_THREAD_SINGLE;

    (void)mod;
    (void)unused;
    if (wpy_check_live("weft.query_thread") < 0)
        return NULL;
    shmem_query_thread(&provided);
    return PyLong_FromLong(provided);
}

static PyObject *py_pe_accessible(PyObject *mod, PyObject *arg)
{
    long pe;

    (void)mod;
    if (wpy_check_live("weft.pe_accessible") < 0 ||
        wpy_long_arg(arg, "weft.pe_accessible", "pe", &pe) < 0)
        return NULL;
    if (pe < 0 || pe >= wpy_state.n_pes)
        Py_RETURN_FALSE;
    return PyBool_FromLong(shmem_pe_accessible((int)pe));
}

static PyObject *py_info_get_version(PyObject *mod, PyObject *unused)
{
    int major = 0, minor = 0;

    (void)mod;
    (void)unused;
    shmem_info_get_version(&major, &minor);
    return Py_BuildValue("(ii)", major, minor);
}

static PyObject *py_info_get_name(PyObject *mod, PyObject *unused)
{
    char name[SHMEM_MAX_NAME_LEN] = "";

    (void)mod;
    (void)unused;
    shmem_info_get_name(name);
    return PyUnicode_FromString(name);
}

/* addr_accessible(a, pe) -> whether the array a is symmetric and reachable
 * on pe. */
static PyObject *py_addr_accessible(PyObject *mod, PyObject *const *args,
                                    Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"addr", "pe", NULL};
    const char *routine = "weft.addr_accessible";
    PyObject *slot[2] = {NULL, NULL};
    wpy_buf_t b;
    int pe, ok;

    (void)mod;
    if (wpy_parse(routine, args, nargs, kwnames, names, 2, slot) < 0 ||
        wpy_check_live(routine) < 0 ||
        wpy_pe_arg(slot[1], wpy_state.n_pes, routine, "pe", &pe) < 0 ||
        wpy_buf_get(slot[0], WPY_READ, routine, "addr", &b) < 0)
        return NULL;
    ok = shmem_addr_accessible(b.addr, pe);
    wpy_buf_release(&b);
    return PyBool_FromLong(ok);
}

/* ptr(target, pe, team=None) -> a NumPy array over pe's copy of the
 * symmetric array target, mapped into this process (same shape, dtype and
 * strides; no copy), or None when pe's memory is not mapped here.  With
 * team=, pe is a PE of that team (shmem_team_ptr). */
static PyObject *py_ptr(PyObject *mod, PyObject *const *args,
                        Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"target", "pe", "team", NULL};
    const char *routine = "weft.ptr";
    PyObject *slot[3] = {NULL, NULL, NULL}, *mv, *call, *res;
    shmem_team_t team;
    wpy_buf_t b;
    void *p;
    int npes, pe;

    (void)mod;
    if (wpy_parse(routine, args, nargs, kwnames, names, 2, slot) < 0 ||
        wpy_check_live(routine) < 0 ||
        wpy_team_arg(slot[2], routine, &team, &npes) < 0 ||
        wpy_pe_arg(slot[1], npes, routine, "pe", &pe) < 0 ||
        wpy_buf_get(slot[0], WPY_SYMMETRIC, routine, "target", &b) < 0)
        return NULL;
    if (b.space != WPY_HOST) {
        wpy_buf_release(&b);
        PyErr_Format(PyExc_ValueError,
                     "%s: argument 'target' is a device array; ptr gives "
                     "NumPy views of host arrays (docs/python-gpu.md says "
                     "how to reach a peer's device array)",
                     routine);
        return NULL;
    }
    p = wpy_given(slot[2]) ? shmem_team_ptr(team, b.addr, pe)
                           : shmem_ptr(b.addr, pe);
    if (!p) {
        wpy_buf_release(&b);
        Py_RETURN_NONE;
    }
    mv = PyMemoryView_FromMemory(p, (Py_ssize_t)b.nbytes,
                                 b.view.readonly ? PyBUF_READ : PyBUF_WRITE);
    wpy_buf_release(&b);
    if (!mv)
        return NULL;
    call = PyTuple_Pack(2, mv, slot[0]);
    Py_DECREF(mv);
    if (!call)
        return NULL;
    res = wpy_array_call("_peer_view", call, NULL);
    Py_DECREF(call);
    return res;
}

/* pcontrol(level=1): shmem_pcontrol (profiling level; Weft ignores it). */
static PyObject *py_pcontrol(PyObject *mod, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"level", NULL};
    PyObject *slot[1] = {NULL};
    long level = 1;

    (void)mod;
    if (wpy_parse("weft.pcontrol", args, nargs, kwnames, names, 0, slot) < 0 ||
        (wpy_given(slot[0]) &&
         wpy_long_arg(slot[0], "weft.pcontrol", "level", &level) < 0))
        return NULL;
    shmem_pcontrol((int)level);
    Py_RETURN_NONE;
}

PyMethodDef wpy_setup_methods[] = {
    {"addr_accessible", (PyCFunction)(void (*)(void))py_addr_accessible,
     WPY_FASTKW,
     "addr_accessible(addr, pe) -> whether the array addr is symmetric and "
     "reachable on pe."},
    {"ptr", (PyCFunction)(void (*)(void))py_ptr, WPY_FASTKW,
     "ptr(target, pe, team=None) -> a zero-copy NumPy view of pe's copy of "
     "the symmetric array target, or None when it is not mapped here."},
    {"pcontrol", (PyCFunction)(void (*)(void))py_pcontrol, WPY_FASTKW,
     "pcontrol(level=1): sets the profiling level (no effect in Weft)."},
    {"init", py_init, METH_NOARGS,
     "init(): initialises Weft (done at import unless WEFT_INIT=0)."},
    {"init_thread", (PyCFunction)(void (*)(void))py_init_thread,
     METH_FASTCALL | METH_KEYWORDS,
     "init_thread(requested=THREAD_MULTIPLE) -> provided level."},
    {"finalize", py_finalize, METH_NOARGS,
     "finalize(): ends Weft on this PE (done at exit)."},
    {"initialized", py_initialized, METH_NOARGS,
     "initialized() -> whether Weft is initialised and not finalised."},
    {"global_exit", (PyCFunction)(void (*)(void))py_global_exit,
     METH_FASTCALL, "global_exit(status=0): ends every PE of the job."},
    {"my_pe", py_my_pe, METH_NOARGS, "my_pe() -> this PE's number."},
    {"n_pes", py_n_pes, METH_NOARGS, "n_pes() -> the number of PEs."},
    {"query_thread", py_query_thread, METH_NOARGS,
     "query_thread() -> the thread level provided."},
    {"pe_accessible", py_pe_accessible, METH_O,
     "pe_accessible(pe) -> whether pe is reachable."},
    {"info_get_version", py_info_get_version, METH_NOARGS,
     "info_get_version() -> (major, minor) of the specification."},
    {"info_get_name", py_info_get_name, METH_NOARGS,
     "info_get_name() -> the vendor string."},
    {NULL},
};
