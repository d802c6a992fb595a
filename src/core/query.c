/*
 * Queries about the library and the job: my PE, the number of PEs, thread
 * level, initialization state, version and name.
 */
#include "config.h"

#include <string.h>

#include "core/core_decl.h"
#include "core/init.h"
#include "core/state.h"
#include "shmem.h"

int shmi_my_pe(void)
{
    shmi_require_init("shmem_my_pe");
    return shmi_state.boot.rank;
}

int shmi_n_pes(void)
{
    shmi_require_init("shmem_n_pes");
    return shmi_state.boot.size;
}

int shmi_pe_accessible(int pe)
{
    shmi_require_init("shmem_pe_accessible");
    /* Every PE of the job runs this same program and stays reachable
     * until the job ends. */
    return pe >= 0 && pe < shmi_state.boot.size;
}

void shmi_query_thread(int *provided)
{
    shmi_require_init("shmem_query_thread");
    if (provided)
        *provided = shmi_state.thread_level;
}

/* Callable at any time, before shmem_init and after shmem_finalize. */
void shmi_query_initialized(int *initialized)
{
    if (initialized)
        *initialized = shmi_state.initialized;
}

void shmi_query_finalized(int *finalized)
{
    if (finalized)
        *finalized = shmi_state.finalized;
}

/* The version and name are constants: callable at any time. */
void shmi_info_get_version(int *major, int *minor)
{
    if (major)
        *major = SHMEM_MAJOR_VERSION;
    if (minor)
        *minor = SHMEM_MINOR_VERSION;
}

void shmi_info_get_name(char *name)
{
    if (name) {
        strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
        name[SHMEM_MAX_NAME_LEN - 1] = '\0';
    }
}

/* shmem_pcontrol is for profiling tools that intercept it (through the
 * pshmem_ names); the library itself has nothing to change. */
void shmi_pcontrol(int level)
{
    (void)level;
}
