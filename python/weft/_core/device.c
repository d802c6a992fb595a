/* Placeholder: device arrays (the device heap) are added in this file. */
#include "wpy.h"

int wpy_device_resolve(PyObject *obj, int want, const char *routine,
                       const char *arg, wpy_buf_t *out)
{
    (void)obj; (void)want; (void)routine; (void)arg; (void)out;
    return 0;
}

PyMethodDef wpy_device_methods[] = {
    {NULL},
};

int wpy_device_add_types(PyObject *module)
{
    (void)module;
    return 0;
}
