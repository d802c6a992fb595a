/* The DLPack exchange structures (https://dmlc.github.io/dlpack/latest/),
 * the subset the weft extension produces and reads: a tensor's address,
 * device, element type, shape and strides, and the managed forms that carry
 * a deleter.  Written from the published specification (DLPack 1.0; the
 * unversioned DLManagedTensor of 0.x is still what older consumers ask
 * for); the layout and values are the specification's, so any producer or
 * consumer agrees with them.
 *
 * Python exchange (the specification's "Python specification for DLPack"):
 * obj.__dlpack__() returns a PyCapsule named "dltensor" holding a
 * DLManagedTensor *, or, when the consumer passed max_version >= (1, 0),
 * one named "dltensor_versioned" holding a DLManagedTensorVersioned *.  A
 * consumer that takes the tensor renames the capsule "used_dltensor"
 * ("used_dltensor_versioned") and calls the deleter when done; a capsule
 * that dies unconsumed calls the deleter from its own destructor. */
#ifndef WPY_DLPACK_H
#define WPY_DLPACK_H

#include "wpy.h" /* Python.h first, then <stdint.h> */

/* The version of the specification these structures follow. */
#define WPY_DLPACK_MAJOR 1
#define WPY_DLPACK_MINOR 0

/* Device types (DLDeviceType; an int32 in the structures). */
enum {
    WPY_DL_CPU = 1,           /* kDLCPU: host memory */
    WPY_DL_CUDA = 2,          /* kDLCUDA: CUDA device memory */
    WPY_DL_CUDA_HOST = 3,     /* kDLCUDAHost: pinned host memory */
    WPY_DL_ROCM = 10,         /* kDLROCM: ROCm (HIP) device memory */
    WPY_DL_ROCM_HOST = 11,    /* kDLROCMHost: pinned host memory */
    WPY_DL_EXT_DEV = 12,      /* kDLExtDev: the specification's reserved
                                 type for extension devices; Weft's mock */
    WPY_DL_CUDA_MANAGED = 13, /* kDLCUDAManaged: CUDA managed memory */
};

/* Element type codes (DLDataTypeCode). */
enum {
    WPY_DL_INT = 0,     /* kDLInt: signed integer */
    WPY_DL_UINT = 1,    /* kDLUInt: unsigned integer */
    WPY_DL_FLOAT = 2,   /* kDLFloat: IEEE floating point */
    WPY_DL_BFLOAT = 4,  /* kDLBfloat */
    WPY_DL_COMPLEX = 5, /* kDLComplex: two floats, bits counts both */
    WPY_DL_BOOL = 6,    /* kDLBool: one byte, 0 or 1 */
};

/* DLManagedTensorVersioned.flags bits. */
#define WPY_DL_FLAG_READ_ONLY (UINT64_C(1) << 0) /* the consumer must not write */
#define WPY_DL_FLAG_IS_COPIED (UINT64_C(1) << 1) /* the producer made a copy */

/* DLPackVersion. */
typedef struct wpy_dl_version {
    uint32_t major;
    uint32_t minor;
} wpy_dl_version_t;

/* DLDevice: where the memory is. */
typedef struct wpy_dl_device {
    int32_t device_type; /* WPY_DL_* device type */
    int32_t device_id;   /* the ordinal of the device of that type */
} wpy_dl_device_t;

/* DLDataType: one element is `lanes` values of `bits` bits of kind `code`. */
typedef struct wpy_dl_dtype {
    uint8_t code;   /* WPY_DL_INT, ... */
    uint8_t bits;   /* bits of one lane (complex128: 128) */
    uint16_t lanes; /* 1 for plain (non-vector) elements */
} wpy_dl_dtype_t;

/* DLTensor: the array itself.  shape and strides have ndim entries;
 * strides count elements, not bytes; the first element is at
 * (char *)data + byte_offset. */
typedef struct wpy_dl_tensor {
    void *data;
    wpy_dl_device_t device;
    int32_t ndim;
    wpy_dl_dtype_t dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} wpy_dl_tensor_t;

/* DLManagedTensor (0.x, capsule "dltensor"): the tensor, the producer's
 * context and the function that releases both. */
typedef struct wpy_dl_managed {
    wpy_dl_tensor_t dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct wpy_dl_managed *self);
} wpy_dl_managed_t;

/* DLManagedTensorVersioned (1.x, capsule "dltensor_versioned"). */
typedef struct wpy_dl_managed_v {
    wpy_dl_version_t version;
    void *manager_ctx;
    void (*deleter)(struct wpy_dl_managed_v *self);
    uint64_t flags; /* WPY_DL_FLAG_* */
    wpy_dl_tensor_t dl_tensor;
} wpy_dl_managed_v_t;

/* ---- The extension's DLPack and device-array helpers (device.c, dlpack.c) */

/* The DLPack device of this PE's device heap: kDLCUDA on cuda, kDLROCM on
 * hip, kDLExtDev on the mock; its ordinal.  -1 without a device heap. */
int wpy_dl_device(int32_t *type, int32_t *id);

/* An array-interface type string ("<f8", "|b1") as an element type and
 * size; -1 for what no routine takes (object, non-native byte order). */
int wpy_typestr_parse(const char *typestr, wpy_type_t *type, size_t *itemsize);

/* Resolves a __cuda_array_interface__ dictionary (foreign.c), as
 * wpy_device_resolve: 1 and *out filled, or -1 with an exception set; a
 * stream the producer names is synchronized first (cuda, hip). */
int wpy_cai_resolve(PyObject *cai, int want, const char *routine,
                    const char *arg, wpy_buf_t *out);

/* Whether shape and byte strides (NULL: C order) describe one contiguous
 * range, in C or Fortran order. */
int wpy_dims_contig(const Py_ssize_t *shape, const Py_ssize_t *strides,
                    Py_ssize_t ndim, size_t itemsize);

/* Checks the arguments of a __dlpack__ call (the Python specification's
 * stream, max_version, dl_device, copy); *versioned is 1 when the consumer
 * takes a DLManagedTensorVersioned.  0, or -1 with an exception set. */
int wpy_dlpack_check_request(const char *routine, PyObject *stream,
                             PyObject *max_version, PyObject *dl_device,
                             PyObject *copy, int *versioned);

/* A capsule exporting ndim extents and byte strides of type at addr on this
 * PE's device; the tensor holds a reference to owner until the consumer's
 * deleter (or the unconsumed capsule) releases it. */
PyObject *wpy_dlpack_export(PyObject *owner, char *addr, int ndim,
                            const Py_ssize_t *shape,
                            const Py_ssize_t *strides, size_t itemsize,
                            wpy_type_t type, int versioned);

/* Resolves a foreign object that offers __dlpack__ (as wpy_device_resolve):
 * 1 and *out filled (the capsule is kept until wpy_buf_release), 0 when obj
 * has no __dlpack__, -1 with an exception set. */
int wpy_dlpack_import(PyObject *obj, int want, const char *routine,
                      const char *arg, wpy_buf_t *out);

#endif
