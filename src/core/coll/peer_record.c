/*
 * Peers seen from a waiting PE: the finalized mark, the blocked waits that a
 * PE at exit looks at and, with SHMEM_DEBUG=1, the sequence of collective
 * calls per team (see peer_record.h for the model).
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/coll/coll.h"
#include "core/coll/nbc.h"
#include "core/coll/peer_record.h"
#include "core/dataplane.h"
#include "core/heap/heap.h"
#include "core/segment.h"
#include "core/state.h"
#include "services/env.h"
#include "services/error.h"

/* Calls remembered per slot. A member can be at most one call ahead of a
 * PE that is still inside a call (it cannot finish the next call before
 * this PE enters it), so two would do; four leave room. */
#define SHMI_WATCH_RING 4
#define SHMI_WATCH_NAME 40

typedef struct shmi_watch_call {
    uint64_t seq;                  /* call number on the slot, from 1 */
    char routine[SHMI_WATCH_NAME]; /* public routine, NUL-terminated */
} shmi_watch_call_t;

/* What a PE waiting at exit reads of each peer, in one get (peer_record.h). */
typedef struct shmi_watch_exit {
    uint64_t at_exit;    /* 1: waits at exit for the others (shmi_watch_exit_wait) */
    uint64_t wait_id;    /* blocking waits of this PE that got past spinning */
    uint64_t wait_polls; /* looks at the peers from those waits: one per
                            SHMI_WATCH_PERIOD_NS while the PE stays blocked */
    uint64_t multi;      /* SHMEM_THREAD_MULTIPLE: another thread may go on
                            while one waits, so no wait proves a deadlock */
} shmi_watch_exit_t;

typedef struct shmi_watch_rec {
    uint64_t finalized; /* 1 once shmem_finalize no longer synchronizes */
    shmi_watch_exit_t exit;
    shmi_watch_call_t calls[SHMI_TEAM_SLOTS][SHMI_WATCH_RING];
    /* [n_pes]: gone[p] is set by PE p itself when it has finalized, by a
     * store or over the fabric (peer_gone.c): what this PE knows of peers
     * whose record it cannot read. */
    uint8_t gone[];
} shmi_watch_rec_t;

/* This PE's record, at the same heap offset on every PE. */
static shmi_watch_rec_t *shmi_watch_rec;

/* Collective calls this PE made per slot (SHMEM_DEBUG=1), private. */
static uint64_t shmi_watch_calls[SHMI_TEAM_SLOTS];

/* The calling thread's outermost collective (collectives on one team are
 * not called from several threads at once, but different teams may be). */
typedef struct shmi_coll_cur {
    const char *routine;
    struct shmem_impl_team *team;
    uint64_t seq; /* its number on team's slot; 0 when not recorded */
    uint64_t call; /* its number on team's slot, counted always (the
                      watchdog names it, src/core/watchdog.h); 0: none */
    int depth;    /* nesting of shmi_coll_enter */
} shmi_coll_cur_t;
static _Thread_local shmi_coll_cur_t shmi_coll_cur;

int shmi_watch_init(void)
{
    size_t n = (size_t)shmi_n_pes_fast();

    shmi_watch_rec = shmi_heap_alloc(sizeof(*shmi_watch_rec) + n, 64);
    memset(shmi_watch_calls, 0, sizeof(shmi_watch_calls));
    if (shmi_watch_rec == NULL)
        return SHMI_ENOMEM;
    memset(shmi_watch_rec->gone, 0, n);
    shmi_watch_gone_init();
    shmi_watch_rec->exit.multi =
        shmi_state.thread_level == SHMEM_THREAD_MULTIPLE;
    return 0;
}

void shmi_watch_set_finalized(void)
{
    if (shmi_watch_rec == NULL)
        return;
    __atomic_store_n(&shmi_watch_rec->finalized, 1, __ATOMIC_RELEASE);
    shmi_watch_tell();
}

/* wpe's record through this process's mapping of its heap, or NULL (a
 * peer of this node mapped on first use is not mapped to be looked at:
 * the node's first PE's record tells of it, shmi_watch_finalized). */
static const shmi_watch_rec_t *shmi_watch_peer(int wpe)
{
    size_t off;

    if (shmi_watch_rec == NULL)
        return NULL;
    off = (size_t)((char *)shmi_watch_rec - shmi_state.seg[SHMI_SEG_HEAP].base);
    return shmi_seg_peer_mapped(wpe, SHMI_SEG_HEAP, off);
}

int shmi_watch_finalized(int wpe)
{
    const shmi_watch_rec_t *r;

    if (shmi_watch_rec == NULL)
        return 0;
    if (__atomic_load_n(&shmi_watch_rec->gone[wpe], __ATOMIC_ACQUIRE))
        return 1;
    r = shmi_watch_peer(wpe);
    if (r != NULL)
        return __atomic_load_n(&r->finalized, __ATOMIC_ACQUIRE);
    if (shmi_state.route[SHMI_SEG_HEAP] == NULL)
        return 0;
    switch (shmi_route_of(wpe, SHMI_SEG_HEAP)->map) {
    case SHMI_ROUTE_MAP_ON_USE:
        /* A peer of this node not mapped here: it left its mark in the
         * record of the node's first PE, which every PE maps at start. */
        r = shmi_watch_peer(shmi_state.boot.local_pes[0]);
        return r != NULL && __atomic_load_n(&r->gone[wpe], __ATOMIC_ACQUIRE);
    case SHMI_ROUTE_MAP_FAILED:
        /* Its heap could not be mapped on first use: it has closed it,
         * which its shmem_finalize does after its mark, or it exited. */
        return 1;
    default:
        return 0;
    }
}

uint8_t *shmi_watch_marks(void)
{
    return shmi_watch_rec ? shmi_watch_rec->gone : NULL;
}

int shmi_watch_all_others_finalized(void)
{
    int n = shmi_n_pes_fast(), me = shmi_my_pe_fast();

    if (n < 2)
        return 0;
    for (int pe = 0; pe < n; pe++)
        if (pe != me && !shmi_watch_finalized(pe))
            return 0;
    return 1;
}

static unsigned long long shmi_watch_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ULL +
           (unsigned long long)ts.tv_nsec;
}

int shmi_watch_due(shmi_backoff_t *b)
{
    unsigned long long now = shmi_watch_now_ns();

    /* The wait is blocked: a PE at exit counts its looks (peer_record.h). */
    if (b->watch_ns == 0) {
        b->watch_ns = now + SHMI_WATCH_PERIOD_NS;
        if (shmi_watch_rec)
            __atomic_fetch_add(&shmi_watch_rec->exit.wait_id, 1,
                               __ATOMIC_RELAXED);
        return 0;
    }
    if (now < b->watch_ns)
        return 0;
    b->watch_ns = now + SHMI_WATCH_PERIOD_NS;
    if (shmi_watch_rec)
        __atomic_fetch_add(&shmi_watch_rec->exit.wait_polls, 1,
                           __ATOMIC_RELAXED);
    return 1;
}

void shmi_watch_slot_reset(int slot)
{
    shmi_watch_calls[slot] = 0;
    if (shmi_watch_rec)
        memset(shmi_watch_rec->calls[slot], 0,
               sizeof(shmi_watch_rec->calls[slot]));
}

/* ---- collective calls ------------------------------------------------------ */

/* The team as a message names it. */
static const char *shmi_watch_team_name(const struct shmem_impl_team *t)
{
    if (t == &shmem_impl_team_world)
        return "SHMEM_TEAM_WORLD";
    if (t == &shmem_impl_team_shared)
        return "SHMEM_TEAM_SHARED";
    return "a team created by a split";
}

/* Records call number seq of routine on slot, for the other members. */
static void shmi_watch_record(int slot, uint64_t seq, const char *routine)
{
    shmi_watch_call_t *c = &shmi_watch_rec->calls[slot][seq % SHMI_WATCH_RING];

    __atomic_store_n(&c->seq, 0, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    strncpy(c->routine, routine, SHMI_WATCH_NAME - 1);
    c->routine[SHMI_WATCH_NAME - 1] = '\0';
    __atomic_store_n(&c->seq, seq, __ATOMIC_RELEASE);
}

/* Ends the job when member wpe made the current call with routine other. */
static void shmi_watch_differs(int wpe, const char *other)
{
    const shmi_coll_cur_t *cur = &shmi_coll_cur;

    if (strncmp(other, cur->routine, SHMI_WATCH_NAME - 1) == 0)
        return;
    SHMI_FATAL("%s: collective call %llu on %s differs between PEs: "
               "PE %d called %s, PE %d called %s (every PE of a team must "
               "make the same collective calls in the same order)",
               cur->routine, (unsigned long long)cur->seq,
               shmi_watch_team_name(cur->team), shmi_my_pe_fast(),
               cur->routine, wpe, other);
}

/* Ends the job when a member of the current call's team whose record is
 * mapped here made call number seq with another routine. */
static void shmi_watch_compare(void)
{
    const shmi_coll_cur_t *cur = &shmi_coll_cur;
    const struct shmem_impl_team *t = cur->team;
    char other[SHMI_WATCH_NAME];

    for (int i = 0; i < t->n_pes; i++) {
        int wpe = shmi_team_world_pe(t, i);
        const shmi_watch_rec_t *r =
            wpe == shmi_my_pe_fast() ? NULL : shmi_watch_peer(wpe);
        const shmi_watch_call_t *c;

        if (r == NULL)
            continue;
        c = &r->calls[t->slot][cur->seq % SHMI_WATCH_RING];
        if (__atomic_load_n(&c->seq, __ATOMIC_ACQUIRE) != cur->seq)
            continue;
        memcpy(other, c->routine, sizeof(other));
        other[SHMI_WATCH_NAME - 1] = '\0';
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&c->seq, __ATOMIC_RELAXED) != cur->seq)
            continue;
        shmi_watch_differs(wpe, other);
    }
}

/*
 * The same for the members whose record is not mapped here (over a
 * fabric), with gets: one for the entry's call number, and a second for
 * the whole entry once that number is the current call's. An entry does
 * not change while this PE is in its call (a member is at most one call
 * ahead, and the ring holds SHMI_WATCH_RING), so the second get reads it
 * whole. Members that have finalized are left out: they no longer answer
 * a get, and a wait for one ends with its own message (shmi_coll_watch).
 * A get is answered by the member's progress, which it drives while it
 * waits too.
 */
/* len bytes of the runtime's record at rec on world PE wpe, into dst. */
static void shmi_watch_fetch(const char *routine, void *dst, const void *rec,
                             size_t len, int wpe)
{
    size_t off;
    int seg = shmi_eng_seg_at(routine, rec, len, &off);

    shmi_eng_get(routine, SHMEM_CTX_DEFAULT, wpe, seg, off, dst, len, 0);
}

static void shmi_watch_compare_fetched(void)
{
    const shmi_coll_cur_t *cur = &shmi_coll_cur;
    const struct shmem_impl_team *t = cur->team;
    const shmi_watch_call_t *c =
        &shmi_watch_rec->calls[t->slot][cur->seq % SHMI_WATCH_RING];
    shmi_watch_call_t got;

    for (int i = 0; i < t->n_pes; i++) {
        int wpe = shmi_team_world_pe(t, i);

        /* Peers of this node not mapped here are left out too: each PE
         * compares with the next of the node, which it maps, so that a
         * difference on the node is seen by one of them. */
        if (wpe == shmi_my_pe_fast() || shmi_watch_peer(wpe) != NULL ||
            shmi_route_of(wpe, SHMI_SEG_HEAP)->ops == NULL ||
            shmi_route_of(wpe, SHMI_SEG_HEAP)->map != SHMI_ROUTE_MAP_NONE ||
            shmi_watch_finalized(wpe))
            continue;
        shmi_watch_fetch(cur->routine, &got.seq, &c->seq, sizeof(got.seq),
                         wpe);
        if (got.seq != cur->seq)
            continue;
        shmi_watch_fetch(cur->routine, &got, c, sizeof(got), wpe);
        got.routine[SHMI_WATCH_NAME - 1] = '\0';
        if (got.seq == cur->seq)
            shmi_watch_differs(wpe, got.routine);
    }
}

/* When a blocked collective wait of this thread next fetches the members'
 * records over the fabric (SHMEM_DEBUG=1): first once it has been blocked
 * SHMI_WATCH_FETCH_FIRST_NS, then every SHMI_WATCH_FETCH_NS (a get per
 * member off this node each time: rare enough to cost the members
 * nothing, soon enough for a message within a second). */
#define SHMI_WATCH_FETCH_FIRST_NS 100000000ULL
#define SHMI_WATCH_FETCH_NS 500000000ULL
typedef struct shmi_watch_fetch_at {
    const struct shmem_impl_team *team;
    uint64_t seq;
    unsigned long long next;
} shmi_watch_fetch_at_t;
static _Thread_local shmi_watch_fetch_at_t shmi_watch_fetch_at;

/* 1 when the current call's wait should fetch the records now. */
static int shmi_watch_fetch_due(void)
{
    shmi_watch_fetch_at_t *f = &shmi_watch_fetch_at;
    const shmi_coll_cur_t *cur = &shmi_coll_cur;
    unsigned long long now = shmi_watch_now_ns();

    if (f->team != cur->team || f->seq != cur->seq) {
        f->team = cur->team;
        f->seq = cur->seq;
        f->next = now + SHMI_WATCH_FETCH_FIRST_NS;
        return 0;
    }
    if (now < f->next)
        return 0;
    f->next = now + SHMI_WATCH_FETCH_NS;
    return 1;
}

void shmi_coll_enter(const char *routine, struct shmem_impl_team *t)
{
    shmi_coll_cur_t *cur = &shmi_coll_cur;

    if (cur->depth++ > 0)
        return;
    /* A blocking collective on a team is ordered after the nonblocking
     * ones posted on it before (nbc.h): one load when there are none. */
    if (t != NULL &&
        __atomic_load_n(&t->nb_inflight, __ATOMIC_ACQUIRE) != 0 &&
        !shmi_nbc_on_lane())
        shmi_nbc_drain(routine, t);
    cur->routine = routine;
    cur->team = t;
    cur->seq = 0;
    cur->call = 0;
    if (t == NULL || t->slot == SHMI_TEAM_SLOT_ACTIVE_SET)
        return;
    cur->call = ++shmi_watch_calls[t->slot];
    if (!shmi_env.DEBUG || shmi_watch_rec == NULL)
        return;
    cur->seq = cur->call;
    shmi_watch_record(t->slot, cur->seq, routine);
}

void shmi_coll_leave(void)
{
    shmi_coll_cur_t *cur = &shmi_coll_cur;

    if (--cur->depth > 0)
        return;
    if (cur->seq != 0)
        shmi_watch_compare();
    cur->routine = NULL;
    cur->team = NULL;
    cur->seq = 0;
    cur->call = 0;
}

void shmi_coll_compare_now(void)
{
    if (shmi_coll_cur.seq == 0)
        return;
    shmi_watch_compare();
    shmi_watch_compare_fetched();
}

int shmi_coll_in_call(void)
{
    return shmi_coll_cur.routine != NULL;
}

const char *shmi_coll_routine(void)
{
    return shmi_coll_cur.routine ? shmi_coll_cur.routine
                                 : "a collective of the library";
}

int shmi_watch_gone(int from)
{
    const struct shmem_impl_team *t = shmi_coll_cur.team;
    int n = t ? t->n_pes : shmi_n_pes_fast();

    if (from >= 0)
        return shmi_watch_finalized(from) ? from : -1;
    for (int i = 0; i < n; i++) {
        int wpe = t ? shmi_team_world_pe(t, i) : i;

        if (wpe != shmi_my_pe_fast() && shmi_watch_finalized(wpe))
            return wpe;
    }
    return -1;
}

_Noreturn void shmi_coll_gone_fatal(int gone)
{
    SHMI_FATAL("%s: PE %d waits for PE %d, which has already called "
               "shmem_finalize and exited; the PEs made different sequences "
               "of collective calls (SHMEM_DEBUG=1 names the first call that "
               "differs)",
               shmi_coll_routine(), shmi_my_pe_fast(), gone);
}

void shmi_coll_watch(int from, int (*satisfied)(const void *), const void *arg)
{
    int gone;

    if (shmi_coll_cur.seq != 0) {
        shmi_watch_compare();
        if (shmi_watch_fetch_due())
            shmi_watch_compare_fetched();
    }
    gone = shmi_watch_gone(from);
    if (gone < 0 || satisfied(arg))
        return;
    shmi_coll_gone_fatal(gone);
}

/* ---- waiting at exit --------------------------------------------------------- */

/* How often a PE at exit looks at its peers: at first every 20 ms, after a
 * second every 100 ms (a PE that still computes may take minutes, and each
 * look at a peer off this node is a get). */
#define SHMI_EXIT_LOOK_NS      20000000ULL
#define SHMI_EXIT_LOOK_SLOW_NS 100000000ULL
#define SHMI_EXIT_SLOW_AFTER_NS 1000000000ULL
/* How long every PE that is not at exit must stay blocked in one wait,
 * seen at least SHMI_EXIT_STUCK_LOOKS times in a row, before the PE at exit
 * concludes that they wait for it. */
#define SHMI_EXIT_STUCK_NS    300000000ULL
#define SHMI_EXIT_STUCK_LOOKS 3

/* What this PE last saw of each peer. */
typedef struct shmi_exit_peer {
    uint64_t wait_id;
    uint64_t wait_polls;
    int at_exit; /* final once seen: a PE at exit never leaves it */
} shmi_exit_peer_t;

enum { SHMI_EXIT_ALL_HERE, SHMI_EXIT_RUNNING, SHMI_EXIT_ALL_STUCK };

/*
 * One look at the peers not yet seen at exit, from the first of them: each
 * is at exit, blocked (in the same wait as at the last look, which has
 * looked at its peers since: it found its condition still false) or
 * running. Stops at the first running peer: one get per look while a PE
 * computes.
 */
static int shmi_exit_look(shmi_exit_peer_t *peers, int *first)
{
    int n = shmi_n_pes_fast(), me = shmi_my_pe_fast();
    int all_here = 1;

    for (int pe = *first; pe < n; pe++) {
        shmi_exit_peer_t *p = &peers[pe];
        shmi_watch_exit_t st;
        int stuck;

        if (pe == me || p->at_exit)
            continue;
        shmi_watch_fetch("shmem_finalize", &st, &shmi_watch_rec->exit,
                         sizeof(st), pe);
        if (st.at_exit) {
            p->at_exit = 1;
            if (all_here)
                *first = pe + 1;
            continue;
        }
        all_here = 0;
        stuck = !st.multi && st.wait_id != 0 && st.wait_id == p->wait_id &&
                st.wait_polls > p->wait_polls;
        p->wait_id = st.wait_id;
        p->wait_polls = st.wait_polls;
        if (!stuck)
            return SHMI_EXIT_RUNNING;
    }
    return all_here ? SHMI_EXIT_ALL_HERE : SHMI_EXIT_ALL_STUCK;
}

int shmi_watch_exit_wait(void)
{
    int n = shmi_n_pes_fast(), first = 0, stuck_looks = 0, ret = 0;
    unsigned long long start = shmi_watch_now_ns(), next = start, stuck_since = 0;
    shmi_exit_peer_t *peers;
    shmi_backoff_t b;

    if (n < 2 || shmi_watch_rec == NULL)
        return 0;
    peers = calloc((size_t)n, sizeof(*peers));
    if (peers == NULL)
        return SHMI_ENOMEM;
    __atomic_store_n(&shmi_watch_rec->exit.at_exit, 1, __ATOMIC_RELEASE);
    shmi_backoff_init(&b);
    for (;;) {
        unsigned long long now = shmi_watch_now_ns();
        int seen;

        if (now < next) {
            shmi_backoff_wait(&b); /* drives progress: peers may need it */
            continue;
        }
        next = now + (now - start < SHMI_EXIT_SLOW_AFTER_NS
                          ? SHMI_EXIT_LOOK_NS
                          : SHMI_EXIT_LOOK_SLOW_NS);
        seen = shmi_exit_look(peers, &first);
        if (seen == SHMI_EXIT_ALL_HERE)
            break;
        if (seen == SHMI_EXIT_RUNNING) {
            stuck_looks = 0;
            continue;
        }
        if (stuck_looks++ == 0)
            stuck_since = now;
        if (stuck_looks >= SHMI_EXIT_STUCK_LOOKS &&
            now - stuck_since >= SHMI_EXIT_STUCK_NS) {
            ret = SHMI_ESTATE;
            break;
        }
    }
    free(peers);
    return ret;
}

/* ---- for the watchdog (src/core/watchdog.h) ---------------------------------- */

const struct shmem_impl_team *shmi_coll_cur_team(void)
{
    return shmi_coll_cur.team;
}

const char *shmi_coll_team_name(void)
{
    return shmi_coll_cur.team ? shmi_watch_team_name(shmi_coll_cur.team)
                              : NULL;
}

uint64_t shmi_coll_call(void)
{
    return shmi_coll_cur.call;
}
