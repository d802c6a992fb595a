/*
 * The *_any waits and tests are fair. The specification of test_any,
 * wait_until_any, test_any_vector and wait_until_any_vector: if an entry i
 * within the test set satisfies the test condition, a series of calls must
 * eventually return i. Checked here, for int (typed names) and uint64_t
 * (generic names):
 *   - 4 satisfied flags: every index returned within 4 calls (the engine
 *     returns a repeatedly called array's entries in turn, src/core/wait.c);
 *   - 7 flags, 2 excluded by status (though satisfied), 1 unsatisfied:
 *     the other 4 within 4 calls, the excluded and unsatisfied never;
 *   - 1 satisfied flag of 7: returned by every call;
 *   - two arrays called alternately, and 40 arrays called in turn: each
 *     array's satisfied indices all returned within 100 of its calls; 72
 *     arrays of 8 flags: all 8 within 200;
 * and, with several PEs, PE 0 loops on wait_until_any (then test_any) over
 * flags that every other PE sets and leaves set, until it has seen each PE:
 * a scan that always starts at index 0 would never get past the first.
 */
#include <stdint.h>
#include <string.h>

#include "dp_test.h"

#define MAXN    8
#define CALLS   100
#define NARRAYS 72

/* One routine under test: a call with the scalar comparison value 1, or,
 * for the _vector forms, with cmp_values[i] = i + 10. */
typedef struct any_form {
    const char *name;
    size_t elem; /* bytes per element */
    int vector;  /* the _vector form: flag i is satisfied at i + 10 */
    size_t (*call)(void *ivars, size_t nelems, const int *status);
} any_form_t;

static uint64_t sat_value(const any_form_t *f, size_t i)
{
    return f->vector ? i + 10 : 1;
}

static size_t int_test_any(void *iv, size_t n, const int *st)
{
    return shmem_int_test_any(iv, n, st, SHMEM_CMP_EQ, 1);
}

static size_t int_wait_any(void *iv, size_t n, const int *st)
{
    return shmem_int_wait_until_any(iv, n, st, SHMEM_CMP_EQ, 1);
}

static size_t int_test_any_v(void *iv, size_t n, const int *st)
{
    int v[MAXN];

    for (size_t i = 0; i < MAXN; i++)
        v[i] = (int)i + 10;
    return shmem_int_test_any_vector(iv, n, st, SHMEM_CMP_EQ, v);
}

static size_t int_wait_any_v(void *iv, size_t n, const int *st)
{
    int v[MAXN];

    for (size_t i = 0; i < MAXN; i++)
        v[i] = (int)i + 10;
    return shmem_int_wait_until_any_vector(iv, n, st, SHMEM_CMP_EQ, v);
}

static size_t u64_test_any(void *iv, size_t n, const int *st)
{
    return shmem_test_any((uint64_t *)iv, n, st, SHMEM_CMP_EQ, (uint64_t)1);
}

static size_t u64_wait_any(void *iv, size_t n, const int *st)
{
    return shmem_wait_until_any((uint64_t *)iv, n, st, SHMEM_CMP_EQ,
                                (uint64_t)1);
}

static size_t u64_test_any_v(void *iv, size_t n, const int *st)
{
    uint64_t v[MAXN];

    for (size_t i = 0; i < MAXN; i++)
        v[i] = i + 10;
    return shmem_test_any_vector((uint64_t *)iv, n, st, SHMEM_CMP_EQ, v);
}

static size_t u64_wait_any_v(void *iv, size_t n, const int *st)
{
    uint64_t v[MAXN];

    for (size_t i = 0; i < MAXN; i++)
        v[i] = i + 10;
    return shmem_wait_until_any_vector((uint64_t *)iv, n, st, SHMEM_CMP_EQ, v);
}

static const any_form_t forms[] = {
    {"shmem_int_test_any", sizeof(int), 0, int_test_any},
    {"shmem_int_wait_until_any", sizeof(int), 0, int_wait_any},
    {"shmem_int_test_any_vector", sizeof(int), 1, int_test_any_v},
    {"shmem_int_wait_until_any_vector", sizeof(int), 1, int_wait_any_v},
    {"shmem_test_any (uint64_t)", sizeof(uint64_t), 0, u64_test_any},
    {"shmem_wait_until_any (uint64_t)", sizeof(uint64_t), 0, u64_wait_any},
    {"shmem_test_any_vector (uint64_t)", sizeof(uint64_t), 1, u64_test_any_v},
    {"shmem_wait_until_any_vector (uint64_t)", sizeof(uint64_t), 1,
     u64_wait_any_v},
};

/* Sets flag i of ivars to its satisfying value (sat) or to 0. */
static void set_flag(const any_form_t *f, void *ivars, size_t i, int sat)
{
    uint64_t v = sat ? sat_value(f, i) : 0;

    if (f->elem == sizeof(int))
        ((int *)ivars)[i] = (int)v;
    else
        ((uint64_t *)ivars)[i] = v;
}

/* What a series of calls on one array returned so far. */
typedef struct seen {
    unsigned mask; /* bit i: index i returned */
    int calls_all; /* calls it took to return every satisfied index */
    int calls;
    int bad; /* calls that returned an index outside want */
} seen_t;

static void seen_add(seen_t *s, size_t i, unsigned want)
{
    s->calls++;
    if (i >= MAXN || !(want & (1u << i))) {
        s->bad++;
        return;
    }
    s->mask |= 1u << i;
    if (s->mask == want && s->calls_all == 0)
        s->calls_all = s->calls;
}

/* Flag i of ivars (i < n) satisfied where bit i of sat is set, else 0. */
static void set_flags(const any_form_t *f, void *ivars, size_t n, unsigned sat)
{
    for (size_t i = 0; i < n; i++)
        set_flag(f, ivars, i, (sat >> i) & 1);
}

static void check_one_array(const any_form_t *f, void *ivars, size_t n,
                            const int *status, unsigned sat, unsigned want,
                            int within)
{
    seen_t s = {0};

    set_flags(f, ivars, n, sat);
    for (int c = 0; c < CALLS; c++)
        seen_add(&s, f->call(ivars, n, status), want);
    if (s.bad || s.mask != want || s.calls_all > within)
        fprintf(stderr,
                "PE %d: %s: nelems %zu: returned indices 0x%x of 0x%x "
                "(all after %d calls, at most %d wanted), %d calls returned "
                "an index outside the satisfied test set\n",
                shmem_my_pe(), f->name, n, s.mask, want, s.calls_all, within,
                s.bad);
    CHECK(s.bad == 0);
    CHECK(s.mask == want);
    CHECK(s.calls_all > 0 && s.calls_all <= within);
}

/* narr arrays of n flags, all satisfied, called in turn ncalls times: each
 * must return every index. */
static void check_interleaved(const any_form_t *f, char *arrays, size_t narr,
                              size_t n, int ncalls)
{
    static seen_t s[NARRAYS];
    unsigned want = (1u << n) - 1;
    size_t nbad = 0, first = 0;

    memset(s, 0, sizeof(s));
    for (size_t a = 0; a < narr; a++)
        set_flags(f, arrays + a * MAXN * f->elem, n, want);
    for (int c = 0; c < ncalls; c++)
        for (size_t a = 0; a < narr; a++)
            seen_add(&s[a], f->call(arrays + a * MAXN * f->elem, n, NULL),
                     want);
    for (size_t a = narr; a-- > 0;) {
        if (s[a].bad == 0 && s[a].mask == want)
            continue;
        nbad++;
        first = a;
    }
    if (nbad)
        fprintf(stderr,
                "PE %d: %s: %zu arrays of %zu called in turn: %zu of them did "
                "not return every index in %d calls (array %zu: indices 0x%x "
                "of 0x%x)\n",
                shmem_my_pe(), f->name, narr, n, nbad, ncalls, first,
                s[first].mask, want);
    CHECK(nbad == 0);
}

static void local_checks(const any_form_t *f, char *arrays)
{
    static const int status7[7] = {0, 1, 0, 0, 1, 0, 0};

    /* 4 flags, all satisfied. */
    check_one_array(f, arrays, 4, NULL, 0xf, 0xf, 4);
    /* 7 flags: 1 and 4 excluded (yet satisfied), 6 unsatisfied. */
    check_one_array(f, arrays, 7, status7, 0x3f, 0x2d, 4);
    /* 1 satisfied flag of 7: every call returns it. */
    check_one_array(f, arrays, 7, NULL, 1u << 5, 1u << 5, 1);
    /* Two arrays in turn (a cursor shared by all arrays would let each
     * reset the other's), 40 of 4 flags and 72 of 8 (more than the
     * engine's cursors: every call starts without one; a start stepped
     * along a golden-ratio sequence would leave some of the 72 short of
     * their 8 indices after 200 calls). */
    check_interleaved(f, arrays, 2, 4, CALLS);
    check_interleaved(f, arrays, 40, 4, CALLS);
    check_interleaved(f, arrays, NARRAYS, 8, 2 * CALLS);
}

/* PE 0 loops until it has seen every other PE's flag, all left set. */
static void check_all_pes(int *flags, int blocking)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    double t0;
    long calls = 0;
    int seen = 0, nseen = 1; /* PE 0 sets no flag */

    memset(flags, 0, (size_t)npes * sizeof(int));
    shmem_barrier_all();
    if (me != 0) {
        shmem_int_atomic_set(&flags[me], 1, 0);
    } else {
        t0 = dp_now_us();
        while (nseen < npes && dp_now_us() - t0 < 60e6) {
            size_t i = blocking
                           ? shmem_int_wait_until_any(flags, (size_t)npes, NULL,
                                                      SHMEM_CMP_EQ, 1)
                           : shmem_int_test_any(flags, (size_t)npes, NULL,
                                                SHMEM_CMP_EQ, 1);
            calls++;
            if (i == SIZE_MAX)
                continue;
            CHECK(i > 0 && i < (size_t)npes);
            if (i > 0 && i < (size_t)npes && !(seen & (1 << i))) {
                seen |= 1 << i;
                nseen++;
            }
        }
        if (nseen < npes)
            fprintf(stderr,
                    "PE 0: %s over %d PEs' flags: saw only PEs 0x%x after %ld "
                    "calls in 60 s\n",
                    blocking ? "shmem_int_wait_until_any"
                             : "shmem_int_test_any",
                    npes, seen, calls);
        CHECK(nseen == npes);
    }
    shmem_barrier_all();
}

int main(void)
{
    char *arrays;
    int *flags;

    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    arrays = shmem_malloc(NARRAYS * MAXN * sizeof(uint64_t));
    flags = shmem_malloc((size_t)shmem_n_pes() * sizeof(int));
    CHECK(arrays != NULL && flags != NULL && shmem_n_pes() <= 31);
    if (arrays == NULL || flags == NULL || shmem_n_pes() > 31)
        return check_pes_end("dp_wait_fair");
    for (size_t k = 0; k < sizeof(forms) / sizeof(forms[0]); k++)
        local_checks(&forms[k], arrays);
    check_all_pes(flags, 1);
    check_all_pes(flags, 0);
    shmem_free(flags);
    shmem_free(arrays);
    return check_pes_end("dp_wait_fair");
}
