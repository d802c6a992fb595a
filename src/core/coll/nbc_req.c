/*
 * The requests of the nonblocking collectives (nbc.h): a table of
 * SHMI_NBC_MAX entries, and shmemx_req_test / shmemx_req_wait.
 *
 * The draft passes a request to test and wait by value and frees it when
 * they report completion, so the program keeps a value that names nothing
 * any more. A handle here is therefore not a pointer but the entry's index
 * and a generation that the entry's every reuse increments: a freed
 * handle, or one used twice, is recognised and named instead of
 * completing some later collective that reuses the entry
 * (docs/nonblocking-collectives.md, "Requests").
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "core/coll/nbc.h"
#include "core/init.h"
#include "core/progress.h"
#include "core/state.h"
#include "core/watchdog.h"
#include "services/backoff.h"
#include "services/error.h"

/* Index bits of a handle; the generation is above them. */
#define INDEX_BITS 16

static struct {
    pthread_mutex_t lock;
    shmi_nbc_req_t req[SHMI_NBC_MAX];
    int free_top; /* free[0..free_top) are free, once initialised */
    int free[SHMI_NBC_MAX];
    int ready;
    int high; /* entries 0..high-1 have been handed out at least once */
} nbc = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void table_init(void)
{
    nbc.free_top = SHMI_NBC_MAX;
    /* The lowest index on top: the overlap check scans 0..high only. */
    for (int i = 0; i < SHMI_NBC_MAX; i++)
        nbc.free[i] = SHMI_NBC_MAX - 1 - i;
    for (int i = 0; i < SHMI_NBC_MAX; i++)
        nbc.req[i].gen = 1;
    nbc.high = 0;
    nbc.ready = 1;
}

shmi_nbc_req_t *shmi_nbc_req_new(const char *routine)
{
    shmi_nbc_req_t *r;
    unsigned gen;
    int i;

    pthread_mutex_lock(&nbc.lock);
    if (!nbc.ready)
        table_init();
    if (nbc.free_top == 0) {
        pthread_mutex_unlock(&nbc.lock);
        SHMI_FATAL("%s: PE %d has %d nonblocking collectives in flight, the "
                   "most it can hold: complete some with shmemx_req_test or "
                   "shmemx_req_wait first",
                   routine, shmi_my_pe_fast(), SHMI_NBC_MAX);
    }
    i = nbc.free[--nbc.free_top];
    if (i >= nbc.high)
        nbc.high = i + 1;
    r = &nbc.req[i];
    gen = r->gen;
    *r = (shmi_nbc_req_t){0};
    r->gen = gen;
    r->routine = routine;
    __atomic_store_n(&r->state, SHMI_NBC_POSTED, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&nbc.lock);
    return r;
}

static int ranges_meet(const void *a, size_t alen, const void *b, size_t blen)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

    return alen != 0 && blen != 0 && x < y + blen && y < x + alen;
}

void shmi_nbc_req_check_overlap(const shmi_nbc_req_t *r)
{
    pthread_mutex_lock(&nbc.lock);
    for (int i = 0; i < nbc.high; i++) {
        const shmi_nbc_req_t *o = &nbc.req[i];
        const char *what = NULL;

        if (o == r ||
            __atomic_load_n(&o->state, __ATOMIC_ACQUIRE) != SHMI_NBC_POSTED)
            continue;
        if (ranges_meet(r->dest, r->dest_len, o->dest, o->dest_len))
            what = "dest overlaps the dest";
        else if (ranges_meet(r->dest, r->dest_len, o->src, o->src_len))
            what = "dest overlaps the source";
        else if (ranges_meet(r->src, r->src_len, o->dest, o->dest_len))
            what = "source overlaps the dest";
        if (what) {
            const char *other = o->routine;

            pthread_mutex_unlock(&nbc.lock);
            SHMI_FATAL("%s: PE %d: %s (%p) of a %s still in flight: the two "
                       "would race on those bytes; complete it with "
                       "shmemx_req_wait before posting this one",
                       r->routine, shmi_my_pe_fast(), what,
                       what[0] == 'd' ? r->dest : (void *)r->src, other);
        }
    }
    pthread_mutex_unlock(&nbc.lock);
}

shmemx_req_h shmi_nbc_req_handle(const shmi_nbc_req_t *r)
{
    uintptr_t i = (uintptr_t)(r - nbc.req);

    return (shmemx_req_h)(((uintptr_t)r->gen << INDEX_BITS) | (i + 1));
}

void shmi_nbc_req_done(shmi_nbc_req_t *r)
{
    __atomic_store_n(&r->state, SHMI_NBC_DONE, __ATOMIC_RELEASE);
}

/* The request that h names, or a fatal error naming routine and h. */
static shmi_nbc_req_t *req_of(const char *routine, shmemx_req_h h)
{
    uintptr_t v = (uintptr_t)h, i = (v & ((1u << INDEX_BITS) - 1)) - 1;
    unsigned long gen = (unsigned long)(v >> INDEX_BITS);
    shmi_nbc_req_t *r;

    if (h == SHMEMX_REQ_NULL)
        SHMI_FATAL("%s: PE %d: request is SHMEMX_REQ_NULL: it names no "
                   "collective (a nonblocking collective sets it; the test "
                   "or wait that completes it frees it)",
                   routine, shmi_my_pe_fast());
    pthread_mutex_lock(&nbc.lock);
    if (!nbc.ready || i >= (uintptr_t)nbc.high || gen == 0 ||
        gen > nbc.req[i].gen) {
        pthread_mutex_unlock(&nbc.lock);
        SHMI_FATAL("%s: PE %d: request %p is not one that a nonblocking "
                   "collective of this PE returned",
                   routine, shmi_my_pe_fast(), (void *)h);
    }
    r = &nbc.req[i];
    if (gen != r->gen ||
        __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == SHMI_NBC_FREE) {
        pthread_mutex_unlock(&nbc.lock);
        SHMI_FATAL("%s: PE %d: request %p was completed and freed by an "
                   "earlier shmemx_req_test or shmemx_req_wait: a request is "
                   "completed once, and its handle is not used after that",
                   routine, shmi_my_pe_fast(), (void *)h);
    }
    pthread_mutex_unlock(&nbc.lock);
    return r;
}

/* Frees r if it is still the request of generation gen: two threads that
 * complete the same request at once free it once; the other is told. */
static void req_free(const char *routine, shmi_nbc_req_t *r, unsigned gen)
{
    pthread_mutex_lock(&nbc.lock);
    if (r->gen != gen) {
        pthread_mutex_unlock(&nbc.lock);
        SHMI_FATAL("%s: PE %d: another thread completed this request at the "
                   "same time: a request is completed once",
                   routine, shmi_my_pe_fast());
    }
    r->gen++;
    __atomic_store_n(&r->state, SHMI_NBC_FREE, __ATOMIC_RELEASE);
    nbc.free[nbc.free_top++] = (int)(r - nbc.req);
    pthread_mutex_unlock(&nbc.lock);
}

int shmix_req_test(shmemx_req_h request)
{
    shmi_nbc_req_t *r;
    unsigned gen;

    shmi_require_init("shmemx_req_test");
    r = req_of("shmemx_req_test", request);
    gen = r->gen;
    if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != SHMI_NBC_DONE)
        return 1;
    req_free("shmemx_req_test", r, gen);
    return 0;
}

/* The watchdog's words for a wait (watchdog.h). */
static void wait_say(const void *arg, char *buf, size_t len)
{
    const shmi_nbc_req_t *r = arg;

    snprintf(buf, len,
             "shmemx_req_wait, waiting for a %s posted on a team of %d PEs "
             "(its team's lane runs it once every member has posted it)",
             r->routine, r->team ? r->team->n_pes : 0);
}

int shmix_req_wait(shmemx_req_h request)
{
    shmi_nbc_req_t *r;
    shmi_backoff_t b;
    unsigned gen;

    shmi_require_init("shmemx_req_wait");
    r = req_of("shmemx_req_wait", request);
    gen = r->gen;
    shmi_backoff_init(&b);
    while (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != SHMI_NBC_DONE) {
        /* Where the lane has not begun them, this thread runs the
         * collectives up to this one itself: a wait right after the post
         * costs what the blocking form costs, not a thread's wake-up. */
        if (shmi_nbc_run_next(r->team)) {
            shmi_backoff_init(&b);
            continue;
        }
        shmi_watchdog_check(&b, wait_say, r);
        shmi_backoff_wait(&b);
    }
    req_free("shmemx_req_wait", r, gen);
    return 0;
}

int shmi_nbc_req_finalize(void)
{
    int left = 0;

    pthread_mutex_lock(&nbc.lock);
    for (int i = 0; i < nbc.high; i++)
        if (__atomic_load_n(&nbc.req[i].state, __ATOMIC_ACQUIRE) !=
            SHMI_NBC_FREE)
            left++;
    nbc.ready = 0; /* a later handle names nothing */
    pthread_mutex_unlock(&nbc.lock);
    return left;
}
