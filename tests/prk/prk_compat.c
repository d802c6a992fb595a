/*
 * What the Parallel Research Kernels' own SHMEM sources ask of a library,
 * and nothing else: the routines and constants they use, called the way
 * they call them (active-set collectives with pSync/pWrk arrays carved from
 * the symmetric heap and only partly initialised, counters bumped with
 * shmem_int_inc after a fence, flags written with shmem_int_p). Built with
 * plain `oshcc`, as their makefiles do, and run with oshrun.
 *
 * Exit status 0 when every check passes on every PE, 1 otherwise.
 */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

static int failures;

static void check(int ok, const char *what, int me)
{
    if (!ok) {
        printf("PE %d: FAIL %s\n", me, what);
        failures++;
    }
}

/* Broadcast of the parameters from PE 0, the way the kernels start. */
static void check_broadcast(int me, int npes, long *psync)
{
    int *params = shmem_malloc(4 * sizeof(int));

    params[0] = params[1] = params[2] = -1;
    if (me == 0) {
        params[0] = 10;
        params[1] = 2000;
        params[2] = 32;
    }
    shmem_barrier_all();
    shmem_broadcast32(params, params, 3, 0, 0, 0, npes, psync);
    shmem_barrier_all();
    check(params[0] == 10 && params[1] == 2000 && params[2] == 32,
          "shmem_broadcast32", me);
    shmem_free(params);
}

/* The four active-set reductions of the kernels, sharing one pSync with a
 * barrier in between, as they do. */
static void check_reductions(int me, int npes, long *psync)
{
    int *iv = shmem_malloc(2 * sizeof(int));
    long *lv = shmem_malloc(2 * sizeof(long));
    double *dv = shmem_malloc(2 * sizeof(double));
    int *iwrk = shmem_malloc(SHMEM_REDUCE_MIN_WRKDATA_SIZE * sizeof(int));
    long *lwrk = shmem_malloc(SHMEM_REDUCE_MIN_WRKDATA_SIZE * sizeof(long));
    double *dwrk = shmem_malloc(SHMEM_REDUCE_MIN_WRKDATA_SIZE * sizeof(double));
    double expect_sum = 0.0;

    iv[0] = me;
    lv[0] = 1000L * me;
    dv[0] = me + 0.5;
    shmem_barrier_all();
    shmem_int_max_to_all(&iv[1], &iv[0], 1, 0, 0, npes, iwrk, psync);
    shmem_barrier_all();
    shmem_long_max_to_all(&lv[1], &lv[0], 1, 0, 0, npes, lwrk, psync);
    shmem_barrier_all();
    shmem_double_max_to_all(&dv[1], &dv[0], 1, 0, 0, npes, dwrk, psync);
    shmem_barrier_all();
    check(iv[1] == npes - 1, "shmem_int_max_to_all", me);
    check(lv[1] == 1000L * (npes - 1), "shmem_long_max_to_all", me);
    check(dv[1] == npes - 0.5, "shmem_double_max_to_all", me);
    shmem_double_sum_to_all(&dv[1], &dv[0], 1, 0, 0, npes, dwrk, psync);
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        expect_sum += pe + 0.5;
    check(dv[1] == expect_sum, "shmem_double_sum_to_all", me);
    shmem_free(dwrk);
    shmem_free(lwrk);
    shmem_free(iwrk);
    shmem_free(dv);
    shmem_free(lv);
    shmem_free(iv);
}

/* shmem_align and shmem_realloc keep alignment and contents. */
static void check_heap(int me)
{
    double *a = shmem_align(64, 100 * sizeof(double));
    int ok = a != NULL && (uintptr_t)a % 64 == 0;

    check(ok, "shmem_align(64, ...)", me);
    if (!ok)
        return;
    for (int i = 0; i < 100; i++)
        a[i] = me * 1000 + i;
    a = shmem_realloc(a, 10000 * sizeof(double));
    ok = a != NULL;
    for (int i = 0; ok && i < 100; i++)
        ok = a[i] == me * 1000 + i;
    check(ok, "shmem_realloc keeps the contents", me);
    shmem_free(a);
}

/* The transpose's and synch_p2p's one-sided patterns towards the right
 * neighbour: a put, a fence, then a counter bump or a flag write. */
static void check_put_patterns(int me, int npes)
{
    int right = (me + 1) % npes, left = (me - 1 + npes) % npes;
    double *block = shmem_malloc(64 * sizeof(double));
    double *slot = shmem_malloc(sizeof(double));
    char *bytes = shmem_malloc(16);
    int *counter = shmem_malloc(sizeof(int));
    int *flag = shmem_malloc(sizeof(int));
    double src[64];
    int ok = 1;

    *counter = 0;
    *flag = 0;
    shmem_barrier_all();
    for (int i = 0; i < 64; i++)
        src[i] = me + i / 100.0;
    shmem_double_put(block, src, 64, right);
    shmem_putmem(bytes, "prk-compat-bytes", 16, right);
    shmem_fence();
    shmem_int_inc(counter, right);
    shmem_int_wait_until(counter, SHMEM_CMP_EQ, 1);
    for (int i = 0; i < 64; i++)
        ok = ok && block[i] == left + i / 100.0;
    check(ok, "shmem_double_put + shmem_fence + shmem_int_inc", me);
    check(bytes[0] == 'p' && bytes[15] == 's', "shmem_putmem", me);

    shmem_double_p(slot, -1.0 * me, right);
    shmem_fence();
    shmem_int_p(flag, 1, right);
    shmem_int_wait_until(flag, SHMEM_CMP_EQ, 1);
    check(*slot == -1.0 * left, "shmem_double_p + shmem_fence + shmem_int_p",
          me);
    shmem_barrier_all();
    shmem_free(flag);
    shmem_free(counter);
    shmem_free(bytes);
    shmem_free(slot);
    shmem_free(block);
}

int main(void)
{
    long *psync_bcast, *psync_reduce;
    int me, npes, bad;
    int *all_bad, *iwrk;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    psync_bcast = shmem_malloc(SHMEM_BCAST_SYNC_SIZE * sizeof(long));
    psync_reduce = shmem_malloc(SHMEM_REDUCE_SYNC_SIZE * sizeof(long));
    all_bad = shmem_malloc(2 * sizeof(int));
    iwrk = shmem_malloc(SHMEM_REDUCE_MIN_WRKDATA_SIZE * sizeof(int));
    /* Like the kernels: only the first half of the reduction pSync is set;
     * the rest relies on new symmetric memory reading as zero. */
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
        psync_bcast[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE / 2; i++)
        psync_reduce[i] = SHMEM_SYNC_VALUE;
    check(SHMEM_SYNC_VALUE == 0, "SHMEM_SYNC_VALUE is 0", me);
    shmem_barrier_all();

    check_broadcast(me, npes, psync_bcast);
    check_reductions(me, npes, psync_reduce);
    check_heap(me);
    check_put_patterns(me, npes);

    all_bad[0] = failures;
    shmem_barrier_all();
    shmem_int_max_to_all(&all_bad[1], &all_bad[0], 1, 0, 0, npes, iwrk,
                         psync_reduce);
    bad = all_bad[1];
    if (me == 0)
        printf("%s: PRK-style SHMEM usage on %d PEs\n", bad ? "FAIL" : "PASS",
               npes);
    shmem_free(iwrk);
    shmem_free(all_bad);
    shmem_free(psync_reduce);
    shmem_free(psync_bcast);
    shmem_finalize();
    return bad ? 1 : 0;
}
