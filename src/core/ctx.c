/*
 * Communication contexts (ctx.h): SHMEM_CTX_DEFAULT, shmem_ctx_create,
 * shmem_ctx_destroy, and shmi_ctx_new for team contexts.
 *
 * A context owns one endpoint on each transport that carries operations
 * (shmi_state.carrier; the load/store path needs no per-context state).
 * Thread handling: a context takes its lock around transport calls only, and only when the library runs in
 * SHMEM_THREAD_MULTIPLE and the context may be shared between threads (no
 * SHMEM_CTX_PRIVATE or SHMEM_CTX_SERIALIZED): ctx->locked marks a shareable
 * context, and dataplane.h tests the thread level. The load/store path never
 * locks. SHMEM_CTX_NOSTORE needs nothing: fence and quiet cost the same
 * with or without store ordering.
 *
 * Live contexts are kept in a list so that shmem_finalize can release the
 * endpoints of contexts the program did not destroy. A destroyed context
 * keeps its (small) memory until shmem_finalize, marked destroyed, so that
 * a second shmem_ctx_destroy or any later use of the handle is an error
 * naming the routine instead of a double free or a read of freed memory.
 */
#include "config.h"

#include <stdlib.h>

#include "core/dataplane.h"
#include "core/init.h"
#include "core/team/team.h"

struct shmem_impl_ctx shmem_impl_ctx_default;
shmem_ctx_t const shmem_impl_ctx_default_handle = &shmem_impl_ctx_default;

typedef struct shmi_ctx_node {
    struct shmem_impl_ctx ctx; /* first: a shmem_ctx_t points here */
    struct shmi_ctx_node *prev, *next;
} shmi_ctx_node_t;

struct shmem_impl_team shmi_ctx_dead_team;

static shmi_ctx_node_t *shmi_ctx_list;
/* Destroyed contexts, linked by next; freed by shmem_finalize. */
static shmi_ctx_node_t *shmi_ctx_dead;
static pthread_mutex_t shmi_ctx_list_lock = PTHREAD_MUTEX_INITIALIZER;

static const long shmi_ctx_known_options =
    SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE;

/* Destroys the endpoints c has, last slot first. */
static void shmi_ctx_eps_destroy(struct shmem_impl_ctx *c)
{
    for (int i = shmi_state.n_carriers - 1; i >= 0; i--) {
        if (c->ep[i])
            shmi_state.carrier[i]->ep_destroy(c->ep[i]);
        c->ep[i] = NULL;
    }
}

static int shmi_ctx_setup(struct shmem_impl_ctx *c, shmem_team_t team,
                          long options)
{
    int ret;

    c->options = options;
    c->team = team;
    /* Shareable; the lock is taken only in SHMEM_THREAD_MULTIPLE (see
     * shmi_dp_must_lock). */
    c->locked = !(options & (SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED));
    for (int i = 0; i < SHMI_CARRIERS_MAX; i++)
        c->ep[i] = NULL;
    for (int i = 0; i < shmi_state.n_carriers; i++) {
        const shmt_ops_t *t = shmi_state.carrier[i];

        ret = t->ep_create(options, c, &c->ep[i]);
        if (ret) {
            SHMI_LOG(SHMI_LOG_DEBUG, "ctx", "no %s endpoint: %s", t->name,
                     shmi_strerror(ret));
            shmi_ctx_eps_destroy(c);
            return ret;
        }
    }
    pthread_mutex_init(&c->lock, NULL);
    return 0;
}

static void shmi_ctx_teardown(const char *routine, struct shmem_impl_ctx *c)
{
    shmi_eng_quiet(routine, c, -1);
    shmi_ctx_eps_destroy(c);
    pthread_mutex_destroy(&c->lock);
}

int shmi_ctx_default_init(void)
{
    return shmi_ctx_setup(SHMEM_CTX_DEFAULT, SHMEM_TEAM_WORLD, 0);
}

void shmi_ctx_default_finalize(void)
{
    shmi_ctx_node_t *n;

    pthread_mutex_lock(&shmi_ctx_list_lock);
    while ((n = shmi_ctx_list) != NULL) {
        SHMI_LOG(SHMI_LOG_DEBUG, "ctx", "releasing a context not destroyed");
        shmi_ctx_list = n->next;
        shmi_ctx_teardown("shmem_finalize", &n->ctx);
        shmi_team_ctx_release(n->ctx.team);
        free(n);
    }
    while ((n = shmi_ctx_dead) != NULL) {
        shmi_ctx_dead = n->next;
        free(n);
    }
    pthread_mutex_unlock(&shmi_ctx_list_lock);
    shmi_ctx_teardown("shmem_finalize", SHMEM_CTX_DEFAULT);
}

int shmi_ctx_new(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    shmi_ctx_node_t *n;

    if (options & ~shmi_ctx_known_options) {
        SHMI_LOG(SHMI_LOG_WARN, "ctx", "unknown context options 0x%lx",
                 options & ~shmi_ctx_known_options);
        return 1;
    }
    if (team == SHMEM_TEAM_INVALID || shmi_team_ctx_acquire(team))
        return 1;
    n = calloc(1, sizeof(*n));
    if (n == NULL || shmi_ctx_setup(&n->ctx, team, options)) {
        free(n);
        shmi_team_ctx_release(team);
        return 1;
    }
    pthread_mutex_lock(&shmi_ctx_list_lock);
    n->next = shmi_ctx_list;
    if (shmi_ctx_list)
        shmi_ctx_list->prev = n;
    shmi_ctx_list = n;
    pthread_mutex_unlock(&shmi_ctx_list_lock);
    *ctx = &n->ctx;
    return 0;
}

shmem_ctx_t shmi_ctx_runtime_new(long options)
{
    struct shmem_impl_ctx *c = calloc(1, sizeof(*c));

    if (c && shmi_ctx_setup(c, SHMEM_TEAM_WORLD, options) != 0) {
        free(c);
        c = NULL;
    }
    return c;
}

void shmi_ctx_runtime_free(shmem_ctx_t ctx)
{
    if (ctx == NULL)
        return;
    shmi_ctx_teardown("shmem_finalize", ctx);
    free(ctx);
}

int shmi_ctx_create(long options, shmem_ctx_t *ctx)
{
    shmi_require_init("shmem_ctx_create");
    if (ctx == NULL)
        SHMI_FATAL("shmem_ctx_create: ctx (the result pointer) is NULL");
    return shmi_ctx_new(SHMEM_TEAM_WORLD, options, ctx);
}

void shmi_ctx_destroy(shmem_ctx_t ctx)
{
    shmi_ctx_node_t *n = (shmi_ctx_node_t *)ctx;

    shmi_require_init("shmem_ctx_destroy");
    /* Destroying "no context" is harmless: a program may destroy a handle
     * whose creation failed. */
    if (ctx == SHMEM_CTX_INVALID)
        return;
    if (ctx == SHMEM_CTX_DEFAULT)
        SHMI_FATAL("shmem_ctx_destroy: SHMEM_CTX_DEFAULT cannot be destroyed");
    if (ctx->destroyed)
        SHMI_FATAL("shmem_ctx_destroy: context %p was already destroyed (a "
                   "context may be destroyed once)",
                   (void *)ctx);
    shmi_ctx_teardown("shmem_ctx_destroy", ctx);
    shmi_team_ctx_release(ctx->team);
    ctx->destroyed = 1;
    ctx->team = &shmi_ctx_dead_team;
    pthread_mutex_lock(&shmi_ctx_list_lock);
    if (n->prev)
        n->prev->next = n->next;
    else
        shmi_ctx_list = n->next;
    if (n->next)
        n->next->prev = n->prev;
    n->prev = NULL;
    n->next = shmi_ctx_dead;
    shmi_ctx_dead = n;
    pthread_mutex_unlock(&shmi_ctx_list_lock);
}

_Noreturn void shmi_ctx_bad_destroyed(const char *routine, shmem_ctx_t ctx)
{
    SHMI_FATAL("%s: context %p was destroyed (shmem_ctx_destroy) and cannot "
               "be used again",
               routine, (void *)ctx);
}

/* Sessions are performance hints (1.6); the load/store path has nothing to
 * batch and the fabric path sends each operation at once, so a session
 * changes nothing, which the specification allows. */
void shmi_ctx_session_start(shmem_ctx_t ctx, long options,
                            const shmem_ctx_session_config_t *config,
                            long config_mask)
{
    (void)options;
    (void)config;
    (void)config_mask;
    shmi_require_init("shmem_ctx_session_start");
    if (ctx == SHMEM_CTX_INVALID)
        return;
    if (ctx->destroyed)
        shmi_ctx_bad_destroyed("shmem_ctx_session_start", ctx);
}

void shmi_ctx_session_stop(shmem_ctx_t ctx)
{
    shmi_require_init("shmem_ctx_session_stop");
    if (ctx != SHMEM_CTX_INVALID && ctx->destroyed)
        shmi_ctx_bad_destroyed("shmem_ctx_session_stop", ctx);
}
