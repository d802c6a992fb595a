/*
 * Point-to-point synchronization with several PEs: wait_until and test for
 * every sync type, the _all/_any/_some forms and their _vector variants
 * with status masks, and the deprecated shmem_wait. PE 0 waits on words
 * that the other PEs set one after another.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "../gen/typed_lists.h"
#include "dp_test.h"

static int me, npes, right, left;

/* Every type: the left neighbour sets my word; wait_until / test see it. */
#define WAIT_TYPED(T, N)                                                       \
    static void wait_##N(T *w)                                                 \
    {                                                                          \
        *w = 0;                                                                \
        CHECK(shmem_##N##_test(w, SHMEM_CMP_EQ, (T)0) == 1);                   \
        shmem_barrier_all();                                                   \
        shmem_##N##_atomic_set(w, (T)(me + 5), right);                         \
        shmem_##N##_wait_until(w, SHMEM_CMP_GE, (T)5);                         \
        CHECK(*w == (T)(left + 5));                                            \
        CHECK(shmem_##N##_test(w, SHMEM_CMP_GT, (T)(left + 5)) == 0);          \
        CHECK(shmem_##N##_test(w, SHMEM_CMP_LE, (T)(left + 5)) == 1);          \
        shmem_barrier_all();                                                   \
    }
WEFT_TYPES_SYNC(WAIT_TYPED)

/* PEs 1..n-1 set flags[p] on PE 0 in turn; PE 0 collects them with
 * wait_until_any, masking each one found. */
static void wait_any_some_all(long *flags)
{
    int *status = calloc((size_t)npes, sizeof(int));
    size_t *idx = calloc((size_t)npes, sizeof(size_t));
    long *vals = calloc((size_t)npes, sizeof(long));

    memset(flags, 0, (size_t)npes * sizeof(long));
    shmem_barrier_all();
    if (me != 0) {
        usleep(1000 * (useconds_t)me);
        shmem_long_atomic_set(&flags[me], me, 0);
    } else {
        status[0] = 1; /* PE 0 sends nothing */
        for (int found = 1; found < npes; found++) {
            size_t i = shmem_long_wait_until_any(flags, (size_t)npes, status,
                                                 SHMEM_CMP_NE, 0);
            CHECK(i > 0 && i < (size_t)npes && flags[i] == (long)i);
            if (i < (size_t)npes)
                status[i] = 1;
        }
        CHECK(shmem_long_wait_until_any(flags, (size_t)npes, status,
                                        SHMEM_CMP_NE, 0) == SIZE_MAX);
        CHECK(shmem_long_test_any(flags, (size_t)npes, NULL, SHMEM_CMP_EQ, 0) ==
              0);
        memset(status, 0, sizeof(int) * (size_t)npes);
        CHECK(shmem_long_test_some(flags, (size_t)npes, idx, status,
                                   SHMEM_CMP_GT, 0) == (size_t)npes - 1);
        CHECK(shmem_long_test_all(flags, (size_t)npes, status, SHMEM_CMP_GE,
                                  0) == 1);
        /* vector values: flags[p] == p for every p (flags[0] == 0) */
        for (int p = 0; p < npes; p++)
            vals[p] = p;
        shmem_long_wait_until_all_vector(flags, (size_t)npes, NULL,
                                         SHMEM_CMP_EQ, vals);
        CHECK(shmem_long_test_all_vector(flags, (size_t)npes, NULL,
                                         SHMEM_CMP_EQ, vals) == 1);
        vals[npes - 1] = -1;
        CHECK(shmem_long_test_all_vector(flags, (size_t)npes, NULL,
                                         SHMEM_CMP_EQ, vals) == 0);
        CHECK(shmem_long_wait_until_some_vector(flags, (size_t)npes, idx, NULL,
                                                SHMEM_CMP_NE, vals) == 1 &&
              idx[0] == (size_t)npes - 1);
        CHECK(shmem_long_test_any_vector(flags, (size_t)npes, NULL,
                                         SHMEM_CMP_LT, vals) == SIZE_MAX);
        /* every element satisfies GE: any index may be returned */
        {
            size_t i = shmem_long_wait_until_any_vector(
                flags, (size_t)npes, NULL, SHMEM_CMP_GE, vals);
            CHECK(i < (size_t)npes && flags[i] >= vals[i]);
        }
    }
    shmem_barrier_all();
    free(status);
    free(idx);
    free(vals);
}

/* The blocking _all and _some forms against late senders. */
static void wait_late(long *flags)
{
    size_t *idx = calloc((size_t)npes, sizeof(size_t));
    size_t got = 0;
    int *status = calloc((size_t)npes, sizeof(int));

    memset(flags, 0, (size_t)npes * sizeof(long));
    shmem_barrier_all();
    if (me != 0) {
        usleep(2000 * (useconds_t)(npes - me));
        shmem_long_p(&flags[me], 1, 0);
        shmem_long_p(&flags[0], 0, me); /* no-op store to self */
    } else {
        status[0] = 1;
        while (got < (size_t)npes - 1) {
            size_t n = shmem_long_wait_until_some(flags, (size_t)npes, idx,
                                                  status, SHMEM_CMP_EQ, 1);
            CHECK(n >= 1);
            for (size_t k = 0; k < n; k++)
                status[idx[k]] = 1;
            got += n;
        }
        CHECK(got == (size_t)npes - 1);
        status[0] = 1;
        memset(status + 1, 0, sizeof(int) * (size_t)(npes - 1));
        shmem_long_wait_until_all(flags, (size_t)npes, status, SHMEM_CMP_EQ, 1);
    }
    shmem_barrier_all();
    /* deprecated shmem_wait: returns once the word differs */
    if (me == 0)
        flags[0] = 0;
    shmem_barrier_all();
    if (me == npes - 1)
        shmem_long_p(&flags[0], 9, 0);
    if (me == 0) {
        shmem_wait(&flags[0], 0);
        CHECK(flags[0] == 9);
    }
    shmem_barrier_all();
    free(idx);
    free(status);
}

int main(void)
{
    void *w;
    long *flags;

    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    w = shmem_malloc(16);
    flags = shmem_malloc(sizeof(long) * (size_t)npes);
#define CALL_WAIT(T, N) wait_##N((T *)w);
    WEFT_TYPES_SYNC(CALL_WAIT)
    wait_any_some_all(flags);
    wait_late(flags);
    shmem_free(w);
    shmem_free(flags);
    return check_pes_end("dp_wait");
}
