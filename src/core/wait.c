/*
 * Point-to-point synchronization: the one engine behind wait_until*, test*
 * and signal_wait_until (core_api.h: shmi_wait), and the back-off of
 * backoff.h.
 *
 * Waited-on words are read with acquire loads, so that data put before a
 * flag (put; fence; put flag) is visible once the flag is. Words in this
 * PE's device heap are never dereferenced: each poll reads them through the
 * device back end (docs/gpu.md), with the same back-off.
 */
#include "config.h"

#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "core/coll/peer_record.h"
#include "core/dataplane.h"
#include "core/device_mem.h"
#include "core/heap/device_heap.h"
#include "core/init.h"
#include "core/watchdog.h"
#include "services/backoff.h"
#include "services/env.h"
#include "services/helper_thread.h"

/* In THREAD_MULTIPLE, progress is serialised here: a transport's progress
 * is not per endpoint, and a thread that finds it taken has nothing to do. */
static pthread_mutex_t shmi_progress_lock = PTHREAD_MUTEX_INITIALIZER;

/* Every transport that carries operations, in slot order. */
static void shmi_progress_all(void)
{
    for (int i = 0; i < shmi_state.n_carriers; i++)
        if (shmi_state.carrier[i]->progress)
            shmi_state.carrier[i]->progress();
}

/* A helper thread (services/helper_thread.h) waits, and so progresses,
 * beside the program's threads once one has been started. */
int shmi_progress_shared(void)
{
    return shmi_state.thread_level == SHMEM_THREAD_MULTIPLE ||
           shmi_helper_any_started();
}

void shmi_progress_pass(void)
{
    if (shmi_state.n_carriers == 0)
        return;
    pthread_mutex_lock(&shmi_progress_lock);
    shmi_progress_all();
    pthread_mutex_unlock(&shmi_progress_lock);
}

void shmi_progress(void)
{
    if (shmi_state.n_carriers == 0)
        return;
    if (shmi_state.thread_level != SHMEM_THREAD_MULTIPLE) {
        shmi_progress_all();
        return;
    }
    if (pthread_mutex_trylock(&shmi_progress_lock) == 0) {
        shmi_progress_all();
        pthread_mutex_unlock(&shmi_progress_lock);
    }
}

/* ---- comparisons ---------------------------------------------------------- */

static int shmi_cmp_valid(int cmp)
{
    return cmp == SHMEM_CMP_EQ || cmp == SHMEM_CMP_NE || cmp == SHMEM_CMP_GT ||
           cmp == SHMEM_CMP_GE || cmp == SHMEM_CMP_LT || cmp == SHMEM_CMP_LE;
}

/* A waited-on word, widened: signed kinds sign-extend, unsigned zero-extend. */
typedef struct shmi_wval {
    int is_signed;
    union {
        int64_t s;
        uint64_t u;
    } v;
} shmi_wval_t;

static inline shmi_wval_t shmi_wait_load(shmi_dtype_t dt,
                                         const volatile void *p, int acquire)
{
    int mo = acquire ? __ATOMIC_ACQUIRE : __ATOMIC_RELAXED;
    shmi_wval_t w = {shmi_dtype_kind(dt) == SHMI_DK_SIGNED, {0}};

    switch (shmi_dtype_size(dt)) {
    case 8: w.v.u = __atomic_load_n((const volatile uint64_t *)p, mo); break;
    case 4: {
        uint32_t x = __atomic_load_n((const volatile uint32_t *)p, mo);
        if (w.is_signed)
            w.v.s = (int32_t)x;
        else
            w.v.u = x;
        break;
    }
    case 2: {
        uint16_t x = __atomic_load_n((const volatile uint16_t *)p, mo);
        if (w.is_signed)
            w.v.s = (int16_t)x;
        else
            w.v.u = x;
        break;
    }
    default: {
        uint8_t x = __atomic_load_n((const volatile uint8_t *)p, mo);
        if (w.is_signed)
            w.v.s = (int8_t)x;
        else
            w.v.u = x;
        break;
    }
    }
    return w;
}

static inline int shmi_cmp_apply(int cmp, shmi_wval_t a, shmi_wval_t b)
{
    int lt = a.is_signed ? a.v.s < b.v.s : a.v.u < b.v.u;
    int eq = a.v.u == b.v.u;

    switch (cmp) {
    case SHMEM_CMP_EQ: return eq;
    case SHMEM_CMP_NE: return !eq;
    case SHMEM_CMP_GT: return !lt && !eq;
    case SHMEM_CMP_GE: return !lt;
    case SHMEM_CMP_LT: return lt;
    default: /* SHMEM_CMP_LE */ return lt || eq;
    }
}

/* One wait: what shmi_wait was asked. */
typedef struct shmi_wreq {
    const char *routine;
    shmi_wait_kind_t kind;
    int dev; /* ivars are in this PE's device heap */
    shmi_dtype_t dt;
    size_t size;
    const volatile char *ivars;
    size_t nelems;
    const int *status;
    int cmp;
    const char *values;
    size_t vstride; /* 0 for one value, size for a vector of values */
} shmi_wreq_t;

static inline int shmi_wait_masked(const shmi_wreq_t *r, size_t i)
{
    return r->status && r->status[i];
}

/*
 * A word of this PE's device heap, read by the back end: a fetching atomic
 * where it has device atomics (the same word the node's PEs update with
 * that atomic), else a copy, which moves an aligned word whole. The back
 * end's call returns only once the value is in host memory, which orders
 * the caller's later reads of the data after it.
 */
static shmi_wval_t shmi_wait_load_device(const shmi_wreq_t *r,
                                         const volatile void *p)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();
    uint64_t raw = 0; /* the word's bytes at its start, in host order */
    int ret = g->atomic((void *)p, SHMI_AMO_FETCH, r->dt, NULL, NULL, &raw);

    if (ret == SHMI_ENOTSUP)
        ret = g->copy(&raw, (const void *)p, r->size, SHMI_GPU_D2H);
    if (ret != 0)
        shmi_device_fail(r->routine, shmi_my_pe_fast(), ret);
    return shmi_wait_load(r->dt, &raw, 0);
}

/* Tests element i; the acquire load makes data written before it visible. */
static inline int shmi_wait_elem(const shmi_wreq_t *r, size_t i)
{
    const volatile char *p = r->ivars + i * r->size;
    shmi_wval_t a = __builtin_expect(r->dev, 0) ? shmi_wait_load_device(r, p)
                                                : shmi_wait_load(r->dt, p, 1);
    shmi_wval_t b = shmi_wait_load(r->dt, r->values + i * r->vstride, 0);

    return shmi_cmp_apply(r->cmp, a, b);
}

/* ---- waits that cannot end ------------------------------------------------ */

/* 1 when the wait is satisfied now (every unmasked element for ONE/ALL,
 * one of them for ANY/SOME). */
static int shmi_wait_satisfied(const shmi_wreq_t *r)
{
    int all = r->kind == SHMI_WAIT_ONE || r->kind == SHMI_WAIT_ALL;

    for (size_t i = 0; i < r->nelems; i++) {
        if (shmi_wait_masked(r, i))
            continue;
        if (shmi_wait_elem(r, i) != all)
            return !all;
    }
    return all;
}

static void shmi_wval_text(shmi_wval_t v, char *buf, size_t len)
{
    if (v.is_signed)
        snprintf(buf, len, "%" PRId64, v.v.s);
    else
        snprintf(buf, len, "%" PRIu64, v.v.u);
}

/* What a blocked wait says (watchdog.h): the address, the condition and,
 * for one word, its value now. Words are set by puts and atomics from any
 * PE, so no PE in particular is awaited. */
static void shmi_wait_say(const void *arg, char *buf, size_t len)
{
    static const char *const which[] = {"", "all", "any", "some"};
    const shmi_wreq_t *r = arg;
    char want[32], now[32];

    shmi_wval_text(shmi_wait_load(r->dt, r->values, 0), want, sizeof(want));
    if (r->kind == SHMI_WAIT_ONE) {
        /* shmem_signal_wait_until names its word sig_addr. */
        const char *name = strstr(r->routine, "signal") ? "sig_addr" : "ivars";

        shmi_wval_text(r->dev ? shmi_wait_load_device(r, r->ivars)
                              : shmi_wait_load(r->dt, r->ivars, 1),
                       now, sizeof(now));
        snprintf(buf, len,
                 "%s on %s %p (until *%s %s %s; it is %s now), which any PE "
                 "may satisfy",
                 r->routine, name, (const void *)r->ivars, name,
                 shmi_watchdog_cmp_text(r->cmp), want, now);
        return;
    }
    if (r->vstride)
        snprintf(want, sizeof(want), "values[i]");
    snprintf(buf, len,
             "%s on ivars %p (until %s of its %zu elements%s satisfy "
             "ivars[i] %s %s), which any PE may satisfy",
             r->routine, (const void *)r->ivars,
             which[r->kind < 4 ? r->kind : 0], r->nelems,
             r->status ? " not masked by status" : "", shmi_watchdog_cmp_text(r->cmp),
             want);
}

/*
 * Called now and then from the slow path of a blocking wait: when every
 * other PE has finalized, nothing can change this PE's ivars any more (a
 * thread of this PE could in SHMEM_THREAD_MULTIPLE, which is left alone),
 * and the wait ends the job. Only PEs whose heap this PE maps can be seen
 * to have finalized (peer_record.h), so a job spread over nodes is never judged.
 */
static void shmi_wait_watch(const shmi_wreq_t *r, shmi_backoff_t *b)
{
    if (b->polls <= shmi_backoff_spin_now() ||
        !shmi_watchdog_due(b, shmi_wait_say, r) ||
        shmi_state.thread_level == SHMEM_THREAD_MULTIPLE ||
        !shmi_watch_all_others_finalized() || shmi_wait_satisfied(r))
        return;
    SHMI_FATAL("%s: PE %d waits on ivars %p, but every other PE has already "
               "called shmem_finalize and exited: nothing can satisfy the "
               "wait",
               r->routine, shmi_my_pe_fast(), (const void *)r->ivars);
}

/* ---- the four kinds -------------------------------------------------------- */

/* ALL: elements are waited for in turn (a satisfied one is not re-tested,
 * as the specification's "wait until all" is usually implemented). */
static size_t shmi_wait_all(const shmi_wreq_t *r, int blocking)
{
    shmi_backoff_t b;

    shmi_backoff_init(&b);
    for (size_t i = 0; i < r->nelems; i++) {
        if (shmi_wait_masked(r, i))
            continue;
        while (!shmi_wait_elem(r, i)) {
            if (!blocking)
                return 0;
            shmi_wait_watch(r, &b);
            shmi_backoff_wait(&b);
        }
    }
    return 1;
}

/*
 * ANY is fair: the specification of every *_any routine asks that an entry
 * which keeps satisfying the test is eventually returned by a series of
 * calls, so the scan cannot always start at index 0 (a program that loops
 * until it has seen every index would never see the second one).
 *
 * Each thread keeps, per ivars array, where its next scan starts: one past
 * the index returned last, so calls on one array return its satisfied
 * entries in turn (every one within as many calls as there are). The
 * cursors sit in a small table indexed by the array's address; a cursor
 * shared by all arrays would not do, as a program alternating between two
 * arrays would reset it for the other each time and could starve an entry.
 * An array that finds its slot held by another (a collision, or a program
 * cycling through more arrays than there are slots) starts at a position
 * that looks random: a mixed per-thread counter. Each call then starts at
 * any given index with probability 1/nelems, and returns it when it is
 * satisfied, whatever the order in which the program calls on its arrays.
 * (A plain golden-ratio sequence would be even only in the long run: a
 * program cycling through 72 arrays gives each every 72nd term, which
 * stays within half the array for hundreds of calls.)
 * Per thread: threads never share a cursor, so nothing is locked.
 */
#define SHMI_ANY_CURSORS 16

typedef struct shmi_any_cursor {
    const volatile char *ivars; /* the array this cursor is for */
    size_t next;                /* where its next scan starts */
} shmi_any_cursor_t;

/* One thread-local object, so that a call finds it with one TLS lookup
 * (shmi_wait_any_fair takes its address once and passes it on). */
typedef struct shmi_any_state {
    shmi_any_cursor_t cursor[SHMI_ANY_CURSORS];
    uint64_t count; /* starts without a cursor, mixed into a position */
} shmi_any_state_t;

static _Thread_local shmi_any_state_t shmi_any;

/* A position in [0, nelems) that looks random: the counter, stepped by an
 * odd constant, through a multiply-xorshift mixer; the mixer's top bits
 * (the well mixed ones) are scaled to the range. */
static size_t shmi_wait_any_random_start(shmi_any_state_t *t, size_t nelems)
{
    uint64_t x = t->count += UINT64_C(0x9E3779B97F4A7C15);

    x ^= x >> 33;
    x *= UINT64_C(0xFF51AFD7ED558CCD);
    x ^= x >> 33;
    x *= UINT64_C(0xC4CEB9FE1A85EC53);
    x ^= x >> 33;
    if (nelems <= UINT32_MAX)
        return (size_t)(((x >> 32) * nelems) >> 32);
    return (size_t)(x % nelems);
}

static shmi_any_cursor_t *shmi_wait_any_cursor(shmi_any_state_t *t,
                                               const shmi_wreq_t *r,
                                               size_t *start)
{
    uintptr_t a = (uintptr_t)r->ivars;
    shmi_any_cursor_t *c =
        &t->cursor[((a >> 3) ^ (a >> 11)) % SHMI_ANY_CURSORS];

    if (c->ivars == r->ivars && c->next < r->nelems) {
        *start = c->next;
        return c;
    }
    c->ivars = r->ivars;
    *start = shmi_wait_any_random_start(t, r->nelems);
    c->next = *start;
    return c;
}

/* The first satisfied unmasked index from start to the end, then from 0 to
 * start, polling until there is one when blocking; SIZE_MAX for a test that
 * finds none. */
static inline size_t shmi_wait_any_from(const shmi_wreq_t *r, size_t start,
                                        int blocking)
{
    shmi_backoff_t b;

    shmi_backoff_init(&b);
    for (;;) {
        for (size_t i = start; i < r->nelems; i++)
            if (!shmi_wait_masked(r, i) && shmi_wait_elem(r, i))
                return i;
        for (size_t i = 0; i < start; i++)
            if (!shmi_wait_masked(r, i) && shmi_wait_elem(r, i))
                return i;
        if (!blocking)
            return SIZE_MAX;
        shmi_wait_watch(r, &b);
        shmi_backoff_wait(&b);
    }
}

/* Two candidates or more: the scan starts at the array's cursor, which then
 * moves past the index returned. Kept out of line so that none of this
 * weighs on the one-candidate path, which shmi_wait inlines. */
static __attribute__((noinline)) size_t shmi_wait_any_fair(const shmi_wreq_t *r,
                                                           int blocking)
{
    size_t start;
    shmi_any_cursor_t *c = shmi_wait_any_cursor(&shmi_any, r, &start);
    size_t i;

    /* A satisfied wait returns before it polls, and polling is what drives
     * the fabric's progress: a program that loops on wait_until_any until
     * it has seen every index would otherwise keep returning the entries
     * already set while other PEs' emulated updates never land (the test
     * forms drive it on every call, shmi_wait). */
    if (blocking)
        shmi_progress();
    i = shmi_wait_any_from(r, start, blocking);
    if (i != SIZE_MAX)
        c->next = i + 1 == r->nelems ? 0 : i + 1;
    return i;
}

/* The scan stops at the second candidate: an array of several unmasked
 * entries pays two mask tests before its fair scan, not one per entry. */
static size_t shmi_wait_any(const shmi_wreq_t *r, int blocking)
{
    size_t first = SIZE_MAX;

    for (size_t i = 0; i < r->nelems; i++) {
        if (shmi_wait_masked(r, i))
            continue;
        if (first != SIZE_MAX)
            return shmi_wait_any_fair(r, blocking);
        first = i;
    }
    if (first == SIZE_MAX)
        return SIZE_MAX;
    /* One candidate: its index is the only answer, no cursor needed. */
    return shmi_wait_any_from(r, first, blocking);
}

static size_t shmi_wait_some(const shmi_wreq_t *r, size_t *indices,
                             int blocking)
{
    shmi_backoff_t b;
    size_t unmasked = 0, n;

    for (size_t i = 0; i < r->nelems; i++)
        unmasked += !shmi_wait_masked(r, i);
    if (unmasked == 0)
        return 0;
    /* As for ANY (shmi_wait_any_fair): a loop of satisfied waits must still
     * let other PEs' emulated updates land. */
    if (blocking)
        shmi_progress();
    shmi_backoff_init(&b);
    for (;;) {
        n = 0;
        for (size_t i = 0; i < r->nelems; i++)
            if (!shmi_wait_masked(r, i) && shmi_wait_elem(r, i))
                indices[n++] = i;
        if (n > 0 || !blocking)
            return n;
        shmi_wait_watch(r, &b);
        shmi_backoff_wait(&b);
    }
}

/* The caller's own arrays must be host memory: only ivars may be in the
 * device heap (a cheap range check; other device memory is not looked for
 * on every test call). */
static void shmi_wait_check_host(const char *routine, const void *values,
                                 const int *status, const size_t *indices)
{
    if (shmi_device_heap_contains(values) ||
        shmi_device_heap_contains(status) || shmi_device_heap_contains(indices))
        SHMI_FATAL("%s: values, status and indices must be host memory, "
                   "not the device symmetric heap (only ivars may be there)",
                   routine);
}

/* Checks the arguments; returns 1 when ivars are in the device heap. */
static int shmi_wait_check(const char *routine, shmi_wait_kind_t kind,
                           shmi_dtype_t dt, const volatile void *ivars,
                           size_t nelems, int cmp, const void *values,
                           const int *status, const size_t *indices)
{
    size_t size, off;
    int seg;

    if ((unsigned)dt >= SHMI_DT_COUNT || shmi_dtype_size(dt) > 8 ||
        shmi_dtype_kind(dt) == SHMI_DK_FLOAT ||
        shmi_dtype_kind(dt) == SHMI_DK_COMPLEX)
        SHMI_FATAL("%s: internal error: wait on datatype %d", routine, (int)dt);
    if (!shmi_cmp_valid(cmp))
        SHMI_FATAL("%s: invalid comparison operator %d (use SHMEM_CMP_EQ, "
                   "_NE, _GT, _GE, _LT or _LE)",
                   routine, cmp);
    if (nelems == 0)
        return 0;
    size = shmi_dtype_size(dt);
    if (ivars == NULL || values == NULL ||
        (kind == SHMI_WAIT_SOME && indices == NULL))
        SHMI_FATAL("%s: NULL ivars, values or indices (nelems %zu)", routine,
                   nelems);
    if ((uintptr_t)ivars % size)
        SHMI_FATAL("%s: ivars %p is not aligned to %zu bytes", routine,
                   (const void *)ivars, size);
    seg = shmi_seg_lookup((const void *)ivars, nelems * size, &off);
    /* Outside the library's lifetime no address is symmetric: name the
     * real mistake (checked here, off the path of a good call). */
    if (seg < 0) {
        shmi_require_init(routine);
        SHMI_FATAL("%s: ivars %p (%zu elements of %zu bytes) is not in a "
                   "symmetric segment of PE %d",
                   routine, (const void *)ivars, nelems, size,
                   shmi_my_pe_fast());
    }
    if (__builtin_expect(shmi_device_active, 0))
        shmi_wait_check_host(routine, values, status, indices);
    return seg == SHMI_SEG_DEVICE;
}

size_t shmi_wait(const char *routine, shmi_wait_kind_t kind, shmi_dtype_t dt,
                 volatile void *ivars, size_t nelems, const int *status,
                 int cmp, const void *values, int values_vector,
                 size_t *indices, int blocking)
{
    shmi_wreq_t r;

    if (kind == SHMI_WAIT_ONE) {
        nelems = 1;
        status = NULL;
    }
    r.routine = routine;
    r.kind = kind;
    r.dev = shmi_wait_check(routine, kind, dt, ivars, nelems, cmp, values,
                            status, indices);
    r.dt = dt;
    r.size = shmi_dtype_size(dt);
    r.ivars = (const volatile char *)ivars;
    r.nelems = nelems;
    r.status = status;
    r.cmp = cmp;
    r.values = values;
    r.vstride = values_vector ? r.size : 0;
    /* A test must also let emulated operations targeting us land. */
    if (!blocking)
        shmi_progress();
    switch (kind) {
    case SHMI_WAIT_ONE:
    case SHMI_WAIT_ALL: return shmi_wait_all(&r, blocking);
    case SHMI_WAIT_ANY: return shmi_wait_any(&r, blocking);
    case SHMI_WAIT_SOME: return shmi_wait_some(&r, indices, blocking);
    default: SHMI_FATAL("%s: internal error: wait kind %d", routine, (int)kind);
    }
}

/* shmi_wait_watch for the one word of shmi_wait_u64. */
static void shmi_wait_u64_watch(const char *routine, volatile uint64_t *ivar,
                                int cmp, const uint64_t *value,
                                shmi_backoff_t *b)
{
    shmi_wreq_t r = {0};

    r.routine = routine;
    r.kind = SHMI_WAIT_ONE;
    r.dt = SHMI_DT_UINT64;
    r.size = sizeof(uint64_t);
    r.ivars = (const volatile char *)ivar;
    r.nelems = 1;
    r.cmp = cmp;
    r.values = (const char *)value;
    shmi_wait_watch(&r, b);
}

uint64_t shmi_wait_u64(const char *routine, volatile uint64_t *ivar, int cmp,
                       uint64_t value)
{
    shmi_wval_t want = {0, {.u = value}}, got;
    shmi_backoff_t b;

    if (!shmi_cmp_valid(cmp))
        SHMI_FATAL("%s: invalid comparison operator %d (use SHMEM_CMP_EQ, "
                   "_NE, _GT, _GE, _LT or _LE)",
                   routine, cmp);
    if (__builtin_expect(shmi_device_active, 0) &&
        shmi_device_heap_contains((const void *)ivar))
        return shmi_device_signal_wait(routine, (const uint64_t *)ivar, cmp,
                                       value);
    shmi_backoff_init(&b);
    for (;;) {
        got = shmi_wait_load(SHMI_DT_UINT64, ivar, 1);
        if (shmi_cmp_apply(cmp, got, want))
            return got.v.u;
        if (b.polls > shmi_backoff_spin_now())
            shmi_wait_u64_watch(routine, ivar, cmp, &value, &b);
        shmi_backoff_wait(&b);
    }
}
