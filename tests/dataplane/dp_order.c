/*
 * Ordering: put; fence; put flag (and put; fence; atomic) are seen in order
 * by the target, put; quiet makes data visible, shmem_pe_quiet and the ctx
 * forms; across the heap and static data (which may take different paths).
 */
#include <stdint.h>
#include <string.h>

#include "dp_test.h"

#define N     512
#define ITERS 300

static int me, npes, right, left;
static long sdata[N]; /* static: data segment path */
static long sflag;

/* Each iteration: data to the right neighbour, fence, then a flag; the
 * neighbour waits for the flag and must see the whole data. */
static void order_fence(long *data, long *flag, int atomic_flag)
{
    long src[N];

    *flag = 0;
    shmem_barrier_all();
    for (long it = 1; it <= ITERS; it++) {
        for (int i = 0; i < N; i++)
            src[i] = it * 1000 + i;
        shmem_long_put(data, src, N, right);
        shmem_fence();
        if (atomic_flag)
            shmem_long_atomic_inc(flag, right);
        else
            shmem_long_p(flag, it, right);
        shmem_long_wait_until(flag, SHMEM_CMP_GE, it);
        if (data[0] != it * 1000 || data[N - 1] != it * 1000 + N - 1) {
            CHECK(!"data seen before the flag");
            break;
        }
        /* the sender may overwrite data only after we checked it */
        shmem_barrier_all();
    }
    shmem_barrier_all();
}

/* Data to static memory, flag on the heap (and vice versa): two segments,
 * possibly two paths, still ordered by fence. */
static void order_mixed_segments(long *hdata, long *hflag)
{
    *hflag = 0;
    sflag = 0;
    shmem_barrier_all();
    for (long it = 1; it <= ITERS / 3; it++) {
        shmem_long_p(&sdata[7], it, right);
        shmem_fence();
        shmem_long_p(hflag, it, right);
        shmem_long_p(&hdata[9], it, right);
        shmem_fence();
        shmem_long_atomic_set(&sflag, it, right);
        shmem_long_wait_until(hflag, SHMEM_CMP_EQ, it);
        CHECK(sdata[7] == it);
        shmem_long_wait_until(&sflag, SHMEM_CMP_EQ, it);
        CHECK(hdata[9] == it);
        shmem_barrier_all();
    }
}

/* quiet / pe_quiet: after them, a get from anywhere sees the data. */
static void order_quiet(long *data)
{
    long v = 0;
    shmem_ctx_t ctx;

    for (int i = 0; i < 20; i++) {
        shmem_long_p(&data[i], 100 + i, right);
        shmem_quiet();
        CHECK(shmem_long_g(&data[i], right) == 100 + i);
        long s = 200 + i;
        shmem_long_put_nbi(&data[i + 20], &s, 1, right);
        shmem_pe_quiet(&right, 1);
        shmem_long_get(&v, &data[i + 20], 1, right);
        CHECK(v == 200 + i);
    }
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0) {
        long x = 5555;
        shmem_ctx_long_put_nbi(ctx, &sdata[0], &x, 1, right);
        shmem_ctx_fence(ctx);
        shmem_ctx_long_p(ctx, &sdata[1], 6666, right);
        shmem_ctx_pe_quiet(ctx, &right, 1);
        CHECK(shmem_ctx_long_g(ctx, &sdata[0], right) == 5555);
        shmem_ctx_quiet(ctx);
        shmem_ctx_destroy(ctx);
    } else {
        CHECK(!"shmem_ctx_create failed");
    }
    shmem_barrier_all();
    CHECK(sdata[1] == 6666);
    shmem_barrier_all();
}

int main(void)
{
    long *data, *flag;

    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    data = shmem_calloc(N, sizeof(long));
    flag = shmem_calloc(1, sizeof(long));
    order_fence(data, flag, 0);
    order_fence(data, flag, 1);
    order_fence(sdata, &sflag, 0);
    order_mixed_segments(data, flag);
    order_quiet(data);
    (void)left;
    shmem_free(data);
    shmem_free(flag);
    return check_pes_end("dp_order");
}
