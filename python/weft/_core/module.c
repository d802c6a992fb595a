/* The extension module weft._core: joins each area's method table and adds
 * the OpenSHMEM constants.  The Python package (weft/__init__.py) re-exports
 * what users call. */
#include "wpy.h"

PyObject *wpy_error;
wpy_state_t wpy_state;

static PyMethodDef *const area_methods[] = {
    wpy_setup_methods, wpy_block_methods, wpy_rma_methods,
    wpy_amo_methods,   wpy_signal_methods, wpy_sync_methods,
    wpy_order_methods, wpy_coll_methods,  wpy_coll_nb_methods,
    wpy_team_methods,
    wpy_ctx_methods,   wpy_lock_methods,  wpy_device_methods,
    wpy_stream_methods,
};

/* The constants of <shmem.h> a Python program uses, under their names less
 * the SHMEM_ prefix (as shmem4py spells them). */
static const struct {
    const char *name;
    long value;
} constants[] = {
    {"MAJOR_VERSION", SHMEM_MAJOR_VERSION},
    {"MINOR_VERSION", SHMEM_MINOR_VERSION},
    {"THREAD_SINGLE", SHMEM_THREAD_SINGLE},
    {"THREAD_FUNNELED", SHMEM_THREAD_FUNNELED},
    {"THREAD_SERIALIZED", SHMEM_THREAD_SERIALIZED},
    {"THREAD_MULTIPLE", SHMEM_THREAD_MULTIPLE},
    {"CTX_SERIALIZED", SHMEM_CTX_SERIALIZED},
    {"CTX_PRIVATE", SHMEM_CTX_PRIVATE},
    {"CTX_NOSTORE", SHMEM_CTX_NOSTORE},
    {"MALLOC_ATOMICS_REMOTE", SHMEM_MALLOC_ATOMICS_REMOTE},
    {"MALLOC_SIGNAL_REMOTE", SHMEM_MALLOC_SIGNAL_REMOTE},
    {"SIGNAL_SET", SHMEM_SIGNAL_SET},
    {"SIGNAL_ADD", SHMEM_SIGNAL_ADD},
    {"CMP_EQ", SHMEM_CMP_EQ},
    {"CMP_NE", SHMEM_CMP_NE},
    {"CMP_GT", SHMEM_CMP_GT},
    {"CMP_GE", SHMEM_CMP_GE},
    {"CMP_LT", SHMEM_CMP_LT},
    {"CMP_LE", SHMEM_CMP_LE},
    {"TEAM_NUM_CONTEXTS", SHMEM_TEAM_NUM_CONTEXTS},
};

/* The operator names of atomic_op (AMO_*) and reduce (OP_*): strings, as
 * shmem4py has them. */
static const struct {
    const char *name;
    const char *value;
} names[] = {
    {"AMO_INC", "inc"}, {"AMO_ADD", "add"}, {"AMO_AND", "and"},
    {"AMO_OR", "or"},   {"AMO_XOR", "xor"}, {"OP_AND", "and"},
    {"OP_OR", "or"},    {"OP_XOR", "xor"},  {"OP_MAX", "max"},
    {"OP_MIN", "min"},  {"OP_SUM", "sum"},  {"OP_PROD", "prod"},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "weft._core",
    .m_doc = "Weft's OpenSHMEM 1.6 API for Python (the C core; use the "
             "package weft).",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__core(void)
{
    PyObject *m = PyModule_Create(&module_def);
    size_t i;

    if (!m)
        return NULL;
    for (i = 0; i < sizeof(area_methods) / sizeof(area_methods[0]); i++)
        if (PyModule_AddFunctions(m, area_methods[i]) < 0)
            goto fail;
    for (i = 0; i < sizeof(constants) / sizeof(constants[0]); i++)
        if (PyModule_AddIntConstant(m, constants[i].name, constants[i].value) < 0)
            goto fail;
    if (PyModule_AddStringConstant(m, "VENDOR_STRING", SHMEM_VENDOR_STRING) < 0)
        goto fail;
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (PyModule_AddStringConstant(m, names[i].name, names[i].value) < 0)
            goto fail;
    wpy_error = PyErr_NewExceptionWithDoc(
        "weft.Error",
        "A Weft routine reported failure (its return code and name are "
        "in the message).",
        PyExc_RuntimeError, NULL);
    if (!wpy_error || PyModule_AddObjectRef(m, "Error", wpy_error) < 0)
        goto fail;
    if (wpy_block_add_types(m) < 0 || wpy_team_add_types(m) < 0 ||
        wpy_ctx_add_types(m) < 0 || wpy_device_add_types(m) < 0 ||
        wpy_lock_add_types(m) < 0 || wpy_coll_nb_add_types(m) < 0)
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
