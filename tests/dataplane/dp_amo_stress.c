/*
 * Atomic coherence stress (docs/design.md, decision 6): every PE increments the
 * same words 10,000 times each (a heap word on PE 0, a static word on the
 * last PE, and its neighbour's heap word), with a mix of routines and two
 * contexts. Run with SHMEM_LOCAL_OFF_PES so that some PEs reach the words
 * through libfabric while others use CPU atomics: no update may be lost.
 */
#include <stdint.h>
#include <string.h>

#include "dp_test.h"

#define NINC 10000

static long scount;

int main(void)
{
    int me, npes, right, last;
    long *hcount, *ncount;
    shmem_ctx_t ctx;
    double t0;

    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    last = npes - 1;
    hcount = shmem_calloc(1, sizeof(long));
    ncount = shmem_calloc(1, sizeof(long));
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
        CHECK(!"shmem_ctx_create failed");
        ctx = SHMEM_CTX_DEFAULT;
    }
    shmem_barrier_all();
    t0 = dp_now_us();
    for (int i = 0; i < NINC; i++) {
        switch (i & 3) {
        case 0:
            shmem_long_atomic_inc(hcount, 0);
            shmem_ctx_long_atomic_add(ctx, &scount, 1, last);
            break;
        case 1:
            CHECK(shmem_ctx_long_atomic_fetch_inc(ctx, hcount, 0) >= 0);
            shmem_long_atomic_inc(&scount, last);
            break;
        case 2:
            shmem_ctx_long_atomic_add(ctx, hcount, 1, 0);
            CHECK(shmem_long_atomic_fetch_add(&scount, 1, last) >= 0);
            break;
        default: {
            long old = shmem_long_atomic_fetch(hcount, 0), seen;
            while ((seen = shmem_long_atomic_compare_swap(hcount, old, old + 1,
                                                          0)) != old)
                old = seen;
            shmem_ctx_long_atomic_fetch_inc(ctx, &scount, last);
            break;
        }
        }
        shmem_long_atomic_add(ncount, 2, right);
    }
    shmem_ctx_quiet(ctx);
    if (ctx != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(ctx);
    shmem_quiet();
    shmem_barrier_all();
    if (me == 0) {
        CHECK(*hcount == (long)npes * NINC);
        printf("heap counter on PE 0: %ld (expected %ld), %.1f us per "
               "iteration on PE 0\n",
               *hcount, (long)npes * NINC, (dp_now_us() - t0) / NINC);
    }
    if (me == last) {
        CHECK(scount == (long)npes * NINC);
        printf("static counter on PE %d: %ld (expected %ld)\n", last, scount,
               (long)npes * NINC);
    }
    CHECK(*ncount == 2L * NINC);
    shmem_free(hcount);
    shmem_free(ncount);
    return check_pes_end("dp_amo_stress");
}
