/* Placeholder: this area's routines are added in this file. */
#include "wpy.h"

PyMethodDef wpy_signal_methods[] = {
    {NULL},
};
