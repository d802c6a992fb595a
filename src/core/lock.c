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
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "api/gen/core_decl.h"
#include "core/backoff.h"
#include "core/core_api.h"
#include "core/dataplane.h"
#include "core/error.h"
#include "core/init.h"
#include "core/segment.h"
#include "core/state.h"

typedef struct shmi_lock_words {
    int32_t *tail; /* on the home PE */
    int32_t *node; /* on every PE */
    int home;      /* world PE that holds the tail */
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
    w->home = (int)((off / sizeof(long)) % (size_t)shmi_n_pes_fast());
}

static int32_t shmi_lock_amo(const char *routine, shmi_amo_op_t op,
                             int32_t *word, int32_t operand, int32_t compare,
                             int pe)
{
    int32_t fetched = 0;

    shmi_amo(routine, SHMEM_CTX_DEFAULT, op, SHMI_DT_INT32, word, &operand,
             &compare, &fetched, pe);
    return fetched;
}

/* Waits until (node & mask) != 0 in this PE's own memory, backing off. */
static int32_t shmi_lock_wait_local(volatile int32_t *node, int32_t mask)
{
    shmi_backoff_t b;
    int32_t v;

    shmi_backoff_init(&b);
    while (((v = __atomic_load_n(node, __ATOMIC_ACQUIRE)) & mask) == 0) {
        shmi_backoff_wait(&b);
    }
    return v;
}

void shmi_set_lock(long *lock)
{
    shmi_lock_words_t w;
    int me = shmi_my_pe_fast();
    int32_t prev;

    shmi_lock_words("shmem_set_lock", lock, &w);
    /* Our node is idle while we do not hold or wait for this lock. */
    shmi_lock_amo("shmem_set_lock", SHMI_AMO_SWAP, w.node, 0, 0, me);
    prev = shmi_lock_amo("shmem_set_lock", SHMI_AMO_SWAP, w.tail, me + 1, 0,
                         w.home);
    if (prev != 0) {
        shmi_lock_amo("shmem_set_lock", SHMI_AMO_FETCH_ADD, w.node,
                      (me + 1) << 1, 0, prev - 1);
        shmi_lock_wait_local(w.node, 1);
    }
    /* Acquire: what the previous holder wrote before releasing is seen. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

int shmi_test_lock(long *lock)
{
    shmi_lock_words_t w;
    int me = shmi_my_pe_fast();
    int32_t prev;

    shmi_lock_words("shmem_test_lock", lock, &w);
    shmi_lock_amo("shmem_test_lock", SHMI_AMO_SWAP, w.node, 0, 0, me);
    prev = shmi_lock_amo("shmem_test_lock", SHMI_AMO_CSWAP, w.tail, me + 1, 0,
                         w.home);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (prev == 0)
        return 0;
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
    /* Release: the holder's updates are complete before the next holder
     * can see the lock as its own. */
    shmi_quiet();
    v = __atomic_load_n(w.node, __ATOMIC_ACQUIRE);
    if ((v >> 1) == 0) {
        if (shmi_lock_amo("shmem_clear_lock", SHMI_AMO_CSWAP, w.tail, 0, me + 1,
                          w.home) == me + 1)
            return;
        /* Someone swapped itself in as the tail; wait for it to link. */
        v = shmi_lock_wait_local(w.node, ~(int32_t)1);
    }
    succ = (v >> 1) - 1;
    shmi_lock_amo("shmem_clear_lock", SHMI_AMO_FETCH_ADD, w.node, 1, 0, succ);
}
