/*
 * Entry points of the nonblocking collectives (nbc.h): the checks of the
 * blocking forms (coll_api.c), the overlap check against the collectives
 * still in flight, then the post to the team's lane.
 */
#include "config.h"

#include "core/coll/nbc.h"
#include "core/dataplane.h"
#include "core/init.h"
#include "core/state.h"
#include "services/error.h"

static void check_request(const char *routine, shmemx_req_h *request)
{
    if (request == NULL)
        SHMI_FATAL("%s: PE %d: request is NULL: it must point to the "
                   "shmemx_req_h that receives the handle",
                   routine, shmi_my_pe_fast());
}

/* The team, or NULL (after the blocking forms' log) with *request set to
 * SHMEMX_REQ_NULL. */
static struct shmem_impl_team *team_of(const char *routine, shmem_team_t team,
                                       shmemx_req_h *request)
{
    struct shmem_impl_team *t;

    shmi_require_init(routine);
    check_request(routine, request);
    *request = SHMEMX_REQ_NULL;
    t = shmi_coll_team(routine, team);
    return t;
}

static void post(shmi_nbc_req_t *r, shmemx_req_h *request)
{
    shmi_nbc_req_check_overlap(r);
    *request = shmi_nbc_req_handle(r);
    shmi_nbc_post(r);
}

static shmi_nbc_req_t *req_on(const char *routine, struct shmem_impl_team *t,
                              shmi_nbc_kind_t kind)
{
    shmi_nbc_req_t *r = shmi_nbc_req_new(routine);

    r->team = t;
    r->kind = kind;
    return r;
}

void shmix_barrier_all_nb(shmemx_req_h *request)
{
    const char *routine = "shmemx_barrier_all_nb";

    shmi_require_init(routine);
    check_request(routine, request);
    /* The draft: before it completes, the barrier completes the default
     * context's puts, AMOs and nonblocking gets issued before it. They are
     * completed here, on the caller's thread, at the post: the default
     * context is the program's (docs/nonblocking-collectives.md). */
    shmi_eng_quiet(routine, SHMEM_CTX_DEFAULT, -1);
    post(req_on(routine, &shmem_impl_team_world, SHMI_NBC_SYNC), request);
}

int shmix_sync_nb(shmem_team_t team, shmemx_req_h *request)
{
    const char *routine = "shmemx_sync_nb";
    struct shmem_impl_team *t = team_of(routine, team, request);

    if (t == NULL)
        return -1;
    post(req_on(routine, t, SHMI_NBC_SYNC), request);
    return 0;
}

int shmi_nbc_broadcast(const char *routine, shmem_team_t team, void *dest,
                       const void *src, size_t nbytes, int root,
                       shmemx_req_h *request)
{
    struct shmem_impl_team *t = team_of(routine, team, request);
    shmi_nbc_req_t *r;

    if (t == NULL)
        return -1;
    if (root < 0 || root >= t->n_pes) {
        SHMI_LOG(SHMI_LOG_ERROR, "coll",
                 "%s: PE_root %d outside the team of %d PEs", routine, root,
                 t->n_pes);
        return -1;
    }
    shmi_coll_check_count(routine, NULL, NULL, nbytes, 1);
    r = req_on(routine, t, SHMI_NBC_BROADCAST);
    r->dest = dest;
    r->src = src;
    r->nbytes = nbytes;
    r->root = root;
    r->dest_len = nbytes;
    r->src_len = t->my_pe == root ? nbytes : 0;
    post(r, request);
    return 0;
}

int shmi_nbc_alltoall(const char *routine, shmem_team_t team, void *dest,
                      const void *src, size_t nbytes, shmemx_req_h *request)
{
    struct shmem_impl_team *t = team_of(routine, team, request);
    shmi_nbc_req_t *r;

    if (t == NULL)
        return -1;
    shmi_coll_check_count(routine, NULL, NULL, nbytes, 1);
    r = req_on(routine, t, SHMI_NBC_ALLTOALL);
    r->dest = dest;
    r->src = src;
    r->nbytes = nbytes;
    r->dest_len = r->src_len = nbytes * (size_t)t->n_pes;
    post(r, request);
    return 0;
}

int shmi_nbc_reduce(const char *routine, shmem_team_t team, void *dest,
                    const void *src, size_t nreduce, shmi_dtype_t dt,
                    shmi_op_t op, shmemx_req_h *request)
{
    struct shmem_impl_team *t = team_of(routine, team, request);
    shmi_nbc_req_t *r;

    if (t == NULL)
        return -1;
    if (!shmi_reduce_valid(op, dt))
        SHMI_FATAL("%s: operator not defined on this type", routine);
    shmi_coll_check_count(routine, dest, src, nreduce, shmi_dtype_size(dt));
    r = req_on(routine, t, SHMI_NBC_REDUCE);
    r->dest = dest;
    r->src = src;
    r->nelems = nreduce;
    r->dt = dt;
    r->op = op;
    r->dest_len = r->src_len = nreduce * shmi_dtype_size(dt);
    post(r, request);
    return 0;
}
