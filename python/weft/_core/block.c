/* Symmetric blocks: one shmem_malloc'd (or shmem_align'd) allocation as a
 * Python object that exports its bytes through the buffer protocol, and the
 * table of this PE's live blocks that the symmetric checks search.
 *
 * weft.empty/zeros/array (weft/array.py) wrap a block in a NumPy array, so
 * the array's .base chain ends at the block.  Freeing is explicit and
 * collective (weft.free), as shmem_free is: a block is never freed by
 * Python's garbage collector, since a collector runs at different times on
 * different PEs; what is left is freed by shmem_finalize. */
#include "wpy.h"

#include <string.h>

/* ---- The table of live blocks (sorted by base) --------------------------- */

typedef struct sym_entry {
    char *base;
    size_t nbytes;
    int space;
} sym_entry_t;

static sym_entry_t *sym_table;
static size_t sym_count, sym_cap;

/* Index of the first entry whose base is above addr. */
static size_t sym_upper(const char *addr)
{
    size_t lo = 0, hi = sym_count;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (sym_table[mid].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int wpy_sym_space(const void *addr, size_t nbytes)
{
    const char *a = addr;
    size_t i = sym_upper(a);
    const sym_entry_t *e;

    if (i == 0)
        return -1;
    e = &sym_table[i - 1];
    if (a < e->base || nbytes > e->nbytes ||
        (size_t)(a - e->base) > e->nbytes - nbytes)
        return -1;
    return e->space;
}

int wpy_sym_add(void *base, size_t nbytes, int space)
{
    size_t i;

    if (sym_count == sym_cap) {
        size_t cap = sym_cap ? 2 * sym_cap : 16;
        sym_entry_t *t = PyMem_Realloc(sym_table, cap * sizeof(*t));
        if (!t) {
            PyErr_NoMemory();
            return -1;
        }
        sym_table = t;
        sym_cap = cap;
    }
    i = sym_upper(base);
    memmove(&sym_table[i + 1], &sym_table[i],
            (sym_count - i) * sizeof(*sym_table));
    sym_table[i] = (sym_entry_t){base, nbytes, space};
    sym_count++;
    return 0;
}

void wpy_sym_remove(void *base)
{
    size_t i = sym_upper(base);

    if (i == 0 || sym_table[i - 1].base != (char *)base)
        return;
    i--;
    memmove(&sym_table[i], &sym_table[i + 1],
            (sym_count - i - 1) * sizeof(*sym_table));
    sym_count--;
}

/* ---- The Block type ------------------------------------------------------ */

typedef struct block {
    PyObject_HEAD
    char *base;    /* shmem_malloc's pointer; NULL once freed */
    size_t nbytes; /* bytes asked for (at least 1 is allocated) */
} block_t;

static int block_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    block_t *b = (block_t *)self;

    if (!b->base) {
        PyErr_SetString(PyExc_BufferError,
                        "weft: the symmetric block was freed (weft.free)");
        return -1;
    }
    return PyBuffer_FillInfo(view, self, b->base, (Py_ssize_t)b->nbytes, 0,
                             flags);
}

static PyBufferProcs block_as_buffer = {.bf_getbuffer = block_getbuffer};

static PyObject *block_repr(PyObject *self)
{
    block_t *b = (block_t *)self;

    if (!b->base)
        return PyUnicode_FromString("<weft symmetric block (freed)>");
    return PyUnicode_FromFormat("<weft symmetric block of %zu bytes at %p>",
                                b->nbytes, b->base);
}

static PyObject *block_get_address(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(((block_t *)self)->base);
}

static PyObject *block_get_nbytes(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromSize_t(((block_t *)self)->nbytes);
}

static PyGetSetDef block_getset[] = {
    {"address", block_get_address, NULL, "the block's address (0 once freed)", NULL},
    {"nbytes", block_get_nbytes, NULL, "bytes in the block", NULL},
    {NULL},
};

static PyTypeObject block_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "weft._core.Block",
    .tp_basicsize = sizeof(block_t),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One symmetric allocation of this PE (see weft.empty).",
    .tp_as_buffer = &block_as_buffer,
    .tp_repr = block_repr,
    .tp_getset = block_getset,
};

/* alloc(nbytes, align=0, hints=0, clear=False): collective, like shmem_malloc.
 * An allocation the heap cannot give raises MemoryError naming the size. */
static PyObject *block_alloc(PyObject *mod, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"nbytes", "align", "hints", "clear", NULL};
    Py_ssize_t nbytes, align = 0;
    long hints = 0;
    int clear = 0;
    size_t n;
    void *p;
    block_t *b;

    (void)mod;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "n|nlp:weft.alloc", kwlist,
                                     &nbytes, &align, &hints, &clear))
        return NULL;
    if (wpy_check_live("weft.alloc") < 0)
        return NULL;
    if (nbytes < 0) {
        PyErr_Format(PyExc_ValueError,
                     "weft.alloc: argument 'nbytes' = %zd is negative", nbytes);
        return NULL;
    }
    if (align < 0 || (align & (align - 1))) {
        PyErr_Format(PyExc_ValueError,
                     "weft.alloc: argument 'align' = %zd is not a power of two",
                     align);
        return NULL;
    }
    /* Size 0 gives NULL in C; a Python array of no elements still needs a
     * distinct symmetric address, so one byte is allocated. */
    n = nbytes ? (size_t)nbytes : 1;
    /* A cleared block must be clear on every PE before any PE returns:
     * shmem_calloc clears before its closing barrier; the other forms are
     * cleared here and then synchronized, or a peer's first put could land
     * before this PE's memset. */
    Py_BEGIN_ALLOW_THREADS
    if (align > 1)
        p = shmem_align((size_t)align, n);
    else if (hints)
        p = shmem_malloc_with_hints(n, hints);
    else if (clear)
        p = shmem_calloc(1, n);
    else
        p = shmem_malloc(n);
    if (p && clear && (align > 1 || hints)) {
        memset(p, 0, n);
        shmem_sync_all();
    }
    Py_END_ALLOW_THREADS
    if (!p) {
        PyErr_Format(PyExc_MemoryError,
                     "weft.alloc: the symmetric heap has no %zd bytes left "
                     "(SHMEM_SYMMETRIC_SIZE sets its size)",
                     nbytes);
        return NULL;
    }
    b = PyObject_New(block_t, &block_type);
    if (!b)
        return NULL;
    b->base = p;
    b->nbytes = (size_t)nbytes;
    if (wpy_sym_add(p, n, WPY_HOST) < 0) {
        Py_DECREF(b);
        return NULL;
    }
    return (PyObject *)b;
}

/* free(block): collective, like shmem_free. */
static PyObject *block_free(PyObject *mod, PyObject *arg)
{
    block_t *b;

    (void)mod;
    if (!PyObject_TypeCheck(arg, &block_type)) {
        PyErr_Format(PyExc_TypeError,
                     "weft.free: argument 'block' is a %s, not a symmetric "
                     "block",
                     Py_TYPE(arg)->tp_name);
        return NULL;
    }
    b = (block_t *)arg;
    if (!b->base) {
        PyErr_SetString(PyExc_ValueError,
                        "weft.free: argument 'a' was already freed");
        return NULL;
    }
    if (wpy_check_live("weft.free") < 0)
        return NULL;
    wpy_sym_remove(b->base);
    Py_BEGIN_ALLOW_THREADS
    shmem_free(b->base);
    Py_END_ALLOW_THREADS
    b->base = NULL;
    Py_RETURN_NONE;
}

PyMethodDef wpy_block_methods[] = {
    {"alloc", (PyCFunction)(void (*)(void))block_alloc,
     METH_VARARGS | METH_KEYWORDS,
     "alloc(nbytes, align=0, hints=0, clear=False) -> Block: a symmetric "
     "allocation (collective)."},
    {"free_block", block_free, METH_O,
     "free_block(block): frees a symmetric allocation (collective)."},
    {NULL},
};

int wpy_block_add_types(PyObject *module)
{
    if (PyType_Ready(&block_type) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "Block", (PyObject *)&block_type);
}
