/*
 * Distributed locks: shmem_set_lock, shmem_test_lock, shmem_clear_lock.
 *
 * An MCS queue lock over remote atomics, so that waiters are served in
 * arrival order and every waiter spins on a word in its own memory (never
 * on a remote one). The user's symmetric long is used as two 32-bit words:
 *
 *   word 0 ("tail"), meaningful on the lock's home PE only: 0 when the lock
 *       is free, else 1 + the PE number of the last PE in the queue;
 *   word 1 ("node"), on every PE: this PE's queue node for this lock, with
 *       (1 + successor PE) << 1 added by the successor when it queues behind
 *       us, and bit 0 set by our predecessor when it hands the lock over.
 *
 * The home PE is chosen by hashing the lock's symmetric offset, which
 * spreads many locks over many PEs. The specification requires the long
 * to be zero before first use, which is the free state here too.
 *
 * The specification leaves clearing a lock that the PE does not hold
 * undefined; in this queue it would wait forever for a successor that never
 * comes. Each PE therefore remembers the locks it holds (a short private
 * list: programs hold few locks at once), and shmem_clear_lock of a lock
 * not in it, or shmem_set_lock of one already in it (which would wait for
 * itself), ends the job with a message. A PE waiting for the hand-over from
 * a predecessor that has finalized ends the job too (src/core/coll/peer_record.h);
 * one that waits SHMEM_WATCHDOG seconds reports it (src/core/watchdog.h).
 */
#include "config.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/core_decl.h"
#include "core/coll/peer_record.h"
#include "core/core_api.h"
#include "core/engine/engine.h"
#include "core/progress.h"
#include "core/init.h"
#include "core/segment.h"
#include "core/state.h"
#include "core/watchdog.h"
#include "services/backoff.h"
#include "services/error.h"

typedef struct shmi_lock_words {
    int32_t *tail; /* on the home PE */
    int32_t *node; /* on every PE */
    int home;      /* world PE that holds the tail */
    int seg;       /* the lock's segment and offset there: what the */
    size_t off;    /* engine takes (src/core/engine/engine.h) */
} shmi_lock_words_t;

static void shmi_lock_words(const char *routine, long *lock,
                            shmi_lock_words_t *w)
{
    size_t off;
    int seg;

    shmi_require_init(routine);
    if (lock == NULL || ((uintptr_t)lock & (sizeof(long) - 1)) != 0)
        SHMI_FATAL("%s: lock %p is NULL or not aligned to a long", routine,
                   (void *)lock);
    seg = shmi_seg_lookup(lock, sizeof(long), &off);
    if (seg < 0)
        SHMI_FATAL("%s: lock %p is not a symmetric address", routine,
                   (void *)lock);
    w->tail = (int32_t *)lock;
    w->node = (int32_t *)lock + 1;
    w->seg = seg;
    w->off = off;
    w->home = (int)((off / sizeof(long)) % (size_t)shmi_n_pes_fast());
}

/* An atomic on word (w->tail or w->node) of the lock on pe; the lock was
 * checked once, by shmi_lock_words. */
static int32_t shmi_lock_amo(const char *routine, shmi_amo_op_t op,
                             const shmi_lock_words_t *w, const int32_t *word,
                             int32_t operand, int32_t compare, int pe)
{
    size_t off = w->off + (size_t)(word - w->tail) * sizeof(int32_t);
    /* The engine, inline here, copies an operand by the datatype's size,
     * which the compiler cannot see through the datatype table: it checks
     * every size against the object, so each operand lives in a union as
     * large as the largest (the int32_t at its start is what is read). */
    union {
        int32_t v;
        uint64_t any;
    } opnd = {.v = operand}, cmp = {.v = compare}, got = {.any = 0};

    shmi_eng_amo(routine, SHMEM_CTX_DEFAULT, pe, w->seg, off, op, SHMI_DT_INT32,
                 &opnd.v, &cmp.v, &got.v, 0);
    return got.v;
}

/* ---- locks held by this PE ------------------------------------------------ */

/* The locks this PE holds, unordered; guarded by shmi_locks_mutex because
 * any thread of the PE may set or clear a lock. */
static pthread_mutex_t shmi_locks_mutex = PTHREAD_MUTEX_INITIALIZER;
static long **shmi_locks_held;
static size_t shmi_locks_n, shmi_locks_cap;

/* Index of lock in the list, or -1; caller holds the mutex. */
static long shmi_locks_find(const long *lock)
{
    for (size_t i = 0; i < shmi_locks_n; i++)
        if (shmi_locks_held[i] == lock)
            return (long)i;
    return -1;
}

static int shmi_locks_holds(const long *lock)
{
    long i;

    pthread_mutex_lock(&shmi_locks_mutex);
    i = shmi_locks_find(lock);
    pthread_mutex_unlock(&shmi_locks_mutex);
    return i >= 0;
}

static void shmi_locks_add(const char *routine, long *lock)
{
    long **grown;

    pthread_mutex_lock(&shmi_locks_mutex);
    if (shmi_locks_n == shmi_locks_cap) {
        size_t cap = shmi_locks_cap ? 2 * shmi_locks_cap : 8;

        grown = realloc(shmi_locks_held, cap * sizeof(*grown));
        if (grown == NULL)
            SHMI_FATAL("%s: out of memory recording lock %p as held by PE %d",
                       routine, (void *)lock, shmi_my_pe_fast());
        shmi_locks_held = grown;
        shmi_locks_cap = cap;
    }
    shmi_locks_held[shmi_locks_n++] = lock;
    pthread_mutex_unlock(&shmi_locks_mutex);
}

/* Removes lock from the list; 0, or SHMI_EINVAL when it was not there. */
static int shmi_locks_remove(const long *lock)
{
    long i;

    pthread_mutex_lock(&shmi_locks_mutex);
    i = shmi_locks_find(lock);
    if (i >= 0)
        shmi_locks_held[i] = shmi_locks_held[--shmi_locks_n];
    pthread_mutex_unlock(&shmi_locks_mutex);
    return i >= 0 ? 0 : SHMI_EINVAL;
}

/* ---- the queue ---------------------------------------------------------------- */

typedef struct shmi_lock_wait {
    const volatile int32_t *node;
    int32_t mask;
} shmi_lock_wait_t;

static int shmi_lock_wait_done(const void *arg)
{
    const shmi_lock_wait_t *w = arg;

    return (__atomic_load_n(w->node, __ATOMIC_ACQUIRE) & w->mask) != 0;
}

/* Ends the job when the PE this one waits for (from, a world PE) has
 * finalized: it will never hand the lock over or link behind us. */
static void shmi_lock_watch(const char *routine, const long *lock, int from,
                            const shmi_lock_wait_t *w)
{
    if (!shmi_watch_finalized(from) || shmi_lock_wait_done(w))
        return;
    SHMI_FATAL("%s: PE %d waits on lock %p for PE %d, which has already "
               "called shmem_finalize and exited without releasing it",
               routine, shmi_my_pe_fast(), (const void *)lock, from);
}

/* What a blocked lock wait says (watchdog.h). */
typedef struct shmi_lock_say {
    const char *routine;
    const long *lock;
    int from; /* as for shmi_lock_wait_local */
} shmi_lock_say_t;

static void shmi_lock_wait_say(const void *arg, char *buf, size_t len)
{
    const shmi_lock_say_t *s = arg;

    if (s->from == shmi_my_pe_fast())
        snprintf(buf, len,
                 "%s on lock %p, waiting for the PE that queued for the lock "
                 "behind it (any PE may: one in shmem_set_lock) to link "
                 "itself",
                 s->routine, (const void *)s->lock);
    else
        snprintf(buf, len,
                 "%s on lock %p, waiting for PE %d, ahead of it in the "
                 "lock's queue, to hand the lock over (PE %d holds the lock, "
                 "or waits for it too)",
                 s->routine, (const void *)s->lock, s->from, s->from);
}

/* shmi_watchdog_due for shmi_lock_wait_local, on its slow path only. */
static int shmi_lock_due(shmi_backoff_t *b, const char *routine,
                         const long *lock, int from)
{
    shmi_lock_say_t s = {routine, lock, from};

    return shmi_watchdog_due(b, shmi_lock_wait_say, &s);
}

/* Waits until (node & mask) != 0 in this PE's own memory, backing off;
 * from is the world PE that will set it (this PE itself when any PE may). */
static int32_t shmi_lock_wait_local(const char *routine, const long *lock,
                                    volatile int32_t *node, int32_t mask,
                                    int from)
{
    shmi_lock_wait_t w = {node, mask};
    shmi_backoff_t b;

    shmi_backoff_init(&b);
    while (!shmi_lock_wait_done(&w)) {
        if (b.polls > shmi_backoff_spin_now() &&
            shmi_lock_due(&b, routine, lock, from))
            shmi_lock_watch(routine, lock, from, &w);
        shmi_backoff_wait(&b);
    }
    return __atomic_load_n(node, __ATOMIC_ACQUIRE);
}

void shmi_set_lock(long *lock)
{
    shmi_lock_words_t w;
    int me = shmi_my_pe_fast();
    int32_t prev;

    shmi_lock_words("shmem_set_lock", lock, &w);
    if (shmi_locks_holds(lock))
        SHMI_FATAL("shmem_set_lock: lock %p is already held by PE %d (set "
                   "twice without shmem_clear_lock: it would wait for itself)",
                   (void *)lock, me);
    /* Our node is idle while we do not hold or wait for this lock. */
    shmi_lock_amo("shmem_set_lock", SHMI_AMO_SWAP, &w, w.node, 0, 0, me);
    prev = shmi_lock_amo("shmem_set_lock", SHMI_AMO_SWAP, &w, w.tail, me + 1, 0,
                         w.home);
    if (prev != 0) {
        shmi_lock_amo("shmem_set_lock", SHMI_AMO_FETCH_ADD, &w, w.node,
                      (me + 1) << 1, 0, prev - 1);
        shmi_lock_wait_local("shmem_set_lock", lock, w.node, 1, prev - 1);
    }
    /* Acquire: what the previous holder wrote before releasing is seen. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    shmi_locks_add("shmem_set_lock", lock);
}

int shmi_test_lock(long *lock)
{
    shmi_lock_words_t w;
    int me = shmi_my_pe_fast();
    int32_t prev;

    shmi_lock_words("shmem_test_lock", lock, &w);
    /* Held here already: it is set, and our node must stay as it is. */
    if (shmi_locks_holds(lock))
        return 1;
    shmi_lock_amo("shmem_test_lock", SHMI_AMO_SWAP, &w, w.node, 0, 0, me);
    prev = shmi_lock_amo("shmem_test_lock", SHMI_AMO_CSWAP, &w, w.tail, me + 1,
                         0, w.home);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (prev == 0) {
        shmi_locks_add("shmem_test_lock", lock);
        return 0;
    }
    /* Callers poll test_lock in a loop: keep the target side of the other
     * PEs' fabric operations (the holder's among them) moving meanwhile. */
    shmi_progress();
    return 1;
}

void shmi_clear_lock(long *lock)
{
    shmi_lock_words_t w;
    int me = shmi_my_pe_fast();
    int32_t v, succ;

    shmi_lock_words("shmem_clear_lock", lock, &w);
    if (shmi_locks_remove(lock) != 0)
        SHMI_FATAL("shmem_clear_lock: lock %p is not held by PE %d (it was "
                   "not set by shmem_set_lock or shmem_test_lock on this PE, "
                   "or was cleared already)",
                   (void *)lock, me);
    /* Release: the holder's updates are complete before the next holder
     * can see the lock as its own. */
    shmi_eng_quiet("shmem_clear_lock", SHMEM_CTX_DEFAULT, -1);
    v = __atomic_load_n(w.node, __ATOMIC_ACQUIRE);
    if ((v >> 1) == 0) {
        if (shmi_lock_amo("shmem_clear_lock", SHMI_AMO_CSWAP, &w, w.tail, 0,
                          me + 1, w.home) == me + 1)
            return;
        /* Someone swapped itself in as the tail; wait for it to link (a
         * PE inside shmem_set_lock cannot finalize: from is unknown). */
        v = shmi_lock_wait_local("shmem_clear_lock", lock, w.node, ~(int32_t)1,
                                 me);
    }
    succ = (v >> 1) - 1;
    shmi_lock_amo("shmem_clear_lock", SHMI_AMO_FETCH_ADD, &w, w.node, 1, 0,
                  succ);
}
