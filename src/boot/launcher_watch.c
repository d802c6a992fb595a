/*
 * A PE whose launcher is gone ends.
 *
 * oshrun ties each PE's process group to its own life in the kernel
 * (tools/oshrun_spawn.c); that does not reach a program that left the group
 * (setsid, a daemon) or closed every descriptor it did not open. Once a PE
 * is connected, libpmix's progress thread notices when the launcher's PMIx
 * server goes away (PMIX_ERR_LOST_CONNECTION): oshrun, or the slurmstepd or
 * daemon of srun and mpirun, killed or crashed. Nobody is left to end the
 * job then, and the peers are as orphaned as this PE, so it ends at once,
 * whatever its main thread is doing (a barrier spin, a wait): the handler
 * runs in libpmix's thread. Costs one event registration at start-up.
 */
#include "config.h"

#include <pmix.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "boot/boot_pmix.h"
#include "services/shm_names.h"
#include "services/error.h"

/* Status of a PE that ends because its launcher is gone (as after SIGHUP,
 * the usual signal for a lost controlling process). */
#define LAUNCHER_GONE_STATUS (128 + SIGHUP)

/* 1 while a lost connection means a lost launcher: from registration until
 * this PE disconnects on purpose (finalize, abort), after which the server
 * may close the connection first. */
static atomic_int watching;

static void on_lost(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t *results,
                    size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                    void *cbdata)
{
    char msg[160];
    int n;

    (void)id, (void)status, (void)source, (void)info, (void)ninfo;
    (void)results, (void)nresults;
    if (atomic_load(&watching)) {
        /* stderr may have gone with the launcher; then nobody reads it. */
        signal(SIGPIPE, SIG_IGN);
        n = snprintf(msg, sizeof(msg),
                     "weft[pe %u] boot error: the connection to the launcher "
                     "was lost (it ended); this PE ends\n",
                     (unsigned)shmi_boot_pmix.me.rank);
        if (n > 0 && write(2, msg, (size_t)n) < 0) {
            /* nothing more to do about it */
        }
        shmi_shm_names_abandon(shmi_boot_pmix.me.nspace);
        _exit(LAUNCHER_GONE_STATUS);
    }
    if (cbfunc)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

void shmi_boot_watch_launcher(void)
{
    pmix_status_t codes[] = {PMIX_ERR_LOST_CONNECTION, PMIX_ERR_UNREACH};
    pmix_status_t rc;

    /* Blocking form: the handler is in place when this returns. */
    rc = PMIx_Register_event_handler(codes, 2, NULL, 0, on_lost, NULL, NULL);
    if (rc < 0) {
        SHMI_LOG(SHMI_LOG_DEBUG, "boot",
                 "cannot watch the connection to the launcher: %s",
                 PMIx_Error_string(rc));
        return;
    }
    atomic_store(&watching, 1);
}

void shmi_boot_unwatch_launcher(void)
{
    atomic_store(&watching, 0);
}
