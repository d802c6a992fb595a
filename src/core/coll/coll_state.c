/*
 * Symmetric state of the team slots, and the flag primitives every
 * collective algorithm is built from (see coll.h for the model).
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "core/coll/coll.h"
#include "core/coll/peer_record.h"
#include "core/ctx.h"
#include "core/dataplane.h"
#include "core/device_mem.h"
#include "core/heap/device_heap.h"
#include "core/heap/heap.h"
#include "core/route.h"
#include "core/watchdog.h"
#include "services/backoff.h"
#include "services/env.h"
#include "services/error.h"

/*
 * The slots live in the symmetric heap (load/store reachable from every PE
 * of the node), allocated by every PE at the same point of shmem_init, so
 * the offsets agree. (Static storage of the library would not do: only the
 * executable's data segment is symmetric.)
 */
static shmi_coll_slot_t *shmi_coll_slots;

/* Arrivals taken so far from each flag of each slot (see flag_take). */
#define SHMI_COLL_NFLAGS (offsetof(shmi_coll_slot_t, buf) / sizeof(uint64_t))
static uint64_t shmi_coll_taken[SHMI_TEAM_SLOTS][SHMI_COLL_NFLAGS];
/* Dissemination barriers begun on each slot (shmi_coll_bar_next). */
static uint64_t shmi_coll_bar_seq[SHMI_TEAM_SLOTS];
/* Tagged reductions begun on each slot (shmi_coll_tag_next). */
static uint64_t shmi_coll_tag_seq[SHMI_TEAM_SLOTS];

shmi_coll_algo_t shmi_coll_algo;

/* The values of SHMEM_*_ALGORITHM, in the order of each collective's enum
 * (coll.h); env.c has already refused any other word. */
#define SHMI_ALG_WORDS 4 /* auto and three algorithms, for each collective */
_Static_assert(SHMI_BARRIER_TWOLEVEL == SHMI_ALG_WORDS - 1 &&
                   SHMI_BCAST_TWOLEVEL == SHMI_ALG_WORDS - 1 &&
                   SHMI_REDUCE_TWOLEVEL == SHMI_ALG_WORDS - 1,
               "one name per algorithm");
static const char *const shmi_barrier_names[SHMI_ALG_WORDS] = {
    "auto", "dissemination", "flat", "twolevel"};
static const char *const shmi_bcast_names[SHMI_ALG_WORDS] = {
    "auto", "tree", "pull", "twolevel"};
static const char *const shmi_reduce_names[SHMI_ALG_WORDS] = {
    "auto", "doubling", "slices", "twolevel"};

/* The index of value in names, 0 (auto) when absent. */
static int shmi_coll_choice(const char *value,
                            const char *const names[SHMI_ALG_WORDS])
{
    for (int i = 1; i < SHMI_ALG_WORDS; i++)
        if (strcmp(value, names[i]) == 0)
            return i;
    return 0;
}

shmem_ctx_t shmi_coll_context;
_Thread_local shmem_ctx_t shmi_coll_lane_ctx
    __attribute__((tls_model("initial-exec")));

/* Whether the collectives' signals may travel as messages (route.h, msg):
 * until shmem_finalize's barrier (shmi_coll_msg_stop). */
static int shmi_coll_by_msg = 1;

/* An endpoint of its own over a fabric (coll.h); shared by the threads
 * that run collectives on different teams, hence locked in
 * SHMEM_THREAD_MULTIPLE. */
static void shmi_coll_context_init(void)
{
    shmem_ctx_t c = NULL;

    if (shmi_state.fabric != NULL)
        c = shmi_ctx_runtime_new(0);
    if (shmi_state.fabric != NULL && c == NULL)
        SHMI_LOG(SHMI_LOG_DEBUG, "coll",
                 "no context of their own: the collectives use the default "
                 "context");
    shmi_coll_context = c != NULL ? c : SHMEM_CTX_DEFAULT;
}

void shmi_coll_crowd_agree(void)
{
    struct shmem_impl_team *w = &shmem_impl_team_world;
    int mine = shmi_backoff_job_crowded(), all = mine;

    shmi_coll_algo.crowded = 0;
    if (w->n_pes > 1) {
        shmi_coll_enter("shmem_init", w);
        shmi_coll_reduce(w, &all, &mine, 1, SHMI_DT_INT, SHMI_OP_MAX);
        shmi_coll_leave();
    }
    shmi_coll_algo.crowded = all;
    SHMI_LOG(SHMI_LOG_DEBUG, "coll", "%s: barriers and small reductions %s",
             all ? "the job crowds some PE's cores" : "a core per PE",
             all ? "gather within each node (few wake-ups per PE)"
                 : "in log2 rounds");
}

int shmi_coll_state_init(void)
{
    size_t bytes = sizeof(shmi_coll_slot_t) * SHMI_TEAM_SLOTS;

    shmi_coll_by_msg = 1;
    shmi_coll_algo.barrier = (shmi_barrier_alg_t)shmi_coll_choice(
        shmi_env.BARRIER_ALGORITHM, shmi_barrier_names);
    shmi_coll_algo.bcast = (shmi_bcast_alg_t)shmi_coll_choice(
        shmi_env.BCAST_ALGORITHM, shmi_bcast_names);
    shmi_coll_algo.reduce = (shmi_reduce_alg_t)shmi_coll_choice(
        shmi_env.REDUCE_ALGORITHM, shmi_reduce_names);
    shmi_coll_algo.large = shmi_env.COLL_LARGE;
    shmi_coll_algo.crowded = 0;
    shmi_coll_slots = shmi_heap_alloc(bytes, 64);
    if (shmi_coll_slots == NULL) {
        SHMI_LOG(SHMI_LOG_ERROR, "coll",
                 "the symmetric heap cannot hold the %zu bytes of team and "
                 "collective state; raise SHMEM_SYMMETRIC_SIZE",
                 bytes);
        return SHMI_ENOMEM;
    }
    shmi_coll_context_init();
    return shmi_watch_init();
}

void shmi_coll_state_finalize(void)
{
    if (shmi_coll_context != SHMEM_CTX_DEFAULT)
        shmi_ctx_runtime_free(shmi_coll_context);
    shmi_coll_context = SHMEM_CTX_DEFAULT;
    shmi_heap_free("shmem_finalize", shmi_coll_slots);
    shmi_coll_slots = NULL;
}

shmi_coll_slot_t *shmi_coll_slot(int slot)
{
    return &shmi_coll_slots[slot];
}

void shmi_coll_slot_reset(int slot)
{
    memset(&shmi_coll_slots[slot], 0, sizeof(shmi_coll_slots[slot]));
    memset(shmi_coll_taken[slot], 0, sizeof(shmi_coll_taken[slot]));
    shmi_coll_bar_seq[slot] = 0;
    shmi_coll_tag_seq[slot] = 0;
    shmi_watch_slot_reset(slot);
    shmi_coll_ctx_sync_reset(slot);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void shmi_coll_msg_stop(void)
{
    shmi_coll_by_msg = 0;
}

void shmi_coll_flag_add(uint64_t *flag, int wpe)
{
    const char *routine = shmi_coll_routine();
    uint64_t one = 1;
    size_t off;
    int seg = shmi_eng_seg_at(routine, flag, sizeof(*flag), &off);
    const shmi_route_t *r = shmi_route_ready(wpe, seg);

    /* One message where the fabric sends the runtime's signals so (a
     * put-with-signal of no data), else an atomic add: on the load/store
     * path a CPU atomic, with no detour through put-with-signal. */
    if (shmi_coll_by_msg && r->base == NULL && r->msg)
        shmi_eng_put_signal(routine, shmi_coll_ctx(), wpe, seg, off, NULL, 0,
                            seg, off, 1, SHMI_AMO_ADD, 0,
                            SHMI_ENG_SIGNAL_ONE_MSG);
    else
        shmi_eng_amo(routine, shmi_coll_ctx(), wpe, seg, off, SHMI_AMO_ADD,
                     SHMI_DT_UINT64, &one, NULL, NULL, 0);
}

/*
 * The flags of the slots only ever grow: this PE remembers how many
 * arrivals it has taken from each (shmi_coll_taken, private memory) and
 * waits for the count to pass that mark, which costs no atomic on its own
 * memory (an atomic through the NIC when a fabric applies all atomics).
 * Flags elsewhere (the user's pSync) must return to SHMEM_SYNC_VALUE, so
 * arrivals are subtracted there.
 */

static uint64_t *shmi_coll_taken_of(const uint64_t *flag)
{
    uintptr_t a = (uintptr_t)flag, base = (uintptr_t)shmi_coll_slots;
    size_t slot, off;

    if (shmi_coll_slots == NULL || a < base ||
        a >= base + sizeof(shmi_coll_slot_t) * SHMI_TEAM_SLOTS)
        return NULL;
    slot = (a - base) / sizeof(shmi_coll_slot_t);
    off = (a - base) % sizeof(shmi_coll_slot_t);
    if (off >= offsetof(shmi_coll_slot_t, buf))
        return NULL;
    return &shmi_coll_taken[slot][off / sizeof(uint64_t)];
}

/* What a collective wait waits for: *flag >= want. */
typedef struct shmi_coll_wait {
    const volatile uint64_t *flag;
    uint64_t want;
} shmi_coll_wait_t;

static int shmi_coll_wait_done(const void *arg)
{
    const shmi_coll_wait_t *w = arg;

    return __atomic_load_n(w->flag, __ATOMIC_ACQUIRE) >= w->want;
}

/*
 * Waits until *flag >= want. Past spinning, the loop looks at its peers
 * now and then (peer_record.h), so that a wait for a PE that has finalized, or
 * (SHMEM_DEBUG=1) a PE in another collective call, ends the job with a
 * message instead of hanging, and the watchdog times it (watchdog.h: a
 * report after SHMEM_WATCHDOG seconds). The flags are host memory (the
 * slots are in the host heap; pSync is checked by shmi_coll_check_psync).
 */
static void shmi_coll_wait(const volatile uint64_t *flag, uint64_t want,
                           int from)
{
    shmi_coll_wait_t w = {flag, want};
    shmi_backoff_t b;

    shmi_backoff_init(&b);
    while (!shmi_coll_wait_done(&w)) {
        if (b.polls > shmi_backoff_spin_now() &&
            shmi_watchdog_due(&b, shmi_watchdog_say_coll,
                              (const void *)(intptr_t)from))
            shmi_coll_watch(from, shmi_coll_wait_done, &w);
        shmi_backoff_wait(&b);
    }
}

void shmi_coll_flag_take_from(uint64_t *flag, uint64_t count, int from)
{
    uint64_t minus = (uint64_t)0 - count;
    uint64_t *taken = shmi_coll_taken_of(flag);
    const char *routine = shmi_coll_routine();
    uint64_t old;
    size_t off;
    int seg;

    if (count == 0)
        return;
    if (taken != NULL) {
        *taken += count;
        shmi_coll_wait(flag, *taken, from);
        return;
    }
    shmi_coll_wait(flag, count, from);
    /* A fetching atomic: the subtraction is done when it returns, even when
     * atomics to this PE's own memory go through the fabric. */
    seg = shmi_eng_seg_at(routine, flag, sizeof(*flag), &off);
    shmi_eng_amo(routine, shmi_coll_ctx(), shmi_my_pe_fast(), seg, off,
                 SHMI_AMO_FETCH_ADD, SHMI_DT_UINT64, &minus, NULL, &old, 0);
}

void shmi_coll_flag_take(uint64_t *flag, uint64_t count)
{
    shmi_coll_flag_take_from(flag, count, -1);
}

uint64_t shmi_coll_bar_next(int slot)
{
    return ++shmi_coll_bar_seq[slot];
}

void shmi_coll_word_set(uint64_t *word, uint64_t value, int wpe)
{
    const char *routine = shmi_coll_routine();
    size_t off;
    int seg = shmi_eng_seg_at(routine, word, sizeof(*word), &off);

    shmi_eng_put_word(routine, shmi_coll_ctx(), wpe, seg, off, value,
                      shmi_coll_by_msg);
}

void shmi_coll_word_wait(const uint64_t *word, uint64_t want, int from)
{
    shmi_coll_wait(word, want, from);
}

uint64_t shmi_coll_tag_next(int slot)
{
    return ++shmi_coll_tag_seq[slot];
}

void shmi_coll_tagged_send(shmi_coll_tagged_t *b, const void *src,
                           size_t nbytes, size_t span, uint64_t tag, int wpe)
{
    unsigned char msg[sizeof(shmi_coll_tagged_t)] __attribute__((aligned(16)));
    const char *routine = shmi_coll_routine();
    size_t head = span - sizeof(tag), off;
    int seg =
        shmi_eng_seg_at(routine, shmi_coll_tagged_data(b, span), span, &off);

    memcpy(msg, src, nbytes);
    memset(msg + nbytes, 0, head - nbytes);
    memcpy(msg + head, &tag, sizeof(tag));
    shmi_eng_put_tagged(routine, shmi_coll_ctx(), wpe, seg, off, msg, span,
                        shmi_coll_by_msg);
}

/*
 * The tag is the last thing to land, whatever the path: a release store
 * after the copy, a signal set after the data, or one write whose bytes
 * the provider places in address order (shmt_coll_ops_t.put_tagged). Even a tag
 * that lands in pieces is safe to wait on: its bytes land low to high,
 * and a mix of the new number's low bytes with the high bytes of the
 * number two before it is never more than the new number, and equal to
 * it only when the rest already matches. Where another thread may have
 * made that write's copy, one more progress pass orders its data before
 * this PE's reads (the contract of put_tagged, transports/transport.h).
 */
const void *shmi_coll_tagged_wait(shmi_coll_tagged_t *b, size_t span,
                                  uint64_t tag)
{
    shmi_coll_wait(&b->tag, tag, -1);
    if (shmi_progress_shared())
        shmi_progress_pass();
    return shmi_coll_tagged_data(b, span);
}

void shmi_coll_put_signal(void *dest, const void *src, size_t nbytes,
                          uint64_t *flag, int wpe)
{
    const char *routine;
    size_t off, soff;
    int seg, sseg;

    if (nbytes == 0) {
        /* Still an arrival to count; nothing to order it after. */
        shmi_coll_flag_add(flag, wpe);
        return;
    }
    routine = shmi_coll_routine();
    seg = shmi_coll_at(dest, nbytes, &off); /* may be the program's */
    sseg = shmi_eng_seg_at(routine, flag, sizeof(*flag), &soff);
    shmi_eng_put_signal(routine, shmi_coll_ctx(), wpe, seg, off, src, nbytes,
                        sseg, soff, 1, SHMI_AMO_ADD, 0,
                        shmi_coll_by_msg ? SHMI_ENG_SIGNAL_ONE_MSG
                                         : SHMI_ENG_SIGNAL_RUNTIME);
}

int shmi_coll_at(const void *sym, size_t len, size_t *off)
{
    int seg = shmi_seg_lookup(sym, len, off);

    /* The entry points check the program's buffers for their size only
     * (shmi_coll_check_count): one in no symmetric segment is named here,
     * with the data plane's message (range_check.c), before any traffic. */
    if (SHMI_UNLIKELY(seg < 0))
        shmi_dp_bad_addr(shmi_coll_routine(), sym, len, shmi_my_pe_fast());
    return seg;
}

void shmi_coll_fence(void)
{
    shmi_eng_fence(shmi_coll_routine(), shmi_coll_ctx());
}

void shmi_coll_quiet(void)
{
    shmi_eng_quiet(shmi_coll_routine(), shmi_coll_ctx(), -1);
}

int shmi_coll_device(const void *dest, const void *src, size_t nbytes)
{
    return shmi_device_touches(dest, nbytes) ||
           shmi_device_touches(src, nbytes);
}

void shmi_coll_copy(void *dest, const void *src, size_t nbytes)
{
    const shmi_gpu_ops_t *g;
    int dd, sd, ret;

    if (nbytes == 0 || dest == src)
        return;
    dd = shmi_device_touches(dest, nbytes);
    sd = shmi_device_touches(src, nbytes);
    if (!dd && !sd) {
        memmove(dest, src, nbytes);
        return;
    }
    g = shmi_device_backend();
    ret = g ? g->copy(dest, src, nbytes,
                      dd ? (sd ? SHMI_GPU_D2D : SHMI_GPU_H2D) : SHMI_GPU_D2H)
            : SHMI_ENODEV;
    if (ret != 0)
        shmi_device_fail(shmi_coll_routine(), shmi_my_pe_fast(), ret);
}
