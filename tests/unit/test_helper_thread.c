/*
 * The helper-thread service (src/services/helper_thread.h) on its own:
 * several clients at once, each served in order (posted items and a ring),
 * the idle hook after a run of ring items, shutdown with work pending
 * (posted and promised items run before the thread ends) and the refusal
 * of new work once a helper is stopping.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "services/error.h"
#include "services/helper_thread.h"
#include "tests/common/check.h"

#define CLIENTS 3
#define ITEMS   200
#define RING    64

/* ---- queue clients: items record the order they ran in --------------- */

typedef struct log {
    int seq[ITEMS * 2];
    int n;
    int bad_arg;
} log_t;

typedef struct rec {
    shmi_helper_item_t item; /* first */
    log_t *want_arg;
    int seq;
    unsigned delay_us;
    int keep; /* posted with SHMI_HELPER_WAIT: the poster owns it */
} rec_t;

static void rec_run(void *client_arg, shmi_helper_item_t *item)
{
    rec_t *r = (rec_t *)item;
    log_t *log = client_arg;

    if (r->delay_us)
        usleep(r->delay_us);
    if (log != r->want_arg)
        log->bad_arg++;
    log->seq[log->n++] = r->seq;
    if (!r->keep)
        free(r); /* allowed: a post without SHMI_HELPER_WAIT */
}

static int post_rec(shmi_helper_t *h, log_t *log, int seq, unsigned delay)
{
    rec_t *r = calloc(1, sizeof(*r));

    r->item.what = "a recorded item";
    r->item.run = rec_run;
    r->want_arg = log;
    r->seq = seq;
    r->delay_us = delay;
    return shmi_helper_post(h, &r->item, 0);
}

static void check_log(const log_t *log, int n, const char *who)
{
    CHECK_MSG(log->n == n, "%s: %d items ran, want %d", who, log->n, n);
    CHECK_MSG(log->bad_arg == 0, "%s: %d items got another client's arg", who,
              log->bad_arg);
    for (int i = 0; i < log->n && i < n; i++)
        if (log->seq[i] != i) {
            CHECK_MSG(0, "%s: item %d ran in place %d", who, log->seq[i], i);
            break;
        }
}

/* ---- a ring client: tickets that another thread publishes -------------- */

typedef struct ring {
    uint64_t ready[RING]; /* ticket + 1 once published */
    uint64_t head;        /* next ticket to serve (the helper's) */
    uint64_t served[RING];
    int idles, stops;
} ring_t;

static int ring_serve(void *arg)
{
    ring_t *r = arg;

    if (r->head == RING ||
        __atomic_load_n(&r->ready[r->head], __ATOMIC_ACQUIRE) != r->head + 1)
        return 0;
    r->served[r->head] = r->head;
    r->head++;
    return 1;
}

static void ring_idle(void *arg)
{
    ((ring_t *)arg)->idles++;
}

static void ring_stop(void *arg)
{
    ((ring_t *)arg)->stops++;
}

static void *ring_writer(void *arg)
{
    ring_t *r = arg;

    for (uint64_t t = 0; t < RING; t++) {
        if (t % 16 == 0)
            usleep(2000); /* let the helper go idle, and nap */
        __atomic_store_n(&r->ready[t], t + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

static void test_clients(void)
{
    shmi_helper_t *h[CLIENTS], *rh;
    log_t *log = calloc(CLIENTS, sizeof(*log));
    ring_t *ring = calloc(1, sizeof(*ring));
    shmi_helper_client_t rc = {.name = "test ring", .serve = ring_serve,
                               .idle = ring_idle, .stop = ring_stop,
                               .arg = ring, .nap_after = 4};
    pthread_t writer;

    for (int c = 0; c < CLIENTS; c++) {
        shmi_helper_client_t qc = {.name = "test queue", .arg = &log[c]};

        CHECK(shmi_helper_start(&qc, &h[c]) == 0);
    }
    CHECK(shmi_helper_start(&rc, &rh) == 0);
    CHECK(shmi_helper_any_started());
    pthread_create(&writer, NULL, ring_writer, ring);
    for (int i = 0; i < ITEMS; i++)
        for (int c = 0; c < CLIENTS; c++)
            CHECK(post_rec(h[c], &log[c], i, i % 50 == 0 ? 500 : 0) == 0);
    /* Stopped at once, most items still queued: all of them run. */
    for (int c = 0; c < CLIENTS; c++)
        shmi_helper_stop(h[c]);
    pthread_join(writer, NULL);
    shmi_helper_stop(rh);
    check_log(&log[0], ITEMS, "queue client 0");
    check_log(&log[1], ITEMS, "queue client 1");
    check_log(&log[2], ITEMS, "queue client 2");
    CHECK_MSG(ring->head == RING, "ring: %llu tickets served, want %d",
              (unsigned long long)ring->head, RING);
    for (int t = 0; t < RING; t++)
        CHECK_MSG(ring->served[t] == (uint64_t)t, "ring: slot %d", t);
    CHECK_MSG(ring->idles >= 1, "ring: idle hook called %d times", ring->idles);
    CHECK_MSG(ring->stops == 1, "ring: stop hook called %d times",
              ring->stops);
    free(log);
    free(ring);
}

/* ---- shutdown: promised items, waited-for items, refusal --------------- */

typedef struct late {
    shmi_helper_t *h;
    log_t *log;
    int refused;
} late_t;

/* Keeps a promise 30 ms late, the way a device stream's host function
 * posts long after the operation was enqueued, and waits for the run. */
static void *late_poster(void *arg)
{
    late_t *l = arg;
    rec_t r = {.item = {.what = "a promised item", .run = rec_run},
               .want_arg = l->log, .seq = 1, .keep = 1};

    usleep(30000);
    CHECK(shmi_helper_post(l->h, &r.item,
                           SHMI_HELPER_PROMISED | SHMI_HELPER_WAIT) == 0);
    CHECK(r.item.done == 1);
    return NULL;
}

typedef struct probe {
    shmi_helper_item_t item;
    late_t *l;
} probe_t;

/* Runs during the stop's drain: waits until the helper refuses a promise
 * (it is stopping), then checks that a post is refused too. */
static void probe_run(void *client_arg, shmi_helper_item_t *item)
{
    late_t *l = ((probe_t *)item)->l;
    log_t *log = client_arg;
    shmi_helper_item_t extra = {.what = "an item posted while stopping",
                                .run = rec_run};

    while (shmi_helper_promise(l->h, "a probe") == 0) {
        shmi_helper_unpromise(l->h);
        usleep(1000);
    }
    l->refused = shmi_helper_post(l->h, &extra, 0) == SHMI_ESTATE;
    log->seq[log->n++] = 0;
}

static void test_shutdown(void)
{
    log_t *log = calloc(1, sizeof(*log));
    late_t l = {NULL, log, 0};
    shmi_helper_client_t qc = {.name = "test queue", .arg = log};
    probe_t probe = {{.what = "the probe", .run = probe_run}, &l};
    pthread_t poster;
    const char *running = "x";

    CHECK(shmi_helper_start(&qc, &l.h) == 0);
    CHECK(shmi_helper_pending(l.h, &running) == 0 && running == NULL);
    CHECK(shmi_helper_promise(l.h, "a promised item") == 0);
    CHECK(shmi_helper_pending(l.h, NULL) == 1);
    CHECK(shmi_helper_post(l.h, &probe.item, 0) == 0);
    pthread_create(&poster, NULL, late_poster, &l);
    shmi_helper_stop(l.h); /* returns once both have run */
    pthread_join(poster, NULL);
    check_log(log, 2, "shutdown");
    CHECK_MSG(l.refused, "a post while stopping was accepted");
    free(log);
}

int main(void)
{
    test_clients();
    test_shutdown();
    return check_end("test_helper_thread");
}
