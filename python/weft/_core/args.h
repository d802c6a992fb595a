/* Argument parsing for METH_FASTCALL | METH_KEYWORDS routines: positional
 * and keyword arguments into one array of slots, without building a tuple
 * or dict (the calls on the data path parse in tens of nanoseconds), and
 * the conversions and checks the routine families share: element values,
 * comparison and reduction operators, one-element symmetric variables. */
#ifndef WPY_ARGS_H
#define WPY_ARGS_H

#include "typed_gen.h"
#include "wpy.h"

/* Fills slot[i] with the argument named names[i] (names ends with NULL),
 * given by position or keyword; slots not given are left as they were
 * (NULL, or a default the caller set).  The first `required` must be
 * given.  Returns 0, or -1 with a TypeError naming the routine. */
int wpy_parse(const char *routine, PyObject *const *args, Py_ssize_t nargs,
              PyObject *kwnames, const char *const *names, int required,
              PyObject **slot);

/* A Python int as a C long / int64 / uint64, with a TypeError naming the
 * routine and argument. */
int wpy_long_arg(PyObject *obj, const char *routine, const char *arg,
                 long *out);

/* Whether a slot holds a value (given and not None). */
static inline int wpy_given(PyObject *obj)
{
    return obj && obj != Py_None;
}

/* ---- Element values ------------------------------------------------------ */

/* obj as one value of element type `type` (the dtype of argument `of`):
 * an integer type takes a Python int (or anything with __index__) that
 * fits it, else OverflowError; a float type a real number; a complex type
 * a complex.  Errors name the routine, the argument and the value. */
int wpy_val_from_py(PyObject *obj, wpy_type_t type, const char *routine,
                    const char *arg, const char *of, wpy_val_t *out);
/* A value of element type `type` as a Python int, float or complex. */
PyObject *wpy_val_to_py(wpy_type_t type, const wpy_val_t *val);

/* TypeError "ROUTINE: argument 'ARG' has dtype D; OpenSHMEM has no
 * CNAME for it (it has one for: ...)", listing the types whose have[] is
 * set.  Returns -1. */
int wpy_no_typed_routine(const char *routine, const char *arg,
                         wpy_type_t type, const char *cname,
                         const unsigned char have[WPY_NTYPES]);

/* ---- Operators ----------------------------------------------------------- */

/* A comparison: CMP_EQ ... CMP_LE, or one of the strings "==", "!=", ">",
 * ">=", "<", "<=", "eq", "ne", "gt", "ge", "lt", "le" (any case). */
int wpy_cmp_arg(PyObject *obj, const char *routine, const char *arg,
                int *cmp);
/* Whether `value cmp ref` holds, for unsigned 64-bit values. */
int wpy_cmp_u64(uint64_t value, int cmp, uint64_t ref);

/* One of `names` (NULL-terminated) given as a string, any case; its index.
 * `what` describes the list in the message ("a reduction operator"). */
int wpy_name_arg(PyObject *obj, const char *routine, const char *arg,
                 const char *const *names, const char *what, int *index);

/* ---- Buffers ------------------------------------------------------------- */

/* A symmetric array of exactly one element (an atomic's target, a wait's
 * variable, a signal, a lock): wpy_buf_get with WPY_SYMMETRIC, then a
 * ValueError naming the size when it holds other than one element. */
int wpy_elem_get(PyObject *obj, int want, const char *routine,
                 const char *arg, wpy_buf_t *out);

/* A PE number argument: an integer in [0, npes). */
int wpy_pe_arg(PyObject *obj, int npes, const char *routine, const char *arg,
               int *pe);

/* ---- put and get ---------------------------------------------------------- */

/* One put or get's arguments, resolved and checked (rma.c). */
typedef struct rma_call {
    wpy_buf_t target, source;
    size_t nelems;    /* elements to move */
    int pe;
    shmem_ctx_t ctx;
    void *stream;     /* the stream of the *_on_stream form */
    int on_stream;    /* stream= given: the *_on_stream form (a NULL stream
                       * is the default stream, not the host path) */
} rma_call_t;

/* Resolves slot[0..5] = (target, source, pe, size, ctx, stream): the
 * target of a put (put != 0) or the source of a get must be symmetric,
 * both of one dtype, size (None: as many as both hold) no more than
 * either holds.  0, or -1 with an exception set and nothing held.  Release
 * with wpy_rma_release. */
int wpy_rma_prepare(const char *routine, PyObject *const *slot, int put,
                    rma_call_t *c);
void wpy_rma_release(rma_call_t *c);

/* ---- The Python side of the package ---------------------------------------- */

/* Calls weft.array.NAME(*args, **kwargs) (kwargs may be NULL): the
 * symmetric arrays that some routines allocate (new_signal, new_lock) and
 * the views that ptr returns are NumPy arrays made there. */
PyObject *wpy_array_call(const char *name, PyObject *args, PyObject *kwargs);

#endif
