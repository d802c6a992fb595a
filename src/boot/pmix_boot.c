/*
 * Bootstrap through PMIx: connect to the launcher (or become a singleton),
 * learn rank and size, end the job on request, disconnect.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/boot_pmix.h"
#include "core/error.h"

shmi_boot_pmix_t shmi_boot_pmix;

/* The value of a getter call: key looked up in this process's store only
 * (PMIX_OPTIONAL), so a missing key fails at once instead of blocking. */
static int get_value(int rank, const char *key, pmix_value_t **val)
{
    pmix_proc_t proc;
    pmix_info_t opt;
    bool yes = true;
    pmix_status_t rc;

    PMIX_LOAD_PROCID(&proc, shmi_boot_pmix.me.nspace,
                     rank < 0 ? PMIX_RANK_WILDCARD : (pmix_rank_t)rank);
    PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    rc = PMIx_Get(&proc, key, &opt, 1, val);
    PMIX_INFO_DESTRUCT(&opt);
    if (rc != PMIX_SUCCESS || *val == NULL)
        return SHMI_EIO;
    return 0;
}

int shmi_boot_get_u32(int rank, const char *key, uint32_t *out)
{
    pmix_value_t *val;
    int ret = get_value(rank, key, &val);

    if (ret)
        return ret;
    switch (val->type) {
    case PMIX_UINT32: *out = val->data.uint32; break;
    case PMIX_UINT16: *out = val->data.uint16; break;
    case PMIX_UINT64: *out = (uint32_t)val->data.uint64; break;
    case PMIX_INT: *out = (uint32_t)val->data.integer; break;
    case PMIX_PROC_RANK: *out = val->data.rank; break;
    default: ret = SHMI_EIO; break;
    }
    PMIX_VALUE_RELEASE(val);
    return ret;
}

int shmi_boot_get_string(int rank, const char *key, char *out, size_t outlen)
{
    pmix_value_t *val;
    int ret = get_value(rank, key, &val);

    if (ret)
        return ret;
    if (val->type == PMIX_STRING && val->data.string &&
        strlen(val->data.string) < outlen)
        strcpy(out, val->data.string);
    else
        ret = SHMI_EIO;
    PMIX_VALUE_RELEASE(val);
    return ret;
}

/* True when a PMI-1/PMI-2 launcher (MPICH's Hydra, ...) started us: PMIx
 * found no server, yet such a launcher left its marks in the environment. */
static int pmi1_launcher(void)
{
    return getenv("PMI_FD") || getenv("PMI_RANK") || getenv("PMI_PORT") ||
           getenv("PMI_SIZE");
}

/* Names the launcher from what each one leaves in the environment. */
static void detect_launcher(shmi_boot_info_t *info)
{
    const char *name = "pmix";

    if (shmi_boot_pmix.singleton)
        name = "singleton";
    else if (strncmp(shmi_boot_pmix.me.nspace, "oshrun.", 7) == 0)
        name = "oshrun";
    else if (getenv("SLURM_STEP_ID") || getenv("SLURM_JOB_ID"))
        name = "srun";
    else if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PRTE_LAUNCHED") ||
             getenv("OMPI_MCA_orte_hnp_uri") || getenv("OMPI_COMMAND"))
        name = "mpirun";
    snprintf(info->launcher, sizeof(info->launcher), "%s", name);
}

static int connect_pmix(void)
{
    pmix_status_t rc = PMIx_Init(&shmi_boot_pmix.me, NULL, 0);

    if (rc == PMIX_SUCCESS) {
        shmi_boot_pmix.connected = 1;
        return 0;
    }
    if (rc != PMIX_ERR_UNREACH) {
        SHMI_LOG(SHMI_LOG_ERROR, "boot", "PMIx_Init failed: %s",
                 PMIx_Error_string(rc));
        return SHMI_EIO;
    }
    /* PMIx 4 still initialises as a singleton here; it owes a finalize. */
    shmi_boot_pmix.connected = 1;
    shmi_boot_pmix.singleton = 1;
    if (pmi1_launcher()) {
        SHMI_LOG(SHMI_LOG_ERROR, "boot",
                 "this program was started by a PMI-1/PMI-2 launcher (e.g. "
                 "MPICH's mpiexec.hydra), which Weft does not speak; start it "
                 "with oshrun, srun --mpi=pmix, or Open MPI's mpirun");
        return SHMI_ENOTSUP;
    }
    return 0;
}

static int read_job(shmi_boot_info_t *info)
{
    uint32_t size;

    if (shmi_boot_pmix.singleton) {
        info->rank = 0;
        info->size = 1;
        snprintf(info->jobid, sizeof(info->jobid), "singleton.%ld",
                 (long)getpid());
        return 0;
    }
    if (shmi_boot_get_u32(SHMI_BOOT_JOB, PMIX_JOB_SIZE, &size) || size == 0) {
        SHMI_LOG(SHMI_LOG_ERROR, "boot", "the launcher gave no %s",
                 PMIX_JOB_SIZE);
        return SHMI_EIO;
    }
    info->rank = (int)shmi_boot_pmix.me.rank;
    info->size = (int)size;
    /* Namespaces are short in practice; a longer one is cut, not refused. */
    strncpy(info->jobid, shmi_boot_pmix.me.nspace, sizeof(info->jobid) - 1);
    info->jobid[sizeof(info->jobid) - 1] = '\0';
    return 0;
}

/* 1 under oshrun, which reports a PE that exits without shmem_finalize
 * itself, with that PE's exit status. */
static int shmi_boot_launcher_reports_exit;

/* A PE that exits without shmem_finalize leaves the others waiting for it:
 * say which one, and have the launcher end the job now (srun would notice
 * only when the PMIx connection drops, and name the PE in PMIx terms). */
static void shmi_boot_at_exit(int status, void *arg)
{
    char msg[96];

    (void)arg;
    if (!shmi_boot_pmix.connected || shmi_boot_pmix.finalized ||
        shmi_boot_pmix.singleton)
        return;
    snprintf(msg, sizeof(msg),
             "PE %u exits (status %d) without calling shmem_finalize",
             (unsigned)shmi_boot_pmix.me.rank, status);
    SHMI_LOG(SHMI_LOG_ERROR, "boot", "%s; the job ends", msg);
    if (shmi_boot_launcher_reports_exit)
        return;
    fflush(NULL);
    PMIx_Abort(status != 0 ? status : 1, msg, NULL, 0);
}

int shmi_boot_init(shmi_boot_info_t *info)
{
    static int at_exit_set;
    shmi_boot_info_t out;
    int ret;

    if (shmi_boot_pmix.connected && !shmi_boot_pmix.finalized)
        return SHMI_ESTATE;
    memset(&shmi_boot_pmix, 0, sizeof(shmi_boot_pmix));
    memset(&out, 0, sizeof(out));
    ret = connect_pmix();
    if (ret)
        goto fail;
    if (!at_exit_set && on_exit(shmi_boot_at_exit, NULL) == 0)
        at_exit_set = 1;
    ret = read_job(&out);
    if (ret)
        goto fail;
    out.singleton = shmi_boot_pmix.singleton;
    detect_launcher(&out);
    shmi_boot_launcher_reports_exit = strcmp(out.launcher, "oshrun") == 0;
    ret = shmi_boot_locality(&out);
    if (ret)
        goto fail;
    shmi_boot_pmix.local_pes = out.local_pes;
    shmi_boot_pmix.node_of_pe = out.node_of_pe;
    *info = out;
    return 0;

fail:
    free(out.local_pes);
    free(out.node_of_pe);
    shmi_boot_finalize();
    return ret;
}

_Noreturn void shmi_boot_abort(int status, const char *msg)
{
    fflush(NULL);
    /* A singleton has nobody to tell; PMIx_Abort would only wait. */
    if (shmi_boot_pmix.connected && !shmi_boot_pmix.singleton &&
        !shmi_boot_pmix.finalized)
        PMIx_Abort(status, msg ? msg : "", NULL, 0);
    _exit(status);
}

void shmi_boot_finalize(void)
{
    if (shmi_boot_pmix.connected && !shmi_boot_pmix.finalized)
        PMIx_Finalize(NULL, 0);
    shmi_boot_pmix.finalized = 1;
    free(shmi_boot_pmix.local_pes);
    free(shmi_boot_pmix.node_of_pe);
    shmi_boot_pmix.local_pes = NULL;
    shmi_boot_pmix.node_of_pe = NULL;
    shmi_boot_local_clear();
}
