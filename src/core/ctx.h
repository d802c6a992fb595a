/*
 * Communication contexts: struct shmem_impl_ctx behind shmem_ctx_t.
 */
#ifndef SHMI_CTX_H
#define SHMI_CTX_H

#include <pthread.h>

#include "shmem.h"
#include "transports/transport.h"

struct shmem_impl_ctx {
    long options;         /* SHMEM_CTX_PRIVATE | SERIALIZED | NOSTORE */
    shmem_team_t team;    /* team the context was created on */
    shmt_ep_t *fabric_ep; /* endpoint on shmi_state.fabric; NULL if none */
    int locked;           /* 1 when the context may be shared between
                             threads (no PRIVATE/SERIALIZED): calls take
                             `lock` in SHMEM_THREAD_MULTIPLE */
    pthread_mutex_t lock; /* serialises fabric_ep use when `locked` */
};

/* Creates a context on team (SHMEM_TEAM_WORLD for shmem_ctx_create).
 * Returns 0, or nonzero when no more contexts can be made. src/core/ctx.c */
int shmi_ctx_new(shmem_team_t team, long options, shmem_ctx_t *ctx);

/* Sets up SHMEM_CTX_DEFAULT after the transports; called by shmem_init. */
int shmi_ctx_default_init(void);
void shmi_ctx_default_finalize(void);

#endif /* SHMI_CTX_H */
