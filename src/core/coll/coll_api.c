/*
 * Entry points of the collectives (core_api.h): argument checks, then the
 * algorithms of this directory. Team forms return 0 or -1 (the
 * specification leaves the error codes to the implementation); the
 * deprecated active-set forms synchronise the set on the user's pSync, which
 * also keeps the shared active-set slot free of a previous call's traffic.
 */
#include "config.h"

#include "core/coll/coll.h"
#include "core/dataplane.h"
#include "core/device_mem.h"
#include "core/init.h"
#include "core/state.h"
#include "services/error.h"

int shmi_coll_active_set(const char *routine, int PE_start, int logPE_stride,
                         int PE_size, struct shmem_impl_team *t)
{
    int n = shmi_n_pes_fast(), me = shmi_my_pe_fast();
    long last, stride;

    shmi_require_init(routine);
    if (PE_size < 1 || PE_start < 0 || logPE_stride < 0 || logPE_stride > 30) {
        SHMI_LOG(SHMI_LOG_ERROR, "coll",
                 "%s: invalid active set (PE_start %d, logPE_stride %d, "
                 "PE_size %d)",
                 routine, PE_start, logPE_stride, PE_size);
        return SHMI_EINVAL;
    }
    stride = 1L << logPE_stride;
    last = PE_start + stride * (PE_size - 1);
    if (last >= n || me < PE_start || (me - PE_start) % stride != 0 ||
        me > last) {
        SHMI_LOG(SHMI_LOG_ERROR, "coll",
                 "%s: active set (PE_start %d, logPE_stride %d, PE_size %d) "
                 "is outside the %d PEs or does not contain PE %d",
                 routine, PE_start, logPE_stride, PE_size, n, me);
        return SHMI_EINVAL;
    }
    *t = (struct shmem_impl_team){0};
    t->n_pes = PE_size;
    t->my_pe = (int)((me - PE_start) / stride);
    t->start = PE_start;
    t->stride = (int)stride;
    t->slot = SHMI_TEAM_SLOT_ACTIVE_SET;
    return 0;
}

void shmi_coll_check_psync(const char *routine, const long *pSync)
{
    if (pSync == NULL)
        SHMI_FATAL("%s: pSync is NULL", routine);
    /* pSync is waited on with host loads and updated with atomics the GPU
     * runtimes cannot apply from the host: it stays in host memory. */
    if (shmi_device_touches(pSync, sizeof(long)))
        SHMI_FATAL("%s: pSync %p is device memory; it must be in the host "
                   "symmetric heap or data segment",
                   routine, (const void *)pSync);
}

/* Checks the triplet and pSync, then synchronises the set; the caller ends
 * the call with shmi_coll_leave. */
static void shmi_as_enter(const char *routine, int PE_start, int logPE_stride,
                          int PE_size, long *pSync, struct shmem_impl_team *t)
{
    if (shmi_coll_active_set(routine, PE_start, logPE_stride, PE_size, t) != 0)
        SHMI_FATAL("%s: invalid active set", routine);
    shmi_coll_check_psync(routine, pSync);
    shmi_coll_enter(routine, t);
    shmi_coll_as_sync(t, pSync);
}

int shmi_team_reduce(const char *routine, shmem_team_t team, void *dest,
                     const void *src, size_t nreduce, shmi_dtype_t dt,
                     shmi_op_t op)
{
    struct shmem_impl_team *t = shmi_coll_team(routine, team);

    if (t == NULL)
        return -1;
    if (!shmi_reduce_valid(op, dt))
        SHMI_FATAL("%s: operator not defined on this type", routine);
    shmi_coll_check_count(routine, dest, src, nreduce, shmi_dtype_size(dt));
    shmi_coll_enter(routine, t);
    shmi_coll_reduce(t, dest, src, nreduce, dt, op);
    shmi_coll_leave();
    return 0;
}

int shmi_team_scan(const char *routine, shmem_team_t team, void *dest,
                   const void *src, size_t nelems, shmi_dtype_t dt,
                   shmi_op_t op, int exclusive)
{
    struct shmem_impl_team *t = shmi_coll_team(routine, team);

    if (t == NULL)
        return -1;
    if (!shmi_reduce_valid(op, dt))
        SHMI_FATAL("%s: operator not defined on this type", routine);
    shmi_coll_check_count(routine, dest, src, nelems, shmi_dtype_size(dt));
    shmi_coll_enter(routine, t);
    shmi_coll_scan(t, dest, src, nelems, dt, op, exclusive);
    shmi_coll_leave();
    return 0;
}

int shmi_team_broadcast(const char *routine, shmem_team_t team, void *dest,
                        const void *src, size_t nbytes, int root)
{
    struct shmem_impl_team *t = shmi_coll_team(routine, team);

    if (t == NULL)
        return -1;
    if (root < 0 || root >= t->n_pes) {
        SHMI_LOG(SHMI_LOG_ERROR, "coll",
                 "%s: PE_root %d outside the team "
                 "of %d PEs",
                 routine, root, t->n_pes);
        return -1;
    }
    shmi_coll_check_count(routine, NULL, NULL, nbytes, 1);
    shmi_coll_enter(routine, t);
    shmi_coll_broadcast(t, dest, src, nbytes, root);
    shmi_coll_leave();
    return 0;
}

int shmi_team_collect(const char *routine, shmem_team_t team, void *dest,
                      const void *src, size_t nbytes)
{
    struct shmem_impl_team *t = shmi_coll_team(routine, team);

    if (t == NULL)
        return -1;
    shmi_coll_check_count(routine, NULL, NULL, nbytes, 1);
    shmi_coll_enter(routine, t);
    shmi_coll_collect(t, dest, src, nbytes);
    shmi_coll_leave();
    return 0;
}

int shmi_team_fcollect(const char *routine, shmem_team_t team, void *dest,
                       const void *src, size_t nbytes)
{
    struct shmem_impl_team *t = shmi_coll_team(routine, team);

    if (t == NULL)
        return -1;
    shmi_coll_check_count(routine, NULL, NULL, nbytes, 1);
    shmi_coll_enter(routine, t);
    shmi_coll_fcollect(t, dest, src, nbytes);
    shmi_coll_leave();
    return 0;
}

int shmi_team_alltoall(const char *routine, shmem_team_t team, void *dest,
                       const void *src, size_t nbytes)
{
    struct shmem_impl_team *t = shmi_coll_team(routine, team);

    if (t == NULL)
        return -1;
    shmi_coll_check_count(routine, NULL, NULL, nbytes, 1);
    shmi_coll_enter(routine, t);
    shmi_coll_alltoall(t, dest, src, nbytes);
    shmi_coll_leave();
    return 0;
}

int shmi_team_alltoalls(const char *routine, shmem_team_t team, void *dest,
                        const void *src, ptrdiff_t dst, ptrdiff_t sst,
                        size_t nelems, size_t elem_size)
{
    struct shmem_impl_team *t = shmi_coll_team(routine, team);

    if (t == NULL)
        return -1;
    if (dst < 1 || sst < 1) {
        SHMI_LOG(SHMI_LOG_ERROR, "coll",
                 "%s: strides must be >= 1 (dst %td, "
                 "sst %td)",
                 routine, dst, sst);
        return -1;
    }
    shmi_coll_enter(routine, t);
    shmi_coll_alltoalls(t, dest, src, dst, sst, nelems, elem_size);
    shmi_coll_leave();
    return 0;
}

void shmi_as_reduce(const char *routine, void *dest, const void *src,
                    int nreduce, int PE_start, int logPE_stride, int PE_size,
                    void *pWrk, long *pSync, shmi_dtype_t dt, shmi_op_t op)
{
    struct shmem_impl_team t;

    (void)pWrk; /* never touched: the slot's scratch buffers serve instead */
    if (nreduce < 0)
        SHMI_FATAL("%s: nreduce %d is negative", routine, nreduce);
    if (!shmi_reduce_valid(op, dt))
        SHMI_FATAL("%s: operator not defined on this type", routine);
    shmi_as_enter(routine, PE_start, logPE_stride, PE_size, pSync, &t);
    shmi_coll_reduce(&t, dest, src, (size_t)nreduce, dt, op);
    shmi_coll_leave();
}

void shmi_as_broadcast(const char *routine, void *dest, const void *src,
                       size_t nbytes, int PE_root, int PE_start,
                       int logPE_stride, int PE_size, long *pSync)
{
    struct shmem_impl_team t;

    if (PE_root < 0 || PE_root >= PE_size)
        SHMI_FATAL("%s: PE_root %d outside the active set of %d PEs", routine,
                   PE_root, PE_size);
    shmi_as_enter(routine, PE_start, logPE_stride, PE_size, pSync, &t);
    shmi_coll_broadcast_as(&t, dest, src, nbytes, PE_root);
    shmi_coll_leave();
}

void shmi_as_collect(const char *routine, void *dest, const void *src,
                     size_t nbytes, int PE_start, int logPE_stride, int PE_size,
                     long *pSync)
{
    struct shmem_impl_team t;

    shmi_as_enter(routine, PE_start, logPE_stride, PE_size, pSync, &t);
    shmi_coll_collect(&t, dest, src, nbytes);
    shmi_coll_leave();
}

void shmi_as_fcollect(const char *routine, void *dest, const void *src,
                      size_t nbytes, int PE_start, int logPE_stride,
                      int PE_size, long *pSync)
{
    struct shmem_impl_team t;

    shmi_as_enter(routine, PE_start, logPE_stride, PE_size, pSync, &t);
    shmi_coll_fcollect(&t, dest, src, nbytes);
    shmi_coll_leave();
}

void shmi_as_alltoall(const char *routine, void *dest, const void *src,
                      size_t nbytes, int PE_start, int logPE_stride,
                      int PE_size, long *pSync)
{
    struct shmem_impl_team t;

    shmi_as_enter(routine, PE_start, logPE_stride, PE_size, pSync, &t);
    shmi_coll_alltoall(&t, dest, src, nbytes);
    shmi_coll_leave();
}

void shmi_as_alltoalls(const char *routine, void *dest, const void *src,
                       ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                       size_t elem_size, int PE_start, int logPE_stride,
                       int PE_size, long *pSync)
{
    struct shmem_impl_team t;

    if (dst < 1 || sst < 1)
        SHMI_FATAL("%s: strides must be >= 1 (dst %td, sst %td)", routine, dst,
                   sst);
    shmi_as_enter(routine, PE_start, logPE_stride, PE_size, pSync, &t);
    shmi_coll_alltoalls(&t, dest, src, dst, sst, nelems, elem_size);
    shmi_coll_leave();
}
