/*
 * Nonblocking collectives across threads (docs/nonblocking-collectives.md,
 * point 10), under SHMEM_THREAD_MULTIPLE: the main thread posts, another
 * thread completes (some by wait, some by polling test) while the main
 * thread runs blocking collectives on another team; every result is
 * checked.
 */
#include <pthread.h>
#include <shmemx.h>
#include <stdint.h>

#include "tests/common/check_pes.h"

#define NREQ 16
#define CNT 256

static long src[NREQ][CNT], dst[NREQ][CNT];
static shmemx_req_h req[NREQ];

static void *completer(void *arg)
{
    (void)arg;
    for (int k = NREQ - 1; k >= 0; k--) {
        if (k % 2) {
            int rc;

            while ((rc = shmemx_req_test(req[k])) == 1)
                ;
            CHECK(rc == 0);
        } else {
            CHECK(shmemx_req_wait(req[k]) == 0);
        }
    }
    return NULL;
}

int main(void)
{
    int provided, me, n;
    shmem_team_t dup = SHMEM_TEAM_INVALID;
    pthread_t t;
    static long w[CNT], ws[CNT];

    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    CHECK(provided == SHMEM_THREAD_MULTIPLE);
    me = shmem_my_pe();
    n = shmem_n_pes();
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &dup);
    for (int k = 0; k < NREQ; k++)
        for (int i = 0; i < CNT; i++)
            src[k][i] = me * 10 + k + i, dst[k][i] = -1;
    for (int i = 0; i < CNT; i++)
        ws[i] = 1;
    shmem_barrier_all();
    for (int k = 0; k < NREQ; k++)
        CHECK(shmemx_long_sum_reduce_nb(dup, dst[k], src[k], CNT, &req[k]) ==
              0);
    CHECK(pthread_create(&t, NULL, completer, NULL) == 0);
    /* Blocking collectives on the world while the other thread completes
     * the team's nonblocking ones. */
    for (int r = 0; r < 20; r++) {
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, w, ws, CNT);
        CHECK(w[0] == n && w[CNT - 1] == n);
    }
    pthread_join(t, NULL);
    for (int k = 0; k < NREQ; k++)
        for (int i = 0; i < CNT; i++)
            CHECK(dst[k][i] == 10L * n * (n - 1) / 2 + (long)n * (k + i));
    shmem_team_destroy(dup);
    return check_pes_end("coll_nb_threads");
}
