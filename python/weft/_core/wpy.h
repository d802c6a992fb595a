/* The weft extension module's shared declarations (python/weft/_core).
 *
 * The module is a thin layer over libweft's public API (<shmem.h>,
 * <shmemx.h>; never src/ internals): each routine resolves its Python
 * arguments to addresses, byte counts, a type and a PE, checks them, and
 * raises a Python exception naming the routine, the argument and the value
 * before any data moves (docs/python.md).  One file per area of the API;
 * each file exports its method table, and module.c joins them. */
#ifndef WPY_H
#define WPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <shmem.h>
#include <shmemx.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Element types ------------------------------------------------------ */

/* The element types a buffer may hold, by kind and size (NumPy's view of
 * them); WPY_T_OTHER is any other (records, bool of odd sizes, ...): such a
 * buffer may be moved as bytes by RMA but has no typed routine. */
typedef enum wpy_type {
    WPY_T_INT8,
    WPY_T_INT16,
    WPY_T_INT32,
    WPY_T_INT64,
    WPY_T_UINT8,
    WPY_T_UINT16,
    WPY_T_UINT32,
    WPY_T_UINT64,
    WPY_T_FLOAT,
    WPY_T_DOUBLE,
    WPY_T_LONGDOUBLE,
    WPY_T_COMPLEXF,
    WPY_T_COMPLEXD,
    WPY_T_BOOL,
    WPY_T_OTHER,
    WPY_NTYPES
} wpy_type_t;

/* NumPy's name of a type ("int32", "float64", ...), for messages. */
const char *wpy_type_name(wpy_type_t type);

/* ---- Buffers ------------------------------------------------------------ */

/* Where a buffer's bytes live. */
enum { WPY_HOST = 0, WPY_DEVICE = 1 };

/* One Python object seen as a contiguous range of elements. */
typedef struct wpy_buf {
    char *addr;       /* first byte */
    size_t nbytes;    /* bytes of the range */
    size_t count;     /* elements */
    size_t itemsize;  /* bytes per element */
    wpy_type_t type;  /* element type */
    int space;        /* WPY_HOST or WPY_DEVICE */
    int has_view;     /* view holds a buffer to release */
    Py_buffer view;   /* the buffer-protocol view, when has_view */
} wpy_buf_t;

/* What a routine asks of a buffer argument. */
enum {
    WPY_READ = 0,        /* read only */
    WPY_WRITE = 1 << 0,  /* written by the routine */
    WPY_SYMMETRIC = 1 << 1, /* must lie in a symmetric block */
};

/* Resolves obj (any buffer-protocol object, a device array of this module,
 * or an object with __cuda_array_interface__) for argument `arg` of routine
 * `routine` (the Python name, "weft.put").  Returns 0, or -1 with a Python
 * exception set that names the routine, the argument and the value.  The
 * buffer must be C- or Fortran-contiguous.  Release with wpy_buf_release. */
int wpy_buf_get(PyObject *obj, int want, const char *routine, const char *arg,
                wpy_buf_t *out);
void wpy_buf_release(wpy_buf_t *buf);

/* Resolves a device array (device.c): 1 when obj is one and *out is filled,
 * 0 when obj is no device array, -1 with an exception set. */
int wpy_device_resolve(PyObject *obj, int want, const char *routine,
                       const char *arg, wpy_buf_t *out);

/* ---- The symmetric blocks of this PE (block.c) --------------------------- */

/* Whether [addr, addr + nbytes) lies inside one live symmetric block of
 * this PE, and in which space: WPY_HOST, WPY_DEVICE, or -1 when it does
 * not. */
int wpy_sym_space(const void *addr, size_t nbytes);
/* Records and forgets a block (called by whoever allocates and frees). */
int wpy_sym_add(void *base, size_t nbytes, int space);
void wpy_sym_remove(void *base);

/* ---- Contexts and teams (ctx.c, team.c) ---------------------------------- */

/* A ctx= or team= argument resolved: the handle and the number of PEs whose
 * numbers a routine on it takes.  None gives the default context and the
 * world team. */
int wpy_ctx_arg(PyObject *obj, const char *routine, shmem_ctx_t *ctx,
                int *npes);
int wpy_team_arg(PyObject *obj, const char *routine, shmem_team_t *team,
                 int *npes);

/* ---- Streams (stream.c) --------------------------------------------------- */

/* A stream= argument: None leaves *stream NULL and returns 0 (the routine
 * runs on the host, now); an int handle or a framework's stream object
 * (CuPy's .ptr, torch's .cuda_stream, Numba's .handle, a weft.Stream) sets
 * *stream and returns 1; -1 with an exception set. */
int wpy_stream_arg(PyObject *obj, const char *routine, void **stream);

/* ---- Argument checks ----------------------------------------------------- */

/* pe in [0, npes): else ValueError "ROUTINE: argument 'pe' = V is not a PE
 * of ... (0 to N-1)". */
int wpy_check_pe(long pe, int npes, const char *routine, const char *arg);
/* The runtime is initialised and not yet finalised. */
int wpy_check_live(const char *routine);
/* Reads a non-negative size argument (None: *out unchanged). */
int wpy_size_arg(PyObject *obj, const char *routine, const char *arg,
                 size_t *out);

/* The module's exception for Weft-level failures a routine reports by
 * return code (ValueError and TypeError cover bad arguments). */
extern PyObject *wpy_error;

/* State shared by the files: set by init, cleared by finalize. */
typedef struct wpy_state {
    int live;     /* shmem_init done and shmem_finalize not yet */
    int my_pe;    /* shmem_my_pe() */
    int n_pes;    /* shmem_n_pes() */
} wpy_state_t;
extern wpy_state_t wpy_state;

/* The calling convention of the routines that take keywords. */
#define WPY_FASTKW (METH_FASTCALL | METH_KEYWORDS)

/* ---- Method tables of each area ------------------------------------------ */

extern PyMethodDef wpy_setup_methods[];
extern PyMethodDef wpy_block_methods[];
extern PyMethodDef wpy_rma_methods[];
extern PyMethodDef wpy_amo_methods[];
extern PyMethodDef wpy_signal_methods[];
extern PyMethodDef wpy_sync_methods[];
extern PyMethodDef wpy_order_methods[];
extern PyMethodDef wpy_coll_methods[];
extern PyMethodDef wpy_coll_nb_methods[];
extern PyMethodDef wpy_team_methods[];
extern PyMethodDef wpy_ctx_methods[];
extern PyMethodDef wpy_lock_methods[];
extern PyMethodDef wpy_device_methods[];
extern PyMethodDef wpy_stream_methods[];

/* Types and constants each area adds to the module (0, or -1 on error). */
int wpy_block_add_types(PyObject *module);
int wpy_team_add_types(PyObject *module);
int wpy_ctx_add_types(PyObject *module);
int wpy_coll_nb_add_types(PyObject *module);
int wpy_device_add_types(PyObject *module);

/* ---- Device back end and stream-ordered buffers (device.c, stream.c) ---- */

/* The back end serving this PE's device heap ("cuda", "hip", "mock") and,
 * in *device (may be NULL), its device ordinal; NULL and -1 where this PE
 * has no device heap or Weft is not live (shmemx_device_info). */
const char *wpy_device_backend(int *device);
/* Whether obj is a weft device array (weft.device.DeviceArray). */
int wpy_is_device_array(PyObject *obj);
/* Adds weft.Stream (stream.c); wpy_device_add_types calls it. */
int wpy_stream_add_types(PyObject *module);

/* With stream=, the C routines need device memory (docs/gpu.md): a
 * symmetric argument in the device heap (symmetric != 0), a local one any
 * device memory.  0, or -1 with a ValueError naming the routine, the
 * argument and the value, before anything is enqueued. */
int wpy_stream_need_device(PyObject *obj, const wpy_buf_t *buf,
                           int symmetric, const char *routine,
                           const char *arg);

/* ---- Teams and contexts across files (team.c, ctx.c) ------------------- */

/* A Team object for a handle (predefined: never destroyed by destroy()). */
PyObject *wpy_team_new(shmem_team_t handle, int predefined);
/* Whether obj is a Team that was destroyed. */
int wpy_team_destroyed(PyObject *obj);
/* A new Ctx on team (a Team, or NULL/None for the world team) with
 * options; weft.Error when the runtime cannot create one. */
PyObject *wpy_ctx_create(const char *routine, PyObject *team, long options);

/* Adds weft.Lock (lock.c). */
int wpy_lock_add_types(PyObject *module);

#endif
