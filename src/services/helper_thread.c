/*
 * Helper threads (helper_thread.h): the thread, its queue of posted items,
 * its wait and its shutdown. The client's ring, if it has one, is the
 * client's: the service only calls serve() on it.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

#include "services/backoff.h"
#include "services/error.h"
#include "services/helper_thread.h"

int shmi_helper_started;

/* Longest nap of an idle helper (ns): longer than a waiting PE's longest
 * sleep where each PE has a core (SHMI_BACKOFF_MAX_NS), as a helper that
 * naps is idle most of the job and each wake is a progress pass, a system
 * call on the software providers. */
#define HELPER_NAP_MAX_NS 100000L

struct shmi_helper {
    shmi_helper_client_t c;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t posted; /* to the helper: an item, or pending is 0 */
    pthread_cond_t ended;  /* to callers: a waited-for item has run */
    shmi_helper_item_t *head, *tail;
    unsigned long queued;  /* posted, not taken (read unlocked by a poll) */
    unsigned long pending; /* promised, posted or running, not ended */
    const char *running;   /* what of the item running, or NULL */
    int stopping;
};

/* Takes and runs the oldest posted item; 0 when there is none. */
static int helper_run_posted(shmi_helper_t *h)
{
    shmi_helper_item_t *it;
    unsigned flags;

    /* A ring helper polls here on every turn: no lock while idle. */
    if (__atomic_load_n(&h->queued, __ATOMIC_ACQUIRE) == 0)
        return 0;
    pthread_mutex_lock(&h->lock);
    if (h->running || !h->head) { /* another thread took one to run */
        pthread_mutex_unlock(&h->lock);
        return 0;
    }
    it = h->head;
    h->head = it->next;
    if (!h->head)
        h->tail = NULL;
    __atomic_store_n(&h->queued, h->queued - 1, __ATOMIC_RELAXED);
    h->running = it->what;
    flags = it->flags;
    pthread_mutex_unlock(&h->lock);
    it->run(h->c.arg, it);
    pthread_mutex_lock(&h->lock);
    h->running = NULL;
    if (flags & SHMI_HELPER_WAIT) {
        /* The caller counts it ended once it has seen done: it may free
         * the helper right after (shmi_helper_stop). */
        it->done = 1;
        pthread_cond_broadcast(&h->ended);
    } else {
        h->pending--;
    }
    pthread_mutex_unlock(&h->lock);
    return 1;
}

/* Stopping, and nothing left that anybody promised or posted. */
static int helper_finished(shmi_helper_t *h)
{
    int done;

    /* A ring helper asks on every idle turn: no lock until stopping. */
    if (!__atomic_load_n(&h->stopping, __ATOMIC_ACQUIRE))
        return 0;
    pthread_mutex_lock(&h->lock);
    done = h->pending == 0;
    pthread_mutex_unlock(&h->lock);
    return done;
}

/* An idle client that asked for it sleeps whatever the node (1 us doubling
 * to HELPER_NAP_MAX_NS), still driving progress on each wake. */
static void helper_nap(shmi_backoff_t *b)
{
    struct timespec ts = {0, b->sleep_ns};

    if (shmi_backoff_progress)
        shmi_backoff_progress();
    b->polls++;
    nanosleep(&ts, NULL);
    b->sleep_ns = b->sleep_ns * 2 < HELPER_NAP_MAX_NS ? b->sleep_ns * 2
                                                       : HELPER_NAP_MAX_NS;
}

/* The wait of an idle helper (helper_thread.h, "Wait policy"). */
static void helper_wait(shmi_helper_t *h, shmi_backoff_t *b)
{
    if (!h->c.serve) {
        pthread_mutex_lock(&h->lock);
        while ((!h->head || h->running) &&
               !(h->stopping && h->pending == 0))
            pthread_cond_wait(&h->posted, &h->lock);
        pthread_mutex_unlock(&h->lock);
    } else if (h->c.nap_after &&
               b->polls >= shmi_backoff_spin_now() + h->c.nap_after) {
        helper_nap(b);
    } else {
        shmi_backoff_wait(b);
    }
}

static void *helper_main(void *arg)
{
    shmi_helper_t *h = arg;
    shmi_backoff_t b;
    int busy = 0;

#ifdef PR_SET_TIMERSLACK
    /* Short sleeps, as asked: the default slack of 50 us would make each
     * of them a long one (backoff.c says the same of waiting PEs). */
    (void)prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
#endif
    shmi_backoff_init(&b);
    for (;;) {
        if (helper_run_posted(h) || (h->c.serve && h->c.serve(h->c.arg))) {
            busy = 1;
            shmi_backoff_init(&b);
        } else if (busy) {
            /* Then poll once more: the idle hook may take a while. */
            if (h->c.idle)
                h->c.idle(h->c.arg);
            busy = 0;
        } else if (helper_finished(h)) {
            break;
        } else {
            helper_wait(h, &b);
        }
    }
    if (h->c.stop)
        h->c.stop(h->c.arg);
    return NULL;
}

int shmi_helper_start(const shmi_helper_client_t *c, shmi_helper_t **out)
{
    shmi_helper_t *h = calloc(1, sizeof(*h));

    *out = NULL;
    if (!h)
        return SHMI_ENOMEM;
    h->c = *c;
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->posted, NULL);
    pthread_cond_init(&h->ended, NULL);
    /* Before the thread: from here another thread may progress. */
    __atomic_store_n(&shmi_helper_started, 1, __ATOMIC_RELEASE);
    if (pthread_create(&h->thread, NULL, helper_main, h) != 0) {
        SHMI_LOG(SHMI_LOG_ERROR, "helper", "cannot start the %s's thread",
                 c->name);
        pthread_mutex_destroy(&h->lock);
        pthread_cond_destroy(&h->posted);
        pthread_cond_destroy(&h->ended);
        free(h);
        return SHMI_ENOMEM;
    }
    *out = h;
    return 0;
}

/* With h->lock held: refuses new work once the helper is stopping. */
static int helper_refuse(shmi_helper_t *h, const char *what)
{
    if (!h->stopping)
        return 0;
    SHMI_LOG(SHMI_LOG_ERROR, "helper",
             "%s refused: the %s is stopping (%lu item(s) still pending)",
             what ? what : "an item", h->c.name, h->pending);
    return SHMI_ESTATE;
}

int shmi_helper_post(shmi_helper_t *h, shmi_helper_item_t *it,
                     unsigned flags)
{
    pthread_mutex_lock(&h->lock);
    if (!(flags & SHMI_HELPER_PROMISED)) {
        if (helper_refuse(h, it->what) != 0) {
            pthread_mutex_unlock(&h->lock);
            return SHMI_ESTATE;
        }
        h->pending++;
    }
    it->next = NULL;
    it->flags = flags;
    it->done = 0;
    if (h->tail)
        h->tail->next = it;
    else
        h->head = it;
    h->tail = it;
    __atomic_store_n(&h->queued, h->queued + 1, __ATOMIC_RELEASE);
    pthread_cond_signal(&h->posted);
    if (flags & SHMI_HELPER_WAIT) {
        while (!it->done)
            pthread_cond_wait(&h->ended, &h->lock);
        h->pending--;
        pthread_cond_signal(&h->posted); /* a stopping helper may end */
    }
    pthread_mutex_unlock(&h->lock);
    return 0;
}

int shmi_helper_promise(shmi_helper_t *h, const char *what)
{
    int ret;

    pthread_mutex_lock(&h->lock);
    ret = helper_refuse(h, what);
    if (ret == 0)
        h->pending++;
    pthread_mutex_unlock(&h->lock);
    return ret;
}

void shmi_helper_unpromise(shmi_helper_t *h)
{
    pthread_mutex_lock(&h->lock);
    h->pending--;
    pthread_cond_signal(&h->posted);
    pthread_mutex_unlock(&h->lock);
}

unsigned long shmi_helper_pending(shmi_helper_t *h, const char **running)
{
    unsigned long n;

    pthread_mutex_lock(&h->lock);
    n = h->pending;
    if (running)
        *running = h->running;
    pthread_mutex_unlock(&h->lock);
    return n;
}

void shmi_helper_stop(shmi_helper_t *h)
{
    pthread_mutex_lock(&h->lock);
    __atomic_store_n(&h->stopping, 1, __ATOMIC_RELEASE);
    pthread_cond_signal(&h->posted);
    pthread_mutex_unlock(&h->lock);
    pthread_join(h->thread, NULL);
    pthread_mutex_destroy(&h->lock);
    pthread_cond_destroy(&h->posted);
    pthread_cond_destroy(&h->ended);
    free(h);
}

shmi_helper_item_t *shmi_helper_take(shmi_helper_t *h)
{
    shmi_helper_item_t *it = NULL;

    if (__atomic_load_n(&h->queued, __ATOMIC_ACQUIRE) == 0)
        return NULL;
    pthread_mutex_lock(&h->lock);
    if (!h->running && h->head && !(h->head->flags & SHMI_HELPER_WAIT)) {
        it = h->head;
        h->head = it->next;
        if (!h->head)
            h->tail = NULL;
        __atomic_store_n(&h->queued, h->queued - 1, __ATOMIC_RELAXED);
        h->running = it->what;
    }
    pthread_mutex_unlock(&h->lock);
    return it;
}

void shmi_helper_ran(shmi_helper_t *h)
{
    pthread_mutex_lock(&h->lock);
    h->running = NULL;
    h->pending--;
    pthread_cond_signal(&h->posted); /* the next item, or a stopping end */
    pthread_mutex_unlock(&h->lock);
}
