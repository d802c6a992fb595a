/*
 * The lanes of the nonblocking collectives (nbc.h): one helper thread per
 * team that has had one posted, running the team's posted collectives in
 * post order with the blocking algorithms.
 *
 * Why a thread per team rather than one per PE: two teams' collectives
 * may be posted in different orders on PEs that belong to both (PE 0
 * posts on team A then B, PE 1 on B then A); one thread per PE would
 * start A on PE 0 and B on PE 1 and wait for ever. Why threads and not
 * state machines driven by test and wait: the issue asks that a posted
 * collective finish while the program computes without entering the
 * library, and the blocking algorithms stay the one implementation of
 * each collective. What a lane costs while it waits is decision 10's
 * back-off (it sleeps where the job crowds its cores), and nothing when
 * idle (services/helper_thread.h: a helper without a ring sleeps on a
 * condition variable).
 */
#define _GNU_SOURCE /* SCHED_BATCH */
#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/coll/nbc.h"
#include "core/ctx.h"
#include "core/state.h"
#include "core/watchdog.h"
#include "services/backoff.h"
#include "services/error.h"
#include "services/helper_thread.h"

struct shmi_nbc_lane {
    shmi_helper_t *thread;
    shmem_ctx_t ctx; /* the lane's traffic; NULL: the collectives' own */
    struct shmem_impl_team *team;
    struct shmi_nbc_lane *next;
};

static struct {
    pthread_mutex_t lock;
    struct shmi_nbc_lane *all;
} lanes = {PTHREAD_MUTEX_INITIALIZER, NULL};

static _Thread_local int on_lane;

int shmi_nbc_on_lane(void)
{
    return on_lane;
}

/* Runs r on the calling thread: the lane's, or a thread that took it
 * (shmi_nbc_run_next). */
static void run_req(shmi_nbc_req_t *r)
{
    struct shmem_impl_team *t = r->team;

    shmi_coll_enter(r->routine, t);
    switch (r->kind) {
    case SHMI_NBC_SYNC:
        shmi_coll_barrier(t);
        break;
    case SHMI_NBC_BROADCAST:
        shmi_coll_broadcast(t, r->dest, r->src, r->nbytes, r->root);
        break;
    case SHMI_NBC_ALLTOALL:
        shmi_coll_alltoall(t, r->dest, r->src, r->nbytes);
        break;
    case SHMI_NBC_REDUCE:
        shmi_coll_reduce(t, r->dest, r->src, r->nelems, r->dt, r->op);
        break;
    }
    shmi_coll_leave();
    shmi_nbc_req_done(r);
    __atomic_sub_fetch(&t->nb_inflight, 1, __ATOMIC_RELEASE);
}

/* On the lane's thread (the helper's item hook). */
static void lane_run(void *arg, shmi_helper_item_t *item)
{
    struct shmi_nbc_lane *l = arg;

    if (!on_lane) {
        on_lane = 1;
        shmi_coll_lane_ctx = l->ctx;
        /* SCHED_BATCH: woken by a post, the lane does not preempt the
         * program on its core. Without it the lane took the core at every
         * post on 2 pinned PEs (a 4 us broadcast of 8 bytes instead of
         * 0.8); with it a wait right after the post runs the collective
         * itself (shmi_nbc_run_next) and a computing program keeps its
         * core until the scheduler's next turn. Best effort: a refusal
         * leaves the thread as it was. */
        {
            struct sched_param sp = {0};

            (void)sched_setscheduler(0, SCHED_BATCH, &sp);
        }
    }
    run_req((shmi_nbc_req_t *)item); /* item is its first member */
}

int shmi_nbc_run_next(struct shmem_impl_team *t)
{
    struct shmi_nbc_lane *l = t->nb_lane;
    shmi_helper_item_t *it;

    if (l == NULL || on_lane || (it = shmi_helper_take(l->thread)) == NULL)
        return 0;
    /* The program's thread, with the program's collectives' context (the
     * lane's is the lane thread's alone); on_lane keeps shmi_coll_enter
     * from waiting for the collective it runs. */
    on_lane = 1;
    run_req((shmi_nbc_req_t *)it);
    on_lane = 0;
    shmi_helper_ran(l->thread);
    return 1;
}

/* On the lane's thread, last: its context goes with it. */
static void lane_stop(void *arg)
{
    struct shmi_nbc_lane *l = arg;

    if (l->ctx != NULL)
        shmi_ctx_runtime_free(l->ctx);
    l->ctx = NULL;
}

static struct shmi_nbc_lane *lane_new(const char *routine,
                                      struct shmem_impl_team *t)
{
    struct shmi_nbc_lane *l = calloc(1, sizeof(*l));
    shmi_helper_client_t c = {.name = "nonblocking collectives",
                              .stop = lane_stop};

    if (l == NULL)
        SHMI_FATAL("%s: PE %d: out of memory", routine, shmi_my_pe_fast());
    /* Over a fabric the lane's operations need endpoints that no other
     * thread uses: the program may run a blocking collective on another
     * team at the same time without SHMEM_THREAD_MULTIPLE. On the
     * load/store path every operation is the thread's own loads and
     * stores, and the collectives' context serves. */
    if (shmi_state.fabric != NULL) {
        l->ctx = shmi_ctx_runtime_new(SHMEM_CTX_PRIVATE);
        if (l->ctx == NULL)
            SHMI_FATAL("%s: PE %d: the fabric cannot give the lane of "
                       "nonblocking collectives a context of its own "
                       "(endpoints exhausted?)",
                       routine, shmi_my_pe_fast());
    }
    l->team = t;
    c.arg = l;
    if (shmi_helper_start(&c, &l->thread) != 0)
        SHMI_FATAL("%s: PE %d: cannot start the thread that runs nonblocking "
                   "collectives",
                   routine, shmi_my_pe_fast());
    pthread_mutex_lock(&lanes.lock);
    l->next = lanes.all;
    lanes.all = l;
    pthread_mutex_unlock(&lanes.lock);
    return l;
}

void shmi_nbc_post(shmi_nbc_req_t *r)
{
    struct shmem_impl_team *t = r->team;

    /* Only the thread that posts on t makes its lane: the program calls a
     * team's collectives from one thread at a time. */
    if (t->nb_lane == NULL)
        t->nb_lane = lane_new(r->routine, t);
    __atomic_add_fetch(&t->nb_inflight, 1, __ATOMIC_RELEASE);
    r->item.what = r->routine;
    r->item.run = lane_run;
    if (shmi_helper_post(t->nb_lane->thread, &r->item, 0) != 0)
        SHMI_FATAL("%s: PE %d: the lane of nonblocking collectives is "
                   "stopping (the team is being destroyed, or the library "
                   "finalized)",
                   r->routine, shmi_my_pe_fast());
}

/* The watchdog's words for a drain (watchdog.h). */
typedef struct drain_say_arg {
    const char *routine;
    const struct shmem_impl_team *team;
} drain_say_arg_t;

static void drain_say(const void *arg, char *buf, size_t len)
{
    const drain_say_arg_t *d = arg;
    const char *running = NULL;
    unsigned long n = shmi_helper_pending(d->team->nb_lane->thread, &running);

    snprintf(buf, len,
             "%s, waiting for the %lu nonblocking collective(s) posted "
             "before it on its team of %d PEs to end (running: %s; each ends "
             "once every member has posted it)",
             d->routine, n, d->team->n_pes, running ? running : "none");
}

void shmi_nbc_drain(const char *routine, struct shmem_impl_team *t)
{
    drain_say_arg_t d = {routine, t};
    shmi_backoff_t b;

    shmi_backoff_init(&b);
    while (__atomic_load_n(&t->nb_inflight, __ATOMIC_ACQUIRE) != 0) {
        if (shmi_nbc_run_next(t)) {
            shmi_backoff_init(&b);
            continue;
        }
        shmi_watchdog_check(&b, drain_say, &d);
        shmi_backoff_wait(&b);
    }
}

static void lane_end(struct shmi_nbc_lane *l, const char *routine)
{
    shmi_nbc_drain(routine, l->team);
    shmi_helper_stop(l->thread);
    l->team->nb_lane = NULL;
    free(l);
}

void shmi_nbc_team_end(struct shmem_impl_team *t)
{
    struct shmi_nbc_lane **p, *l = t->nb_lane;

    if (l == NULL)
        return;
    pthread_mutex_lock(&lanes.lock);
    for (p = &lanes.all; *p != NULL; p = &(*p)->next)
        if (*p == l) {
            *p = l->next;
            break;
        }
    pthread_mutex_unlock(&lanes.lock);
    lane_end(l, "shmem_team_destroy");
}

void shmi_nbc_finalize(void)
{
    struct shmi_nbc_lane *l;
    int left;

    pthread_mutex_lock(&lanes.lock);
    l = lanes.all;
    lanes.all = NULL;
    pthread_mutex_unlock(&lanes.lock);
    while (l != NULL) {
        struct shmi_nbc_lane *next = l->next;

        lane_end(l, "shmem_finalize");
        l = next;
    }
    left = shmi_nbc_req_finalize();
    if (left > 0)
        SHMI_LOG(SHMI_LOG_DEBUG, "coll",
                 "shmem_finalize: %d nonblocking collective(s) ran to their "
                 "end without a shmemx_req_test or shmemx_req_wait that "
                 "completed them; their requests are freed",
                 left);
}
