/*
 * libfabric is loaded with dlopen the first time a job needs a fabric.
 *
 * Why: Debian's libfabric links every provider's support library, and some
 * of them (libpsm_infinipath, libpsm2) sleep in their start-up code: merely
 * linking libfabric costs a process about 0.2 s before main. A job whose
 * PEs all sit on one node moves every byte by load/store and never needs a
 * fabric, so it should not pay that. Only the handful of libfabric entry
 * points that are real functions (the rest are inline calls through the
 * objects' operation tables) are resolved here.
 */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>

#include "transports/ofi/ofi_internal.h"

shmt_ofi_lib_t shmt_ofi_lib;

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;
static int lib_ret = SHMI_ENODEV;

static void lib_load(void)
{
    /* The soname of the libfabric 1.x ABI that Weft was built against. */
    void *h = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);

    if (!h) {
        SHMI_LOG(SHMI_LOG_ERROR, "ofi", "cannot load libfabric: %s (install "
                 "the libfabric1 package, or set LD_LIBRARY_PATH to a "
                 "libfabric 1.x)", dlerror());
        return;
    }
    *(void **)&shmt_ofi_lib.getinfo = dlsym(h, "fi_getinfo");
    *(void **)&shmt_ofi_lib.freeinfo = dlsym(h, "fi_freeinfo");
    *(void **)&shmt_ofi_lib.dupinfo = dlsym(h, "fi_dupinfo");
    *(void **)&shmt_ofi_lib.fabric = dlsym(h, "fi_fabric");
    *(void **)&shmt_ofi_lib.strerror = dlsym(h, "fi_strerror");
    if (!shmt_ofi_lib.getinfo || !shmt_ofi_lib.freeinfo ||
        !shmt_ofi_lib.dupinfo || !shmt_ofi_lib.fabric ||
        !shmt_ofi_lib.strerror) {
        SHMI_LOG(SHMI_LOG_ERROR, "ofi", "libfabric.so.1 lacks an entry point "
                 "Weft needs: %s", dlerror());
        return;
    }
    lib_ret = 0;
}

int shmt_ofi_lib_load(void)
{
    pthread_once(&lib_once, lib_load);
    return lib_ret;
}
