/*
 * Stream-ordered barrier, sync and collectives (stream.h). Each runs on
 * the stream's lane, synchronising with shmi_coll_ctx_sync over the lane's
 * private context, so that it never shares flags with the collectives the
 * program's own threads run at the same time. Data moves by gets into the
 * destination after a barrier (every member's source is ready), and a
 * second barrier keeps the sources unchanged until everyone has read them;
 * reductions combine on the GPU (shmi_coll_reduce_device).
 */
#include "config.h"

#include <stdlib.h>

#include "core/core_decl.h"
#include "core/core_api.h"
#include "core/device_mem.h"
#include "core/engine/engine.h"
#include "core/heap/device_heap.h"
#include "core/init.h"
#include "core/segment.h"
#include "core/state.h"
#include "core/stream/stream.h"
#include "core/team/team.h"
#include "services/error.h"

typedef enum coll_kind {
    COLL_SYNC,
    COLL_BARRIER,
    COLL_BROADCAST,
    COLL_FCOLLECT,
    COLL_ALLTOALL,
    COLL_REDUCE
} coll_kind_t;

typedef struct coll_args {
    const char *routine;
    coll_kind_t kind;
    struct shmem_impl_team *team;
    void *dest;
    const void *src;
    size_t nbytes; /* per PE (fcollect, alltoall: per block) */
    size_t nelems; /* reduce */
    shmi_dtype_t dt;
    shmi_op_t op;
    int root;
} coll_args_t;

static void run_coll(shmi_coll_exec_t *x, void *arg)
{
    coll_args_t *a = arg;
    struct shmem_impl_team *t = a->team;
    char *dest = a->dest;
    const char *src = a->src;
    size_t nb = a->nbytes, off;
    int seg;

    switch (a->kind) {
    case COLL_BARRIER:
        shmi_eng_quiet(a->routine, x->ctx, -1);
        shmi_coll_ctx_sync(a->routine, t, x->ctx);
        return;
    case COLL_SYNC: shmi_coll_ctx_sync(a->routine, t, x->ctx); return;
    case COLL_REDUCE:
        shmi_coll_reduce_device(a->routine, x, t, dest, src, a->nelems, a->dt,
                                a->op);
        return;
    default: break;
    }
    /* The entry point checked src: one translation serves every PE. */
    seg = SHMI_SEG_DEVICE;
    off = 0;
    if (nb > 0)
        seg = shmi_eng_seg_at(
            a->routine, src,
            a->kind == COLL_ALLTOALL ? nb * (size_t)t->n_pes : nb, &off);
    shmi_coll_ctx_sync(a->routine, t, x->ctx);
    for (int i = 0; i < t->n_pes; i++) {
        int j = (t->my_pe + i) % t->n_pes, pe = shmi_team_world_pe(t, j);

        switch (a->kind) {
        case COLL_BROADCAST:
            if (i == 0 && nb > 0 && dest != src)
                shmi_eng_get(a->routine, x->ctx, shmi_team_world_pe(t, a->root),
                             seg, off, dest, nb, 0);
            break;
        case COLL_FCOLLECT:
            if (nb > 0)
                shmi_eng_get(a->routine, x->ctx, pe, seg, off,
                             dest + (size_t)j * nb, nb, 0);
            break;
        case COLL_ALLTOALL:
            if (nb > 0)
                shmi_eng_get(a->routine, x->ctx, pe, seg,
                             off + (size_t)t->my_pe * nb, dest + (size_t)j * nb,
                             nb, 0);
            break;
        default: break;
        }
    }
    shmi_coll_ctx_sync(a->routine, t, x->ctx);
}

/* Checks team and enqueues; 0, or -1 for SHMEM_TEAM_INVALID (nothing is
 * enqueued, as the blocking forms return -1). */
static int coll_enqueue(coll_args_t a, void *stream)
{
    coll_args_t *p;

    shmi_require_init(a.routine);
    shmi_stream_check(a.routine, stream);
    a.team = shmi_coll_team(a.routine, (shmem_team_t)a.team);
    if (!a.team)
        return -1;
    shmi_stream_backend(a.routine);
    if (!(p = malloc(sizeof(*p))))
        SHMI_FATAL("%s: PE %d: out of memory", a.routine, shmi_my_pe_fast());
    *p = a;
    shmi_stream_enqueue(a.routine, stream, run_coll, p);
    return 0;
}

void shmix_barrier_all_on_stream(void *stream)
{
    coll_enqueue((coll_args_t){.routine = "shmemx_barrier_all_on_stream",
                               .kind = COLL_BARRIER,
                               .team = &shmem_impl_team_world},
                 stream);
}

int shmix_team_sync_on_stream(shmem_team_t team, void *stream)
{
    return coll_enqueue((coll_args_t){.routine = "shmemx_team_sync_on_stream",
                                      .kind = COLL_SYNC,
                                      .team = (struct shmem_impl_team *)team},
                        stream);
}

int shmix_broadcastmem_on_stream(shmem_team_t team, void *dest,
                                 const void *source, size_t nelems, int PE_root,
                                 void *stream)
{
    const char *routine = "shmemx_broadcastmem_on_stream";

    shmi_require_init(routine);
    shmi_stream_check(routine, stream);
    shmi_stream_need_count(routine, "nelems", nelems, nelems);
    shmi_stream_need_device_heap(routine, "dest", dest, nelems);
    shmi_stream_need_device_heap(routine, "source", source, nelems);
    if (team != SHMEM_TEAM_INVALID &&
        (PE_root < 0 || PE_root >= shmem_team_n_pes(team)))
        SHMI_FATAL("%s: PE %d: PE_root %d is outside the team of %d PEs",
                   routine, shmi_my_pe_fast(), PE_root, shmem_team_n_pes(team));
    return coll_enqueue((coll_args_t){.routine = routine,
                                      .kind = COLL_BROADCAST,
                                      .team = (struct shmem_impl_team *)team,
                                      .dest = dest,
                                      .src = source,
                                      .nbytes = nelems,
                                      .root = PE_root},
                        stream);
}

static size_t team_size(shmem_team_t team)
{
    return team == SHMEM_TEAM_INVALID ? 0 : (size_t)shmem_team_n_pes(team);
}

int shmix_fcollectmem_on_stream(shmem_team_t team, void *dest,
                                const void *source, size_t nelems, void *stream)
{
    const char *routine = "shmemx_fcollectmem_on_stream";
    size_t all = shmi_nbytes(nelems, team_size(team));

    shmi_require_init(routine);
    shmi_stream_check(routine, stream);
    shmi_stream_need_count(routine, "nelems", nelems, all);
    shmi_stream_need_device_heap(routine, "dest", dest, all);
    shmi_stream_need_device_heap(routine, "source", source, nelems);
    return coll_enqueue((coll_args_t){.routine = routine,
                                      .kind = COLL_FCOLLECT,
                                      .team = (struct shmem_impl_team *)team,
                                      .dest = dest,
                                      .src = source,
                                      .nbytes = nelems},
                        stream);
}

int shmix_alltoallmem_on_stream(shmem_team_t team, void *dest,
                                const void *source, size_t nelems, void *stream)
{
    const char *routine = "shmemx_alltoallmem_on_stream";
    size_t all = shmi_nbytes(nelems, team_size(team));

    shmi_require_init(routine);
    shmi_stream_check(routine, stream);
    shmi_stream_need_count(routine, "nelems", nelems, all);
    shmi_stream_need_device_heap(routine, "dest", dest, all);
    shmi_stream_need_device_heap(routine, "source", source, all);
    return coll_enqueue((coll_args_t){.routine = routine,
                                      .kind = COLL_ALLTOALL,
                                      .team = (struct shmem_impl_team *)team,
                                      .dest = dest,
                                      .src = source,
                                      .nbytes = nelems},
                        stream);
}

int shmi_stream_reduce(const char *routine, shmem_team_t team, void *dest,
                       const void *source, size_t nreduce, shmi_dtype_t dt,
                       shmi_op_t op, void *stream)
{
    size_t nbytes = shmi_nbytes(nreduce, shmi_dtype_size(dt));

    shmi_require_init(routine);
    shmi_stream_check(routine, stream);
    shmi_stream_need_count(routine, "nreduce", nreduce, nbytes);
    shmi_stream_need_device_heap(routine, "dest", dest, nbytes);
    shmi_stream_need_device_heap(routine, "source", source, nbytes);
    if (dest != source && (const char *)dest < (const char *)source + nbytes &&
        (const char *)source < (const char *)dest + nbytes)
        SHMI_FATAL("%s: PE %d: dest %p and source %p overlap without being "
                   "the same array",
                   routine, shmi_my_pe_fast(), dest, source);
    return coll_enqueue((coll_args_t){.routine = routine,
                                      .kind = COLL_REDUCE,
                                      .team = (struct shmem_impl_team *)team,
                                      .dest = dest,
                                      .src = source,
                                      .nelems = nreduce,
                                      .dt = dt,
                                      .op = op},
                        stream);
}
