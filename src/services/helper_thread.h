/*
 * Helper threads (docs/design.md, decision 11): the one way Weft runs a
 * thread of its own beside the program's. A client (the device service of
 * transports/device, the kernel proxy of src/core/kernel, a stream's lane
 * in src/core/stream) describes its work with hooks; the service owns the
 * thread, its queue, its wait and its shutdown.
 *
 * Two kinds of items, served by the same thread in one loop:
 *   - ring items: in memory that others write (another PE's request in the
 *     device service's ring, a GPU kernel's request in the proxy's ring).
 *     The service cannot be told they came, so it polls: serve() serves
 *     the next one if it is ready. Items of a ring are served in the order
 *     serve() takes them (each client keeps its ring in ticket order).
 *   - posted items: handed to the helper by a thread of this process
 *     (shmi_helper_post), run in the order they were posted; the
 *     poster may wait until its item has run (SHMI_HELPER_WAIT).
 *
 * Wait policy. A helper with a ring polls as every wait of decision 10
 * does (shmi_backoff_wait: spin SHMEM_WAIT_SPIN polls unless the node is
 * crowded, yield, sleep while it is crowded), driving the transports'
 * progress on every poll. A client that is idle most of the job may ask,
 * with nap_after, to sleep after that many polls past the spin whatever
 * the node: 1 us doubling to 100 us. A helper without a ring
 * sleeps on a condition variable until an item is posted: it costs nothing
 * idle. After a run of items, the idle hook is called once before the
 * helper waits (a client's quiet and completion count).
 *
 * Shutdown. shmi_helper_stop drains: items posted or promised before it
 * run (it waits for the promised ones to be posted), the ring is served
 * until serve() finds nothing ready, then the idle hook, the client's stop
 * hook, and the thread ends. A post or a promise after the stop began is
 * refused with a message naming the client and the item (SHMI_ESTATE).
 *
 * Ordering across clients: none; each client has its own thread, so that
 * an item that blocks (a lane's signal wait) holds up only its client.
 *
 * The code here names no client: the hooks are the whole contract, so that
 * the transports and the core use it without an arrow upwards
 * (docs/architecture.md, "The layers and their interfaces").
 */
#ifndef SHMI_HELPER_THREAD_H
#define SHMI_HELPER_THREAD_H

#include <stddef.h>

typedef struct shmi_helper shmi_helper_t;

typedef struct shmi_helper_client {
    /* In messages: "device service", "kernel proxy", "stream lane". */
    const char *name;
    /* Serves the next ring item if it is ready: 1 if it served one, 0 if
     * none is ready. NULL: the helper has no ring. */
    int (*serve)(void *arg);
    /* After a run of items, before waiting (optional). */
    void (*idle)(void *arg);
    /* On the helper's thread, last, once drained (optional). */
    void (*stop)(void *arg);
    void *arg;
    /* Polls past the spin after which an idle ring helper sleeps whatever
     * the node (0: only as decision 10 says, on a crowded node). */
    unsigned long nap_after;
} shmi_helper_client_t;

/* An item posted to a helper. what names it while it runs (for
 * shmi_helper_pending, the watchdog's words); run(arg, item) runs on the
 * helper's thread with the client's arg. */
typedef struct shmi_helper_item {
    struct shmi_helper_item *next;
    const char *what;
    void (*run)(void *client_arg, struct shmi_helper_item *item);
    unsigned flags; /* the service's: SHMI_HELPER_* of the post */
    int done;       /* the service's: set after run, when waited for */
} shmi_helper_item_t;

/* Starts a thread serving client c (copied). 0 with *out set, or
 * SHMI_ENOMEM when no thread can be made (the caller names the routine). */
int shmi_helper_start(const shmi_helper_client_t *c, shmi_helper_t **out);

/* How shmi_helper_post hands an item over (or'ed). */
enum {
    SHMI_HELPER_WAIT = 1,    /* return once it has run (else: the helper
                                does not touch it after run returns, and
                                run may free it) */
    SHMI_HELPER_PROMISED = 2 /* it keeps a promise (shmi_helper_promise) */
};

/* Posts it (it->what and it->run set by the caller). Counts as pending
 * until it has run. SHMI_ESTATE, with a message naming the client and
 * it->what, once the helper is stopping (unless it keeps a promise). */
int shmi_helper_post(shmi_helper_t *h, shmi_helper_item_t *it,
                     unsigned flags);

/* Promises an item that another thread will post later (a host function
 * that a device stream runs when it gets there): from now the item counts
 * as pending, and stop waits for it. 0, or SHMI_ESTATE (with a message
 * naming what) once the helper is stopping. unpromise takes back a
 * promise that will not be kept. */
int shmi_helper_promise(shmi_helper_t *h, const char *what);
void shmi_helper_unpromise(shmi_helper_t *h);

/* Takes the next posted item for the calling thread to run itself, where
 * the helper runs none now and it is not waited for (SHMI_HELPER_WAIT):
 * the caller runs it (it->run(client arg, it)) and then calls
 * shmi_helper_ran. Items still run one at a time and in post order,
 * whoever runs them. NULL when there is none to take. For a client whose
 * poster may wait for its own items (a nonblocking collective's wait
 * runs it rather than wait for the helper to wake). */
shmi_helper_item_t *shmi_helper_take(shmi_helper_t *h);
void shmi_helper_ran(shmi_helper_t *h);

/* Items promised, posted or running and not yet ended; *running (if not
 * NULL) is what the item running now said it was, or NULL. */
unsigned long shmi_helper_pending(shmi_helper_t *h, const char **running);

/* Drains h (see above), ends its thread and frees it. Not from h's own
 * thread. */
void shmi_helper_stop(shmi_helper_t *h);

/* Whether a helper thread has ever been started in this process: from
 * then on another thread may drive the transports' progress beside the
 * program's (src/core/wait.c, shmi_progress_shared). Set before the
 * thread starts, never cleared. */
extern int shmi_helper_started;

static inline int shmi_helper_any_started(void)
{
    return __atomic_load_n(&shmi_helper_started, __ATOMIC_ACQUIRE);
}

#endif /* SHMI_HELPER_THREAD_H */
