/*
 * Bootstrap through PMIx: connect to the launcher (or become a singleton),
 * learn rank and size, end the job on request or when a PE exits early,
 * disconnect.
 */
#include "config.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "boot/boot_pmix.h"
#include "services/shm_names.h"
#include "services/error.h"

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

char *shmi_boot_node_topology(void)
{
    pmix_value_t *val;
    char *xml = NULL;

    if (!shmi_boot_pmix.connected || shmi_boot_pmix.singleton ||
        get_value(SHMI_BOOT_JOB, PMIX_HWLOC_XML_V2, &val) != 0)
        return NULL;
    if (val->type == PMIX_STRING && val->data.string && val->data.string[0])
        xml = strdup(val->data.string);
    PMIX_VALUE_RELEASE(val);
    return xml;
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

/* The value of NAME in the environment the process was started with
 * (/proc/self/environ, which a library's later setenv does not change),
 * copied to buf; NULL when it had none or the file cannot be read. */
static const char *start_env(const char *name, char *buf, size_t size)
{
    static char env[65536];
    static ssize_t len = -2;
    size_t n = strlen(name);
    ssize_t i;

    if (len == -2) {
        int fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
        len = fd < 0 ? -1 : read(fd, env, sizeof(env) - 1);
        if (fd >= 0)
            close(fd);
    }
    for (i = 0; i < len; i += (ssize_t)strlen(env + i) + 1)
        if (strncmp(env + i, name, n) == 0 && env[i + (ssize_t)n] == '=') {
            snprintf(buf, size, "%s", env + i + n + 1);
            return buf;
        }
    return NULL;
}

/*
 * PMIx_Init succeeds in a process where another library initialised PMIx
 * first, and then returns that library's job: Open MPI's MPI_Init (an
 * mpi4py import) under a launcher it does not know, such as oshrun, makes
 * itself a singleton (and points PMIX_NAMESPACE and PMIX_RANK at it), and
 * this PE would then run alone, as PE 0 of 1, beside its job's other PEs.
 * The environment the launcher started the process with says which job
 * and rank it started it as.
 */
static int joined_the_launchers_job(void)
{
    char nspace[PMIX_MAX_NSLEN + 1], rank[32];
    unsigned long r;
    char *end;

    if (!start_env("PMIX_NAMESPACE", nspace, sizeof(nspace)) ||
        !start_env("PMIX_RANK", rank, sizeof(rank)))
        return 0;
    r = strtoul(rank, &end, 10);
    if (strcmp(nspace, shmi_boot_pmix.me.nspace) == 0 &&
        (*end != '\0' || r == (unsigned long)shmi_boot_pmix.me.rank))
        return 0;
    SHMI_LOG(SHMI_LOG_ERROR, "boot",
             "PMIx_Init: the launcher started this PE as rank %s of job %s, "
             "but PMIx answers as rank %u of job %s: another library of "
             "this process initialised PMIx first and is not part of that "
             "job (MPI initialised before Weft under oshrun, e.g. mpi4py "
             "imported before weft); start programs that use MPI and Weft "
             "together with Open MPI's mpirun or srun --mpi=pmix "
             "(docs/python.md)",
             rank, nspace, (unsigned)shmi_boot_pmix.me.rank,
             shmi_boot_pmix.me.nspace);
    return SHMI_EIO;
}

static int connect_pmix(void)
{
    pmix_status_t rc = PMIx_Init(&shmi_boot_pmix.me, NULL, 0);

    if (rc == PMIX_SUCCESS) {
        shmi_boot_pmix.connected = 1;
        return joined_the_launchers_job();
    }
    if (rc != PMIX_ERR_UNREACH) {
        SHMI_LOG(SHMI_LOG_ERROR, "boot", "PMIx_Init failed: %s",
                 PMIx_Error_string(rc));
        return SHMI_EIO;
    }
    /* PMIx 4 still initialises as a singleton here; it owes a finalize. */
    shmi_boot_pmix.connected = 1;
    shmi_boot_pmix.singleton = 1;
    if (getenv("PMIX_NAMESPACE") && getenv("PMIX_RANK")) {
        /* A launcher started this PE as a member of a job, and its server
         * did not take the connection (it refused it, or has gone): going
         * on alone would run a different program than the user started. */
        SHMI_LOG(SHMI_LOG_ERROR, "boot",
                 "PMIx_Init: the launcher's PMIx server (job %s, rank %s) "
                 "refused or did not answer this PE's connection; it cannot "
                 "join its job",
                 getenv("PMIX_NAMESPACE"), getenv("PMIX_RANK"));
        /* libpmix 4.2.2's PMIx_Finalize crashes after this half-made
         * singleton start; the process is ending anyway. */
        shmi_boot_pmix.connected = 0;
        return SHMI_EIO;
    }
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

/*
 * The exit of a PE without shmem_finalize, seen from inside the library.
 *
 * Once a PE has joined (shmi_boot_init connected it), its exit ends the job
 * through PMIx_Abort unless the launcher reports it (oshrun). A PE that
 * exits with status 0 has normally been finalized at exit before this runs
 * (the core's exit handler, src/core/init.c, was registered later), so it
 * is not reported; it is when the other PEs were waiting for it.
 *
 * A PE that exits before it ever reached PMIx is invisible to Slurm's PMIx
 * plugin or Open MPI's mpirun: a task that ends with status 0 looks done,
 * and the PEs that called shmem_init would wait for it in their first fence
 * for ever. Under those launchers such a PE connects at exit and takes part
 * in that first fence (the same shmi_boot_fence), which lets the others
 * through; it then looks for a peer that joined (every joining PE publishes
 * JOINED_KEY before its first fence) and, when there is one, ends the job
 * naming itself. When every PE leaves before shmem_init (a --help run),
 * nobody joined and the job ends normally. A joining PE pays one PMIx_Put;
 * the look-ups happen only in a leaving PE. oshrun watches its PEs itself.
 */
enum boot_phase {
    PHASE_IDLE,       /* shmem_init not reached */
    PHASE_CONNECTING, /* shmi_boot_init is connecting */
    PHASE_JOINED,     /* connected: an exit now ends the job */
    PHASE_LEAVING,    /* exiting before shmem_init */
    PHASE_DONE        /* disconnected (finalized or failed) */
};

/* Published by a joining PE before its first fence. */
#define JOINED_KEY "boot.joined"
/* Published by a leaving PE (its exit status): a joined PE that then misses
 * a key of that PE (shmi_boot_get) knows why, and waits up to LEFT_WAIT_MS
 * for the leaving PE to end the job before it ends it itself. */
#define LEFT_KEY     "boot.left"
#define LEFT_WAIT_MS 3000
/* Set in the environment of the PE's own process: a program that a PE
 * starts inherits the launcher's PMIx variables, yet is not a PE. */
#define TASK_PID_VAR "WEFT_PE_PID"
/* How long a leaving PE waits for one answer about a peer. */
#define LOOKUP_TIMEOUT_S 5

static _Atomic int boot_phase = PHASE_IDLE;
static pid_t task_pid;    /* the PE's process; its forked children differ */
static int leave_enabled; /* a PMIx launcher that is not oshrun */
static int watch_set;     /* the exit handler is registered */

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

/*
 * Ends the job through the launcher. srun and mpirun then kill every PE
 * outright (SIGKILL), so that the names of the job's heap objects
 * (SHMEM_HEAP_OBJECT=posix) would stay in /dev/shm: this PE removes them
 * first, whichever PE of the node made them. A peer still in start-up may
 * create one after that, and PMIx_Abort may block until the kill (Slurm's
 * sometimes does, for 0.1-0.2 s), so a thread removes them again every
 * millisecond meanwhile, for at most ABORT_SWEEP_MS; when PMIx_Abort
 * returns, the caller waits for that thread (the kill usually comes first).
 * oshrun removes what its PEs leave in /dev/shm itself (tools/oshrun_sweep.c).
 */
#define ABORT_SWEEP_MS 2000

static void *abort_sweep(void *job)
{
    for (int ms = 0; ms < ABORT_SWEEP_MS; ms++) {
        shmi_shm_names_abandon(job);
        sleep_ms(1);
    }
    return NULL;
}

static void abort_via_launcher(int status, const char *msg)
{
    char *job = shmi_boot_pmix.me.nspace;
    pthread_t sweeper;
    int swept;

    shmi_boot_unwatch_launcher();
    if (shmi_boot_launcher_reports_exit) {
        fflush(NULL);
        PMIx_Abort(status, msg ? msg : "", NULL, 0);
        return;
    }
    shmi_shm_names_abandon(job);
    swept = pthread_create(&sweeper, NULL, abort_sweep, job) == 0;
    fflush(NULL);
    PMIx_Abort(status, msg ? msg : "", NULL, 0);
    if (swept)
        pthread_join(sweeper, NULL);
    else
        abort_sweep(job);
}

/* A PE that exits without shmem_finalize leaves the others waiting for it:
 * say which one, and have the launcher end the job now (srun would notice
 * only when the PMIx connection drops, and name the PE in PMIx terms). */
static void exit_joined(int status)
{
    char msg[96];

    if (!shmi_boot_pmix.connected || shmi_boot_pmix.finalized ||
        shmi_boot_pmix.singleton)
        return;
    snprintf(msg, sizeof(msg),
             "PE %u exits (status %d) without calling shmem_finalize",
             (unsigned)shmi_boot_pmix.me.rank, status);
    SHMI_LOG(SHMI_LOG_ERROR, "boot", "%s; the job ends", msg);
    if (shmi_boot_launcher_reports_exit)
        return;
    abort_via_launcher(status != 0 ? status : 1, msg);
}

/* What peer published under key, asking this node's PMIx server only:
 * what the peer published came with the fence. NULL when nothing. */
static pmix_value_t *peer_value(int peer, const char *key)
{
    pmix_proc_t proc;
    pmix_info_t info[2];
    pmix_value_t *val = NULL;
    bool yes = true;
    int timeout = LOOKUP_TIMEOUT_S;
    pmix_status_t rc;

    PMIX_LOAD_PROCID(&proc, shmi_boot_pmix.me.nspace, (pmix_rank_t)peer);
    PMIX_INFO_LOAD(&info[0], PMIX_IMMEDIATE, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &timeout, PMIX_INT);
    rc = PMIx_Get(&proc, key, info, 2, &val);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc != PMIX_SUCCESS && val) {
        PMIX_VALUE_RELEASE(val);
        val = NULL;
    }
    return val;
}

static int peer_joined(int peer)
{
    pmix_value_t *val = peer_value(peer, "weft." JOINED_KEY);

    if (!val)
        return 0;
    PMIX_VALUE_RELEASE(val);
    return 1;
}

void shmi_boot_check_left(int pe)
{
    pmix_value_t *val;
    int status = 0;
    char msg[96];

    if (!leave_enabled || pe == (int)shmi_boot_pmix.me.rank)
        return;
    val = peer_value(pe, "weft." LEFT_KEY);
    if (!val)
        return;
    if (val->type == PMIX_BYTE_OBJECT && val->data.bo.size == sizeof(status))
        memcpy(&status, val->data.bo.bytes, sizeof(status));
    PMIX_VALUE_RELEASE(val);
    /* That PE is ending the job and says why; a second message from every
     * other PE would only bury it. Wait for it, within reason. */
    sleep_ms(LEFT_WAIT_MS);
    snprintf(msg, sizeof(msg),
             "PE %d exited (status %d) before calling shmem_init", pe, status);
    SHMI_LOG(SHMI_LOG_ERROR, "boot", "%s; the job ends", msg);
    shmi_boot_abort(status != 0 ? status : 1, msg);
}

/* First peer after this PE (cyclically) that joined; -1 when none did. */
static int find_joined_peer(void)
{
    int me = (int)shmi_boot_pmix.me.rank;
    uint32_t size = 0;

    if (shmi_boot_get_u32(SHMI_BOOT_JOB, PMIX_JOB_SIZE, &size))
        return -1;
    for (int i = 1; i < (int)size; i++) {
        int peer = (me + i) % (int)size;

        if (peer_joined(peer))
            return peer;
    }
    return -1;
}

/* This PE never reached PMIx: meet the others in their first fence, then
 * end the job if any of them joined. A PMIx failure here just lets the
 * process exit: a leaving PE must never hang. */
static void leave_job(int status)
{
    char msg[96];
    int peer;

    memset(&shmi_boot_pmix, 0, sizeof(shmi_boot_pmix));
    if (PMIx_Init(&shmi_boot_pmix.me, NULL, 0) != PMIX_SUCCESS)
        return;
    shmi_boot_pmix.connected = 1;
    if (shmi_boot_put(LEFT_KEY, &status, sizeof(status)) == 0 &&
        shmi_boot_fence() == 0 && (peer = find_joined_peer()) >= 0) {
        snprintf(msg, sizeof(msg),
                 "PE %u exited (status %d) before calling shmem_init",
                 (unsigned)shmi_boot_pmix.me.rank, status);
        SHMI_LOG(SHMI_LOG_ERROR, "boot", "%s, which PE %d called; the job ends",
                 msg, peer);
        abort_via_launcher(status != 0 ? status : 1, msg);
    }
    PMIx_Finalize(NULL, 0);
    shmi_boot_pmix.finalized = 1;
}

static void on_task_exit(int status, void *arg)
{
    int idle = PHASE_IDLE;

    (void)arg;
    if (getpid() != task_pid)
        return;
    if (leave_enabled &&
        atomic_compare_exchange_strong(&boot_phase, &idle, PHASE_LEAVING)) {
        leave_job(status);
        return;
    }
    /* Another thread is connecting: its outcome decides. */
    while (atomic_load(&boot_phase) == PHASE_CONNECTING)
        sleep_ms(1);
    if (atomic_load(&boot_phase) == PHASE_JOINED)
        exit_joined(status);
}

static void exit_watch(void)
{
    if (!watch_set)
        watch_set = on_exit(on_task_exit, NULL) == 0;
}

/* Runs when the library is loaded, before main: only from there can an
 * exit before shmem_init be caught. */
__attribute__((constructor)) static void shmi_boot_exit_setup(void)
{
    const char *nspace = getenv("PMIX_NAMESPACE");
    const char *mark = getenv(TASK_PID_VAR);
    char pid[24];

    task_pid = getpid();
    if (!nspace || !getenv("PMIX_RANK") || strncmp(nspace, "oshrun.", 7) == 0)
        return;
    if (mark && strtol(mark, NULL, 10) != (long)task_pid)
        return; /* started by a PE */
    snprintf(pid, sizeof(pid), "%ld", (long)task_pid);
    setenv(TASK_PID_VAR, pid, 1);
    leave_enabled = 1;
    exit_watch();
}

/* Enters PHASE_CONNECTING; when another thread is already exiting before
 * shmem_init, waits for that exit to end the process. */
static void phase_connecting(void)
{
    int now = atomic_load(&boot_phase);

    while (!atomic_compare_exchange_weak(&boot_phase, &now, PHASE_CONNECTING)) {
        if (now == PHASE_LEAVING) {
            sleep_ms(10);
            now = atomic_load(&boot_phase);
        }
    }
}

/* Published before the first fence, for a PE that leaves (see above). */
static int announce_joined(const shmi_boot_info_t *info)
{
    static const char one = 1;

    if (info->singleton || !leave_enabled)
        return 0;
    return shmi_boot_put(JOINED_KEY, &one, 1);
}

int shmi_boot_init(shmi_boot_info_t *info)
{
    shmi_boot_info_t out;
    int ret;

    if (shmi_boot_pmix.connected && !shmi_boot_pmix.finalized)
        return SHMI_ESTATE;
    /* Before anything is touched: a thread in exit() may be using it. */
    phase_connecting();
    memset(&shmi_boot_pmix, 0, sizeof(shmi_boot_pmix));
    memset(&out, 0, sizeof(out));
    ret = connect_pmix();
    if (ret)
        goto fail;
    task_pid = getpid(); /* the process that joins is the PE */
    exit_watch();
    if (!shmi_boot_pmix.singleton)
        shmi_boot_watch_launcher();
    atomic_store(&boot_phase, PHASE_JOINED);
    ret = read_job(&out);
    if (ret)
        goto fail;
    out.singleton = shmi_boot_pmix.singleton;
    detect_launcher(&out);
    shmi_boot_launcher_reports_exit = strcmp(out.launcher, "oshrun") == 0;
    ret = announce_joined(&out);
    if (!ret)
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
        abort_via_launcher(status, msg);
    _exit(status);
}

void shmi_boot_finalize(void)
{
    shmi_boot_unwatch_launcher();
    if (shmi_boot_pmix.connected && !shmi_boot_pmix.finalized)
        PMIx_Finalize(NULL, 0);
    shmi_boot_pmix.finalized = 1;
    atomic_store(&boot_phase, PHASE_DONE);
    free(shmi_boot_pmix.local_pes);
    free(shmi_boot_pmix.node_of_pe);
    shmi_boot_pmix.local_pes = NULL;
    shmi_boot_pmix.node_of_pe = NULL;
    shmi_boot_local_clear();
}
