/*
 * oshrun as a PMIx server host: the library (libpmix's server side) does the
 * work; oshrun describes the job, registers each PE before it is forked and
 * answers the few requests a single-node job makes.
 *
 * Callbacks run on libpmix's progress thread; they only record what happened
 * under job->lock and wake the main loop.
 */
#include "config.h"

#include <errno.h>
#include <hwloc.h>
#include <pmix.h>
#include <pmix_server.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tools/oshrun.h"

static oshrun_job_t *the_job;
/* The node's topology as oshrun discovered it for libpmix (server_init);
 * libpmix borrows it until PMIx_server_finalize. */
static hwloc_topology_t node_topo;

/* Seconds oshrun waits for libpmix to complete one registration (it takes
 * milliseconds; a progress thread that never answers would otherwise hold
 * the start of the job for ever). */
#define REGISTER_WAIT 30
/* How often a wait for libpmix looks for a signal that asks oshrun to stop
 * (milliseconds). */
#define REGISTER_POLL_MS 50
/* Seconds a registration may still take once a signal asked oshrun to
 * stop. */
#define STOP_GRACE 1.0

/* One non-blocking registration. Allocated: a wait that is given up (no
 * answer within REGISTER_WAIT, or within STOP_GRACE of a signal) leaves it
 * to the callback, which frees it when libpmix calls it at last. */
typedef struct sync_op {
    pthread_mutex_t lock;
    pthread_cond_t done_cv;
    int done, abandoned;
    pmix_status_t status;
} sync_op_t;

static sync_op_t *sync_new(void)
{
    sync_op_t *op = calloc(1, sizeof(*op));

    if (op) {
        pthread_mutex_init(&op->lock, NULL);
        pthread_cond_init(&op->done_cv, NULL);
    }
    return op;
}

static void sync_free(sync_op_t *op)
{
    pthread_mutex_destroy(&op->lock);
    pthread_cond_destroy(&op->done_cv);
    free(op);
}

static void sync_done(pmix_status_t status, void *cbdata)
{
    sync_op_t *op = cbdata;
    int abandoned;

    pthread_mutex_lock(&op->lock);
    op->status = status;
    op->done = 1;
    abandoned = op->abandoned;
    pthread_cond_signal(&op->done_cv);
    pthread_mutex_unlock(&op->lock);
    if (abandoned)
        sync_free(op);
}

/* Waits for a registration: 0 with its *status (PMIX_ERR_TIMEOUT when
 * libpmix did not answer within REGISTER_WAIT seconds), or 1 when stoppable
 * and a signal asked oshrun to stop. A registration is still given
 * STOP_GRACE seconds to complete after such a signal, so that oshrun does
 * not leave while libpmix works on it; one given up belongs to its
 * callback. */
static int sync_wait(sync_op_t *op, int stoppable, pmix_status_t *status)
{
    double until = oshrun_now() + REGISTER_WAIT;
    int stop = 0, abandoned;

    pthread_mutex_lock(&op->lock);
    while (!op->done) {
        struct timespec t;

        if (stoppable && !stop && oshrun_stop_pending()) {
            stop = 1;
            if (until > oshrun_now() + STOP_GRACE)
                until = oshrun_now() + STOP_GRACE;
        }
        if (oshrun_now() >= until) {
            op->abandoned = 1;
            break;
        }
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_nsec += REGISTER_POLL_MS * 1000000L;
        t.tv_sec += t.tv_nsec / 1000000000L;
        t.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&op->done_cv, &op->lock, &t);
    }
    abandoned = op->abandoned;
    *status = abandoned ? PMIX_ERR_TIMEOUT : op->status;
    pthread_mutex_unlock(&op->lock);
    if (!abandoned)
        sync_free(op);
    return stop;
}

/* After a call that was given op and sync_done: its status once complete
 * (the call's own when it did not start), or 1 in *stop when stoppable and
 * a signal asked oshrun to stop. */
static pmix_status_t sync_finish(sync_op_t *op, pmix_status_t rc, int stoppable,
                                 int *stop)
{
    *stop = 0;
    if (rc == PMIX_SUCCESS) {
        *stop = sync_wait(op, stoppable, &rc);
        return rc;
    }
    sync_free(op);
    return rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
}

/* The PE a request is about, or NULL when it is not one of ours. */
static oshrun_pe_t *pe_of(const pmix_proc_t *proc)
{
    if (!proc || strcmp(proc->nspace, the_job->nspace) != 0 ||
        proc->rank >= (pmix_rank_t)the_job->opts->npes)
        return NULL;
    return &the_job->pes[proc->rank];
}

static pmix_status_t on_connected(const pmix_proc_t *proc, void *obj,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    static int warned; /* progress thread only */
    oshrun_pe_t *pe = pe_of(proc);

    (void)obj, (void)cbfunc, (void)cbdata;
    /* A libpmix that accepts its connections some other way than accept()
     * bypasses oshrun_peer.c: say so rather than seem to be protected. */
    if (!warned && oshrun_peer_admitted() == 0) {
        warned = 1;
        oshrun_msg("warning: libpmix (%s) took a PE's connection without "
                   "oshrun's check of who is connecting; any local process "
                   "may be able to join this job (docs/security.md)",
                   PMIx_Get_version());
    }
    pthread_mutex_lock(&the_job->lock);
    if (pe)
        pe->connected = 1;
    pthread_mutex_unlock(&the_job->lock);
    oshrun_wake(the_job); /* a PE that left without joining stops the job */
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t on_finalized(const pmix_proc_t *proc, void *obj,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    oshrun_pe_t *pe = pe_of(proc);

    (void)obj, (void)cbfunc, (void)cbdata;
    pthread_mutex_lock(&the_job->lock);
    if (pe)
        pe->finalized = 1;
    pthread_mutex_unlock(&the_job->lock);
    return PMIX_OPERATION_SUCCEEDED;
}

/* PMIx_Abort: shmem_global_exit(status) or a fatal error; the whole job
 * ends with that status whatever procs the client named. */
static pmix_status_t on_abort(const pmix_proc_t *proc, void *obj, int status,
                              const char msg[], pmix_proc_t procs[],
                              size_t nprocs, pmix_op_cbfunc_t cbfunc,
                              void *cbdata)
{
    (void)obj, (void)msg, (void)procs, (void)nprocs, (void)cbfunc, (void)cbdata;
    pthread_mutex_lock(&the_job->lock);
    if (!the_job->aborted) {
        the_job->aborted = 1;
        the_job->abort_rank = pe_of(proc) ? (int)proc->rank : -1;
        the_job->abort_status = status;
    }
    pthread_mutex_unlock(&the_job->lock);
    oshrun_wake(the_job);
    return PMIX_OPERATION_SUCCEEDED;
}

/* libpmix 4.2 completes a fence whose participants are all local without
 * calling this; a library that does call it gets the data it gathered from
 * the local PEs straight back, since on one node that is all there is. */
static pmix_status_t on_fence(const pmix_proc_t procs[], size_t nprocs,
                              const pmix_info_t info[], size_t ninfo,
                              char *data, size_t ndata,
                              pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    char *copy = NULL;

    (void)procs, (void)nprocs, (void)info, (void)ninfo;
    if (ndata) {
        copy = malloc(ndata);
        if (!copy)
            return PMIX_ERR_NOMEM;
        memcpy(copy, data, ndata);
    }
    cbfunc(PMIX_SUCCESS, copy, ndata, cbdata, free, copy);
    return PMIX_SUCCESS;
}

static pmix_server_module_t module = {
    .client_connected = on_connected,
    .client_finalized = on_finalized,
    .abort = on_abort,
    .fence_nb = on_fence,
};

/* The node's topology with what placement reads (src/topo/placement.c
 * loads the PEs' copy with the same settings): cores, caches, NUMA nodes and
 * the important I/O devices from Linux's sysfs. Left to itself libpmix
 * discovers it with every plugin, and the libpciaccess one parses the
 * whole PCI name database, growing its buffer line by line: milliseconds
 * here, seconds in a sanitizer build. NULL when discovery fails; libpmix
 * then discovers it itself. */
static hwloc_topology_t topo_discover(void)
{
    hwloc_topology_t t;

    if (hwloc_topology_init(&t) != 0)
        return NULL;
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    (void)hwloc_topology_set_components(
        t, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "pci");
    if (hwloc_topology_load(t) != 0) {
        hwloc_topology_destroy(t);
        return NULL;
    }
    return t;
}

static int server_init(oshrun_job_t *job)
{
    char srv[300], sys[300];
    pmix_info_t info[6];
    pmix_topology_t topo = {.source = "hwloc"};
    bool no = false, yes = true;
    size_t ninfo = 5;
    pmix_status_t rc;

    snprintf(srv, sizeof(srv), "%s/srv", job->tmpdir);
    snprintf(sys, sizeof(sys), "%s/sys", job->tmpdir);
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, srv, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, sys, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_SERVER_TOOL_SUPPORT, &no, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[3], PMIX_SERVER_SYSTEM_SUPPORT, &no, PMIX_BOOL);
    /* libpmix loads the node's topology in any case; shared, it hands it
     * to the PEs as XML (PMIX_HWLOC_XML_V2), and a PE that needs it (to
     * bind) reads that instead of discovering it again (src/topo/topo.c):
     * one discovery per node instead of one per PE. */
    PMIX_INFO_LOAD(&info[4], PMIX_SERVER_SHARE_TOPOLOGY, &yes, PMIX_BOOL);
    node_topo = topo_discover();
    if (node_topo) {
        /* Set by hand: PMIX_INFO_LOAD would hand libpmix a duplicate and
         * destroy it with the info, while libpmix keeps the pointer. */
        topo.topology = node_topo;
        PMIX_INFO_CONSTRUCT(&info[5]);
        PMIX_LOAD_KEY(info[5].key, PMIX_TOPOLOGY2);
        info[5].value.type = PMIX_TOPO;
        info[5].value.data.topo = &topo;
        ninfo = 6;
    }
    rc = PMIx_server_init(&module, info, ninfo);
    for (int i = 0; i < 5; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    if (rc != PMIX_SUCCESS) {
        oshrun_msg("cannot start the PMIx server: %s", PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

/* Adds one PE's own data (PMIX_PROC_DATA: rank first, then its values). */
static int add_proc(void *list, int rank, const char *host)
{
    void *p = PMIx_Info_list_start();
    pmix_rank_t r = (pmix_rank_t)rank;
    uint16_t lr = (uint16_t)rank;
    uint32_t zero = 0;
    pmix_data_array_t arr;
    pmix_status_t rc;

    PMIx_Info_list_add(p, PMIX_RANK, &r, PMIX_PROC_RANK);
    PMIx_Info_list_add(p, PMIX_LOCAL_RANK, &lr, PMIX_UINT16);
    PMIx_Info_list_add(p, PMIX_NODE_RANK, &lr, PMIX_UINT16);
    PMIx_Info_list_add(p, PMIX_NODEID, &zero, PMIX_UINT32);
    PMIx_Info_list_add(p, PMIX_APPNUM, &zero, PMIX_UINT32);
    PMIx_Info_list_add(p, PMIX_HOSTNAME, host, PMIX_STRING);
    rc = PMIx_Info_list_convert(p, &arr);
    PMIx_Info_list_release(p);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Info_list_add(list, PMIX_PROC_DATA, &arr, PMIX_DATA_ARRAY);
    PMIX_DATA_ARRAY_DESTRUCT(&arr);
    return rc == PMIX_SUCCESS ? 0 : -1;
}

/* Comma-separated ranks 0..n-1 (every PE is local). */
static char *all_ranks(int n)
{
    char *s = malloc((size_t)n * 12 + 1), *p = s;

    for (int i = 0; s && i < n; i++)
        p += sprintf(p, i ? ",%d" : "%d", i);
    if (s)
        *p = '\0';
    return s;
}

static void add_job(void *list, const oshrun_job_t *job, const char *host,
                    const char *peers)
{
    uint32_t n = (uint32_t)job->opts->npes, one = 1, zero = 0;
    pmix_rank_t leader = 0;

    PMIx_Info_list_add(list, PMIX_UNIV_SIZE, &n, PMIX_UINT32);
    PMIx_Info_list_add(list, PMIX_JOB_SIZE, &n, PMIX_UINT32);
    PMIx_Info_list_add(list, PMIX_MAX_PROCS, &n, PMIX_UINT32);
    PMIx_Info_list_add(list, PMIX_LOCAL_SIZE, &n, PMIX_UINT32);
    PMIx_Info_list_add(list, PMIX_NODE_SIZE, &n, PMIX_UINT32);
    PMIx_Info_list_add(list, PMIX_NUM_NODES, &one, PMIX_UINT32);
    PMIx_Info_list_add(list, PMIX_NODEID, &zero, PMIX_UINT32);
    PMIx_Info_list_add(list, PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    PMIx_Info_list_add(list, PMIX_LOCALLDR, &leader, PMIX_PROC_RANK);
    PMIx_Info_list_add(list, PMIX_JOBID, job->nspace, PMIX_STRING);
    PMIx_Info_list_add(list, PMIX_HOSTNAME, host, PMIX_STRING);
}

static int register_job(oshrun_job_t *job)
{
    char host[256] = "localhost";
    char *peers = all_ranks(job->opts->npes);
    void *list = PMIx_Info_list_start();
    pmix_data_array_t arr = {0};
    sync_op_t *op = NULL;
    pmix_status_t rc = PMIX_ERR_NOMEM;
    int stop = 0;

    gethostname(host, sizeof(host) - 1);
    if (!peers)
        goto out;
    add_job(list, job, host, peers);
    for (int r = 0; r < job->opts->npes; r++)
        if (add_proc(list, r, host))
            goto out;
    rc = PMIx_Info_list_convert(list, &arr);
    if (rc == PMIX_SUCCESS && (op = sync_new()) == NULL)
        rc = PMIX_ERR_NOMEM;
    if (rc == PMIX_SUCCESS)
        rc = sync_finish(op,
                         PMIx_server_register_nspace(job->nspace,
                                                     job->opts->npes, arr.array,
                                                     arr.size, sync_done, op),
                         0, &stop); /* a signal is seen once PEs start */
out:
    PMIX_DATA_ARRAY_DESTRUCT(&arr);
    PMIx_Info_list_release(list);
    free(peers);
    if (rc != PMIX_SUCCESS)
        oshrun_msg("cannot register the job with PMIx: %s",
                   PMIx_Error_string(rc));
    return rc == PMIX_SUCCESS ? 0 : -1;
}

int oshrun_server_start(oshrun_job_t *job)
{
    the_job = job;
    /* The hash store is enough for one node and starts faster than the
     * shared-memory ones (which also leave files to clean up); the PEs
     * inherit the choice. A user's own setting wins. */
    setenv("PMIX_MCA_gds", "hash", 0);
    /* Every PE is our own child with our uid: the kernel's peer
     * credentials are all the authentication a one-node job needs. Left
     * to choose, libpmix tries munge first and, when no munge daemon
     * runs, retries its socket for over two seconds before falling back. */
    setenv("PMIX_MCA_psec", "native", 0);
    snprintf(job->nspace, sizeof(job->nspace), "oshrun.%ld", (long)getpid());
    /* Before libpmix listens: from its first connection on, only the
     * job's PEs get through (oshrun_peer.c). */
    oshrun_peer_watch(job);
    if (server_init(job))
        return -1;
    return register_job(job);
}

int oshrun_server_setup_pe(oshrun_job_t *job, int rank, char ***env, char *why,
                           size_t why_len)
{
    pmix_proc_t proc;
    sync_op_t *op = sync_new();
    pmix_status_t rc = PMIX_ERR_NOMEM;
    int stop = 0;

    PMIX_LOAD_PROCID(&proc, job->nspace, (pmix_rank_t)rank);
    if (op)
        rc = sync_finish(op,
                         PMIx_server_register_client(&proc, getuid(), getgid(),
                                                     NULL, sync_done, op),
                         1, &stop);
    if (stop)
        return 1;
    if (rc == PMIX_SUCCESS)
        rc = PMIx_server_setup_fork(&proc, env);
    if (rc == PMIX_ERR_TIMEOUT) {
        snprintf(why, why_len,
                 "the PMIx server did not register it within %d s",
                 REGISTER_WAIT);
        return -1;
    }
    if (rc != PMIX_SUCCESS) {
        snprintf(why, why_len, "the PMIx server cannot register it: %s",
                 PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

/* PMIx_server_finalize on a thread of its own, so that oshrun can give up
 * waiting for it. */
typedef struct stop_op {
    pthread_mutex_t lock;
    pthread_cond_t done_cv;
    int done;
} stop_op_t;

static void *finalize_thread(void *arg)
{
    stop_op_t *op = arg;

    PMIx_server_finalize();
    pthread_mutex_lock(&op->lock);
    op->done = 1;
    pthread_cond_signal(&op->done_cv);
    pthread_mutex_unlock(&op->lock);
    return NULL;
}

int oshrun_server_stop(oshrun_job_t *job)
{
    /* Not freed when finalize never returns: its thread still uses it. */
    static stop_op_t op = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
                           0};
    struct timespec until;
    pthread_t tid;
    int done, rc = 0;

    /* After a failure libpmix 4.2 may deadlock in its finalize (a PE that
     * died while connecting leaves a lock taken); every PE is gone by now
     * and the server's files go with oshrun's temporary directory. */
    if (job->status != 0)
        return 0;
    /* It can also deadlock after a success, once it has refused a
     * connection during the handshake (libpmix 4.2.2 then blocks on a
     * mutex in pmix_rte_finalize). oshrun_peer.c keeps other processes
     * from getting that far, but whatever reached the socket, oshrun ends
     * with the job's status within OSHRUN_FINALIZE_WAIT seconds. */
    if (pthread_create(&tid, NULL, finalize_thread, &op) != 0)
        return 0;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += OSHRUN_FINALIZE_WAIT;
    pthread_mutex_lock(&op.lock);
    while (!op.done && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&op.done_cv, &op.lock, &until);
    done = op.done;
    pthread_mutex_unlock(&op.lock);
    if (done) {
        pthread_join(tid, NULL);
        if (node_topo)
            hwloc_topology_destroy(node_topo);
        node_topo = NULL;
        return 0;
    }
    pthread_detach(tid);
    return -1;
}
