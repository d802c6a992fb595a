/*
 * Reductions whose source and dest are in the device heap, on the GPU
 * (coll.h, shmi_coll_reduce_device; docs/gpu.md, "Reductions on device
 * buffers").
 *
 * After a barrier (every member's source is ready), each PE copies its own
 * source into its accumulator and, member after member starting past
 * itself, reads that member's source in chunks into device scratch (a get:
 * a copy over the IPC mapping on one node, the fabric or the device service
 * elsewhere; the device transport decides) and combines it into the
 * accumulator with the back end's reduction kernel. A second barrier keeps
 * every source unchanged until all members have read it. The accumulator
 * is dest itself, or, when dest is the source (in place), device scratch
 * copied to dest after the second barrier.
 *
 * Each member reads n - 1 sources: (n - 1) x nbytes per PE over the copy
 * engines, against the host path's 2 x nbytes of device-host copies plus
 * its rounds through host memory; for the node-sized teams that share
 * GPUs this is the faster trade (bench/gpu/coll_reduce).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/coll/coll.h"
#include "core/device_mem.h"
#include "core/heap/device_heap.h"
#include "core/segment.h"
#include "core/state.h"
#include "core/team/team.h"
#include "services/env.h"
#include "services/error.h"

/* Bytes read from a member per kernel launch. */
#define DEV_REDUCE_CHUNK ((size_t)4 << 20)

/* The program thread's exec; its ctx is set on each use, as
 * SHMEM_CTX_DEFAULT is not a constant. */
static __thread shmi_coll_exec_t self_exec;

shmi_coll_exec_t *shmi_coll_exec_self(void)
{
    self_exec.ctx = SHMEM_CTX_DEFAULT;
    return &self_exec;
}

void *shmi_coll_exec_scratch(const char *routine, shmi_coll_exec_t *x,
                             size_t size)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();
    int ret;

    if (x->scratch_size >= size)
        return x->scratch;
    if (x->scratch)
        g->free(x->scratch);
    x->scratch = NULL;
    x->scratch_size = 0;
    if ((ret = g->alloc(size, &x->scratch)) != 0)
        shmi_device_fail(routine, shmi_my_pe_fast(), ret);
    x->scratch_size = size;
    return x->scratch;
}

void shmi_coll_exec_sync(const char *routine, shmi_coll_exec_t *x,
                         struct shmem_impl_team *t)
{
    if (x->lane)
        shmi_coll_ctx_sync(routine, t, x->ctx);
    else
        shmi_team_sync_internal(t);
}

static int in_device_heap(const void *p, size_t len)
{
    size_t off;

    return shmi_seg_lookup(p, len, &off) == SHMI_SEG_DEVICE;
}

int shmi_coll_reduce_device_ok(const void *dest, const void *src, size_t nbytes,
                               shmi_dtype_t dt, shmi_op_t op)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();

    /* Zero elements ask the back end whether it has the kernel. */
    return g && nbytes > 0 && strcmp(shmi_env.DEVICE_REDUCE, "gpu") == 0 &&
           in_device_heap(dest, nbytes) && in_device_heap(src, nbytes) &&
           g->stream_reduce(NULL, NULL, 0, op, dt, NULL) == 0;
}

/* Combines in (cnt elements) into acc on x's stream and waits for it. */
static void dev_combine(const char *routine, shmi_coll_exec_t *x, void *acc,
                        const void *in, size_t cnt, shmi_dtype_t dt,
                        shmi_op_t op)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();
    int ret;

    if (!x->work_stream && (ret = g->stream_create(&x->work_stream)) != 0)
        shmi_device_fail(routine, shmi_my_pe_fast(), ret);
    ret = g->stream_reduce(acc, in, cnt, op, dt, x->work_stream);
    if (ret == 0)
        ret = g->stream_sync(x->work_stream);
    if (ret != 0)
        shmi_device_fail(routine, shmi_my_pe_fast(), ret);
}

/* Without a kernel for (op, dt) (long double on cuda and hip, or
 * SHMEM_DEVICE_REDUCE=host on a stream, which has no other path): the same
 * reads into host memory and the host's arithmetic. */
static void reduce_on_host(const char *routine, shmi_coll_exec_t *x,
                           struct shmem_impl_team *t, void *dest,
                           const void *src, size_t nelems, shmi_dtype_t dt,
                           shmi_op_t op)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();
    size_t esz = shmi_dtype_size(dt), nbytes = nelems * esz;
    char *acc = malloc(nbytes), *in = malloc(nbytes);
    int ret;

    if (!acc || !in)
        SHMI_FATAL("%s: PE %d: out of memory for %zu bytes", routine,
                   shmi_my_pe_fast(), nbytes);
    shmi_coll_exec_sync(routine, x, t);
    if ((ret = g->copy(acc, src, nbytes, SHMI_GPU_D2H)) != 0)
        shmi_device_fail(routine, shmi_my_pe_fast(), ret);
    size_t off;
    int seg = shmi_coll_at(src, nbytes, &off);

    for (int i = 1; i < t->n_pes; i++) {
        shmi_eng_get(routine, x->ctx,
                     shmi_team_world_pe(t, (t->my_pe + i) % t->n_pes), seg, off,
                     in, nbytes, 0);
        shmi_reduce_apply(op, dt, acc, in, nelems);
    }
    shmi_coll_exec_sync(routine, x, t);
    if ((ret = g->copy(dest, acc, nbytes, SHMI_GPU_H2D)) != 0)
        shmi_device_fail(routine, shmi_my_pe_fast(), ret);
    free(acc);
    free(in);
}

void shmi_coll_reduce_device(const char *routine, shmi_coll_exec_t *x,
                             struct shmem_impl_team *t, void *dest,
                             const void *src, size_t nelems, shmi_dtype_t dt,
                             shmi_op_t op)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();
    size_t esz = shmi_dtype_size(dt), nbytes = nelems * esz;
    size_t chunk = DEV_REDUCE_CHUNK / esz * esz;
    int inplace = dest == src;
    char *acc, *in;
    size_t off;
    int ret, seg;

    if (nbytes == 0) {
        shmi_coll_exec_sync(routine, x, t);
        return;
    }
    if (strcmp(shmi_env.DEVICE_REDUCE, "gpu") != 0 ||
        g->stream_reduce(NULL, NULL, 0, op, dt, NULL) != 0) {
        reduce_on_host(routine, x, t, dest, src, nelems, dt, op);
        return;
    }
    if (chunk > nbytes)
        chunk = nbytes;
    in = shmi_coll_exec_scratch(routine, x, inplace ? nbytes + chunk : chunk);
    acc = inplace ? in : dest;
    if (inplace)
        in += nbytes;
    shmi_coll_exec_sync(routine, x, t);
    if (acc != src && (ret = g->copy(acc, src, nbytes, SHMI_GPU_D2D)) != 0)
        shmi_device_fail(routine, shmi_my_pe_fast(), ret);
    seg = shmi_coll_at(src, nbytes, &off);
    for (int i = 1; i < t->n_pes; i++) {
        int pe = shmi_team_world_pe(t, (t->my_pe + i) % t->n_pes);

        for (size_t at = 0; at < nbytes; at += chunk) {
            size_t len = nbytes - at < chunk ? nbytes - at : chunk;

            shmi_eng_get(routine, x->ctx, pe, seg, off + at, in, len, 0);
            dev_combine(routine, x, acc + at, in, len / esz, dt, op);
        }
    }
    shmi_coll_exec_sync(routine, x, t);
    if (inplace && (ret = g->copy(dest, acc, nbytes, SHMI_GPU_D2D)) != 0)
        shmi_device_fail(routine, shmi_my_pe_fast(), ret);
}
