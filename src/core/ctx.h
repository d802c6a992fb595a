/*
 * Communication contexts: struct shmem_impl_ctx behind shmem_ctx_t.
 */
#ifndef SHMI_CTX_H
#define SHMI_CTX_H

#include <pthread.h>

#include "core/state.h"
#include "shmem.h"
#include "transports/transport.h"

struct shmem_impl_ctx {
    long options;         /* SHMEM_CTX_PRIVATE | SERIALIZED | NOSTORE */
    shmem_team_t team;    /* team the context was created on */
    /* ep[i]: the endpoint on the transport of carrier slot i
     * (shmi_state.carrier[i], src/core/route.h); NULL if none */
    shmt_ep_t *ep[SHMI_CARRIERS_MAX];
    int locked;           /* 1 when the context may be shared between
                             threads (no PRIVATE/SERIALIZED): calls take
                             `lock` in SHMEM_THREAD_MULTIPLE */
    pthread_mutex_t lock; /* serialises the use of ep[] when `locked` */
    int destroyed;        /* 1 after shmem_ctx_destroy: the handle is kept
                             (never reused) so that a later use is an
                             error that names the routine, not a read of
                             freed memory; team is then shmi_ctx_dead_team */
};

/* The team of every destroyed context: not SHMEM_TEAM_WORLD, so that the
 * common path of the data plane sends such a context to the full path,
 * where shmi_dp_team_pe reports it; this costs the common path nothing. */
extern struct shmem_impl_team shmi_ctx_dead_team;

/* Never returns: ctx was destroyed (shmem_ctx_destroy) and used again. */
_Noreturn void shmi_ctx_bad_destroyed(const char *routine, shmem_ctx_t ctx);

/* Creates a context on team (SHMEM_TEAM_WORLD for shmem_ctx_create).
 * Returns 0, or nonzero when no more contexts can be made. src/core/ctx.c */
int shmi_ctx_new(shmem_team_t team, long options, shmem_ctx_t *ctx);

/* A context of the runtime's own (SHMEM_TEAM_WORLD), outside the
 * program's list. options: SHMEM_CTX_PRIVATE for one thread (the device
 * service, src/core/host_path.c; a stream lane; the kernel proxy), 0 for
 * one that threads share (the collectives' context, coll_state.c: locked
 * in SHMEM_THREAD_MULTIPLE like the default context). NULL when its
 * endpoints cannot be made. shmi_ctx_runtime_free completes and releases
 * it. */
shmem_ctx_t shmi_ctx_runtime_new(long options);
void shmi_ctx_runtime_free(shmem_ctx_t ctx);

/* Sets up SHMEM_CTX_DEFAULT after the transports; called by shmem_init. */
int shmi_ctx_default_init(void);
void shmi_ctx_default_finalize(void);

#endif /* SHMI_CTX_H */
