/* Atomic memory operations (OpenSHMEM 1.6 section "Atomic Memory
 * Operations"): every atomic of shmem4py, in its argument order
 * (target, [cond,] [value,] pe, ctx=None; the _nbi forms take fetch
 * first), and atomic_op / atomic_fetch_op / atomic_fetch_op_nbi with an
 * AMO_* name.  The target is a symmetric array of one element; the routine
 * is the typed one for its dtype, through the generated table
 * (typed_gen.h), and the values are converted to that type with overflow
 * checks. */
#include "args.h"

#include <string.h>

/* One Python routine. */
typedef struct amo_form {
    const char *routine;  /* "weft.atomic_fetch_add" */
    const char *cname;    /* "shmem_atomic_fetch_add" */
    int op;               /* WPY_AMO_* */
    unsigned nbi : 1;     /* takes fetch= first */
    unsigned cond : 1;    /* takes cond */
    unsigned value : 1;   /* takes value */
    unsigned returns : 1; /* returns the old value */
    unsigned readonly : 1; /* the remote variable is only read (fetch) */
} amo_form_t;

/* The forms, by WPY_AMO_* (one each). */
static const amo_form_t forms[WPY_AMO_NOPS] = {
    [WPY_AMO_FETCH] = {"weft.atomic_fetch", "shmem_atomic_fetch", WPY_AMO_FETCH, 0, 0, 0, 1, 1},
    [WPY_AMO_SET] = {"weft.atomic_set", "shmem_atomic_set", WPY_AMO_SET, 0, 0, 1, 0, 0},
    [WPY_AMO_SWAP] = {"weft.atomic_swap", "shmem_atomic_swap", WPY_AMO_SWAP, 0, 0, 1, 1, 0},
    [WPY_AMO_COMPARE_SWAP] = {"weft.atomic_compare_swap", "shmem_atomic_compare_swap", WPY_AMO_COMPARE_SWAP, 0, 1, 1, 1, 0},
    [WPY_AMO_FETCH_INC] = {"weft.atomic_fetch_inc", "shmem_atomic_fetch_inc", WPY_AMO_FETCH_INC, 0, 0, 0, 1, 0},
    [WPY_AMO_INC] = {"weft.atomic_inc", "shmem_atomic_inc", WPY_AMO_INC, 0, 0, 0, 0, 0},
    [WPY_AMO_FETCH_ADD] = {"weft.atomic_fetch_add", "shmem_atomic_fetch_add", WPY_AMO_FETCH_ADD, 0, 0, 1, 1, 0},
    [WPY_AMO_ADD] = {"weft.atomic_add", "shmem_atomic_add", WPY_AMO_ADD, 0, 0, 1, 0, 0},
    [WPY_AMO_FETCH_AND] = {"weft.atomic_fetch_and", "shmem_atomic_fetch_and", WPY_AMO_FETCH_AND, 0, 0, 1, 1, 0},
    [WPY_AMO_AND] = {"weft.atomic_and", "shmem_atomic_and", WPY_AMO_AND, 0, 0, 1, 0, 0},
    [WPY_AMO_FETCH_OR] = {"weft.atomic_fetch_or", "shmem_atomic_fetch_or", WPY_AMO_FETCH_OR, 0, 0, 1, 1, 0},
    [WPY_AMO_OR] = {"weft.atomic_or", "shmem_atomic_or", WPY_AMO_OR, 0, 0, 1, 0, 0},
    [WPY_AMO_FETCH_XOR] = {"weft.atomic_fetch_xor", "shmem_atomic_fetch_xor", WPY_AMO_FETCH_XOR, 0, 0, 1, 1, 0},
    [WPY_AMO_XOR] = {"weft.atomic_xor", "shmem_atomic_xor", WPY_AMO_XOR, 0, 0, 1, 0, 0},
    [WPY_AMO_FETCH_NBI] = {"weft.atomic_fetch_nbi", "shmem_atomic_fetch_nbi", WPY_AMO_FETCH_NBI, 1, 0, 0, 0, 1},
    [WPY_AMO_SWAP_NBI] = {"weft.atomic_swap_nbi", "shmem_atomic_swap_nbi", WPY_AMO_SWAP_NBI, 1, 0, 1, 0, 0},
    [WPY_AMO_COMPARE_SWAP_NBI] = {"weft.atomic_compare_swap_nbi", "shmem_atomic_compare_swap_nbi", WPY_AMO_COMPARE_SWAP_NBI, 1, 1, 1, 0, 0},
    [WPY_AMO_FETCH_INC_NBI] = {"weft.atomic_fetch_inc_nbi", "shmem_atomic_fetch_inc_nbi", WPY_AMO_FETCH_INC_NBI, 1, 0, 0, 0, 0},
    [WPY_AMO_FETCH_ADD_NBI] = {"weft.atomic_fetch_add_nbi", "shmem_atomic_fetch_add_nbi", WPY_AMO_FETCH_ADD_NBI, 1, 0, 1, 0, 0},
    [WPY_AMO_FETCH_AND_NBI] = {"weft.atomic_fetch_and_nbi", "shmem_atomic_fetch_and_nbi", WPY_AMO_FETCH_AND_NBI, 1, 0, 1, 0, 0},
    [WPY_AMO_FETCH_OR_NBI] = {"weft.atomic_fetch_or_nbi", "shmem_atomic_fetch_or_nbi", WPY_AMO_FETCH_OR_NBI, 1, 0, 1, 0, 0},
    [WPY_AMO_FETCH_XOR_NBI] = {"weft.atomic_fetch_xor_nbi", "shmem_atomic_fetch_xor_nbi", WPY_AMO_FETCH_XOR_NBI, 1, 0, 1, 0, 0},
};

/* The operands of one call, each NULL when the form takes none. */
typedef struct amo_operands {
    PyObject *fetch, *remote, *cond, *value, *pe, *ctx;
} amo_operands_t;

/* Checks and runs form f; `routine` is the name the caller used (it
 * differs for atomic_op and its kin). */
static PyObject *amo_run(const amo_form_t *f, const char *routine,
                         const amo_operands_t *o)
{
    const char *remote = f->readonly ? "source" : "target";
    wpy_buf_t t, fb;
    wpy_elem_args_t a;
    wpy_elem_fn_t fn;
    PyObject *res = NULL;
    int npes;

    fb.has_view = 0;
    if (wpy_check_live(routine) < 0 ||
        wpy_ctx_arg(o->ctx, routine, &a.ctx, &npes) < 0 ||
        wpy_pe_arg(o->pe, npes, routine, "pe", &a.pe) < 0 ||
        wpy_elem_get(o->remote, f->readonly ? WPY_READ : WPY_WRITE, routine,
                     remote, &t) < 0)
        return NULL;
    fn = wpy_amo_table[t.type][f->op];
    if (!fn) {
        unsigned char have[WPY_NTYPES];
        int ty;

        for (ty = 0; ty < WPY_NTYPES; ty++)
            have[ty] = wpy_amo_table[ty][f->op] != NULL;
        wpy_no_typed_routine(routine, remote, t.type, f->cname, have);
        goto out;
    }
    if ((f->value && wpy_val_from_py(o->value, t.type, routine, "value",
                                     remote, &a.value) < 0) ||
        (f->cond && wpy_val_from_py(o->cond, t.type, routine, "cond", remote,
                                    &a.cond) < 0))
        goto out;
    if (f->nbi) {
        if (wpy_buf_get(o->fetch, WPY_WRITE, routine, "fetch", &fb) < 0)
            goto out;
        if (fb.type != t.type || fb.count != 1) {
            PyErr_Format(fb.type != t.type ? PyExc_TypeError
                                           : PyExc_ValueError,
                         "%s: argument 'fetch' (dtype %s, %zu elements) "
                         "must be one element of the dtype of '%s' (%s)",
                         routine, wpy_type_name(fb.type), fb.count, remote,
                         wpy_type_name(t.type));
            goto out;
        }
        a.fetch = fb.addr;
    }
    a.dest = t.addr;
    fn(&a);
    if (f->returns)
        res = wpy_val_to_py(t.type, &a.result);
    else
        res = Py_NewRef(Py_None);
out:
    wpy_buf_release(&fb);
    wpy_buf_release(&t);
    return res;
}

/* Parses the arguments of form f, in shmem4py's order. */
static PyObject *amo_call(int op, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames)
{
    const amo_form_t *f = &forms[op];
    const char *names[7];
    PyObject *slot[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    PyObject **where[6];
    amo_operands_t o = {NULL, NULL, NULL, NULL, NULL, NULL};
    int n = 0, i;

    if (f->nbi) {
        names[n] = "fetch";
        where[n++] = &o.fetch;
    }
    names[n] = f->readonly ? "source" : "target";
    where[n++] = &o.remote;
    if (f->cond) {
        names[n] = "cond";
        where[n++] = &o.cond;
    }
    if (f->value) {
        names[n] = "value";
        where[n++] = &o.value;
    }
    names[n] = "pe";
    where[n++] = &o.pe;
    names[n] = "ctx";
    where[n++] = &o.ctx;
    names[n] = NULL;
    if (wpy_parse(f->routine, args, nargs, kwnames, names, n - 1, slot) < 0)
        return NULL;
    for (i = 0; i < n; i++)
        *where[i] = slot[i];
    return amo_run(f, f->routine, &o);
}

/* ---- atomic_op, atomic_fetch_op, atomic_fetch_op_nbi --------------------- */

/* The AMO_* names, and the operation each picks for the three routines. */
static const char *const op_names[] = {"inc", "add", "and", "or", "xor",
                                       NULL};
static const int op_plain[] = {WPY_AMO_INC, WPY_AMO_ADD, WPY_AMO_AND,
                               WPY_AMO_OR, WPY_AMO_XOR};
static const int op_fetch[] = {WPY_AMO_FETCH_INC, WPY_AMO_FETCH_ADD,
                               WPY_AMO_FETCH_AND, WPY_AMO_FETCH_OR,
                               WPY_AMO_FETCH_XOR};
static const int op_fetch_nbi[] = {
    WPY_AMO_FETCH_INC_NBI, WPY_AMO_FETCH_ADD_NBI, WPY_AMO_FETCH_AND_NBI,
    WPY_AMO_FETCH_OR_NBI, WPY_AMO_FETCH_XOR_NBI};

/* atomic_op(target, op, value, pe, ctx=None) and its kin (nbi: fetch
 * first).  value is ignored, and may be None, for AMO_INC. */
static PyObject *amo_op_call(const char *routine, const int *map, int nbi,
                             PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
    static const char *const names[] = {"target", "op", "value", "pe", "ctx",
                                        NULL};
    static const char *const nbi_names[] = {"fetch", "target", "op", "value",
                                            "pe",    "ctx",    NULL};
    PyObject *slot[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    PyObject *const *s = nbi ? slot + 1 : slot;
    amo_operands_t o;
    int which;

    if (wpy_parse(routine, args, nargs, kwnames, nbi ? nbi_names : names,
                  nbi ? 5 : 4, slot) < 0 ||
        wpy_name_arg(s[1], routine, "op", op_names,
                     "an atomic operation (AMO_INC, AMO_ADD, AMO_AND, "
                     "AMO_OR, AMO_XOR)",
                     &which) < 0)
        return NULL;
    o.fetch = nbi ? slot[0] : NULL;
    o.remote = s[0];
    o.cond = NULL;
    o.value = s[2];
    o.pe = s[3];
    o.ctx = s[4];
    return amo_run(&forms[map[which]], routine, &o);
}

static PyObject *py_atomic_op(PyObject *m, PyObject *const *a, Py_ssize_t n,
                              PyObject *k)
{
    (void)m;
    return amo_op_call("weft.atomic_op", op_plain, 0, a, n, k);
}

static PyObject *py_atomic_fetch_op(PyObject *m, PyObject *const *a,
                                    Py_ssize_t n, PyObject *k)
{
    (void)m;
    return amo_op_call("weft.atomic_fetch_op", op_fetch, 0, a, n, k);
}

static PyObject *py_atomic_fetch_op_nbi(PyObject *m, PyObject *const *a,
                                        Py_ssize_t n, PyObject *k)
{
    (void)m;
    return amo_op_call("weft.atomic_fetch_op_nbi", op_fetch_nbi, 1, a, n, k);
}

/* One C entry point per routine (METH_FASTCALL passes no closure). */
#define AMO_ENTRY(name, op)                                                  \
    static PyObject *py_atomic_##name(PyObject *m, PyObject *const *a,       \
                                      Py_ssize_t n, PyObject *k)             \
    {                                                                        \
        (void)m;                                                             \
        return amo_call(op, a, n, k);                                        \
    }
AMO_ENTRY(fetch, WPY_AMO_FETCH)
AMO_ENTRY(set, WPY_AMO_SET)
AMO_ENTRY(swap, WPY_AMO_SWAP)
AMO_ENTRY(compare_swap, WPY_AMO_COMPARE_SWAP)
AMO_ENTRY(fetch_inc, WPY_AMO_FETCH_INC)
AMO_ENTRY(inc, WPY_AMO_INC)
AMO_ENTRY(fetch_add, WPY_AMO_FETCH_ADD)
AMO_ENTRY(add, WPY_AMO_ADD)
AMO_ENTRY(fetch_and, WPY_AMO_FETCH_AND)
AMO_ENTRY(and, WPY_AMO_AND)
AMO_ENTRY(fetch_or, WPY_AMO_FETCH_OR)
AMO_ENTRY(or, WPY_AMO_OR)
AMO_ENTRY(fetch_xor, WPY_AMO_FETCH_XOR)
AMO_ENTRY(xor, WPY_AMO_XOR)
AMO_ENTRY(fetch_nbi, WPY_AMO_FETCH_NBI)
AMO_ENTRY(swap_nbi, WPY_AMO_SWAP_NBI)
AMO_ENTRY(compare_swap_nbi, WPY_AMO_COMPARE_SWAP_NBI)
AMO_ENTRY(fetch_inc_nbi, WPY_AMO_FETCH_INC_NBI)
AMO_ENTRY(fetch_add_nbi, WPY_AMO_FETCH_ADD_NBI)
AMO_ENTRY(fetch_and_nbi, WPY_AMO_FETCH_AND_NBI)
AMO_ENTRY(fetch_or_nbi, WPY_AMO_FETCH_OR_NBI)
AMO_ENTRY(fetch_xor_nbi, WPY_AMO_FETCH_XOR_NBI)

#define AMO_METHOD(name, doc)                                                \
    {"atomic_" #name, (PyCFunction)(void (*)(void))py_atomic_##name,         \
     WPY_FASTKW, doc}

PyMethodDef wpy_amo_methods[] = {
    AMO_METHOD(fetch, "atomic_fetch(source, pe, ctx=None) -> the value of "
                      "the symmetric one-element array source on pe."),
    AMO_METHOD(set, "atomic_set(target, value, pe, ctx=None)."),
    AMO_METHOD(swap, "atomic_swap(target, value, pe, ctx=None) -> the old "
                     "value."),
    AMO_METHOD(compare_swap, "atomic_compare_swap(target, cond, value, pe, "
                             "ctx=None) -> the old value (value was written "
                             "if it equalled cond)."),
    AMO_METHOD(fetch_inc, "atomic_fetch_inc(target, pe, ctx=None) -> the "
                          "old value."),
    AMO_METHOD(inc, "atomic_inc(target, pe, ctx=None)."),
    AMO_METHOD(fetch_add, "atomic_fetch_add(target, value, pe, ctx=None) -> "
                          "the old value."),
    AMO_METHOD(add, "atomic_add(target, value, pe, ctx=None)."),
    AMO_METHOD(fetch_and, "atomic_fetch_and(target, value, pe, ctx=None) -> "
                          "the old value."),
    AMO_METHOD(and, "atomic_and(target, value, pe, ctx=None)."),
    AMO_METHOD(fetch_or, "atomic_fetch_or(target, value, pe, ctx=None) -> "
                         "the old value."),
    AMO_METHOD(or, "atomic_or(target, value, pe, ctx=None)."),
    AMO_METHOD(fetch_xor, "atomic_fetch_xor(target, value, pe, ctx=None) -> "
                          "the old value."),
    AMO_METHOD(xor, "atomic_xor(target, value, pe, ctx=None)."),
    AMO_METHOD(fetch_nbi, "atomic_fetch_nbi(fetch, source, pe, ctx=None): "
                          "the value lands in fetch by the next quiet."),
    AMO_METHOD(swap_nbi, "atomic_swap_nbi(fetch, target, value, pe, "
                         "ctx=None)."),
    AMO_METHOD(compare_swap_nbi, "atomic_compare_swap_nbi(fetch, target, "
                                 "cond, value, pe, ctx=None)."),
    AMO_METHOD(fetch_inc_nbi, "atomic_fetch_inc_nbi(fetch, target, pe, "
                              "ctx=None)."),
    AMO_METHOD(fetch_add_nbi, "atomic_fetch_add_nbi(fetch, target, value, "
                              "pe, ctx=None)."),
    AMO_METHOD(fetch_and_nbi, "atomic_fetch_and_nbi(fetch, target, value, "
                              "pe, ctx=None)."),
    AMO_METHOD(fetch_or_nbi, "atomic_fetch_or_nbi(fetch, target, value, pe, "
                             "ctx=None)."),
    AMO_METHOD(fetch_xor_nbi, "atomic_fetch_xor_nbi(fetch, target, value, "
                              "pe, ctx=None)."),
    {"atomic_op", (PyCFunction)(void (*)(void))py_atomic_op, WPY_FASTKW,
     "atomic_op(target, op, value, pe, ctx=None): op is AMO_INC (value "
     "ignored), AMO_ADD, AMO_AND, AMO_OR or AMO_XOR."},
    {"atomic_fetch_op", (PyCFunction)(void (*)(void))py_atomic_fetch_op,
     WPY_FASTKW,
     "atomic_fetch_op(target, op, value, pe, ctx=None) -> the old value."},
    {"atomic_fetch_op_nbi",
     (PyCFunction)(void (*)(void))py_atomic_fetch_op_nbi, WPY_FASTKW,
     "atomic_fetch_op_nbi(fetch, target, op, value, pe, ctx=None)."},
    {NULL},
};
