/*
 * Nonblocking collectives (docs/nonblocking-collectives.md): the requests
 * that name them (nbc_req.c), the lanes that run them (nbc_lane.c) and the
 * entry points that post them (nbc_post.c).
 *
 * A posted collective is run by its team's lane, a helper thread
 * (services/helper_thread.h) made on the team's first post, with the same
 * algorithms as the blocking form, through a context of its own
 * (coll.h, shmi_coll_lane_ctx). Every member posts a team's collectives
 * in the same order and its lane runs them in that order, so they match
 * as blocking calls do. A blocking collective on a team first waits for
 * the team's lane to run everything posted before it (shmi_coll_enter),
 * so the lane and the program never run collectives on one team at once:
 * the team's flags and buffers (coll.h) serve both.
 */
#ifndef SHMI_NBC_H
#define SHMI_NBC_H

#include <stddef.h>

#include "core/coll/coll.h"
#include "services/helper_thread.h"
#include "shmemx.h"

/* What a request runs on its team's lane. */
typedef enum shmi_nbc_kind {
    SHMI_NBC_SYNC,
    SHMI_NBC_BROADCAST,
    SHMI_NBC_ALLTOALL,
    SHMI_NBC_REDUCE
} shmi_nbc_kind_t;

/* One posted collective. The lane's item is its first member. */
typedef struct shmi_nbc_req {
    shmi_helper_item_t item;
    const char *routine;
    struct shmem_impl_team *team;
    shmi_nbc_kind_t kind;
    void *dest;
    const void *src;
    size_t nbytes; /* broadcast: all; alltoall: per block; reduce: all */
    size_t nelems; /* reduce */
    shmi_dtype_t dt;
    shmi_op_t op;
    int root;
    /* The bytes the collective writes and reads on this PE until it
     * completes (the overlap check of nbc_req.c). */
    size_t dest_len, src_len;
    int state;    /* SHMI_NBC_* below (atomic) */
    unsigned gen; /* the handle's generation (nbc_req.c) */
} shmi_nbc_req_t;

enum { SHMI_NBC_FREE, SHMI_NBC_POSTED, SHMI_NBC_DONE };

/* ---- requests (nbc_req.c) ----------------------------------------------- */

/* A free request for routine, its fields zeroed and state POSTED; fatal
 * (naming routine) when SHMI_NBC_MAX requests are in flight. */
shmi_nbc_req_t *shmi_nbc_req_new(const char *routine);
/* Fatal, naming routine and the argument, when r's dest overlaps the
 * buffers of a request still in flight or r's source overlaps one's dest
 * (two in flight would race on the bytes). */
void shmi_nbc_req_check_overlap(const shmi_nbc_req_t *r);
/* The handle that names r. */
shmemx_req_h shmi_nbc_req_handle(const shmi_nbc_req_t *r);
/* Marks r complete (on its lane, after the collective). */
void shmi_nbc_req_done(shmi_nbc_req_t *r);
/* Frees every request: shmem_finalize, once every lane has run dry. */
int shmi_nbc_req_finalize(void);

/* Requests in flight at once per PE, at most. */
#define SHMI_NBC_MAX 4096

/* ---- lanes (nbc_lane.c) --------------------------------------------------- */

/* Posts r (filled, checked) to its team's lane, making the lane on the
 * team's first post. */
void shmi_nbc_post(shmi_nbc_req_t *r);
/* 1 on a lane's thread, or while a thread runs a posted collective. */
int shmi_nbc_on_lane(void);
/* Runs t's next posted collective on the calling thread where the lane
 * has not begun it (a wait that would otherwise wait for the lane to wake
 * and run it): 1 if it ran one, else 0. In post order, one at a time. */
int shmi_nbc_run_next(struct shmem_impl_team *t);
/* Waits until t's lane has run everything posted on t (routine: the
 * blocking collective that waits, for the watchdog's words). */
void shmi_nbc_drain(const char *routine, struct shmem_impl_team *t);
/* Drains t's lane and stops it (shmem_team_destroy). */
void shmi_nbc_team_end(struct shmem_impl_team *t);
/* Drains and stops every lane, then frees the requests (shmem_finalize,
 * before its barrier). */
void shmi_nbc_finalize(void);

#endif /* SHMI_NBC_H */
