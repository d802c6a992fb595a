/*
 * Start-up and shut-down called by several threads at once: THREADS threads
 * of every PE call shmem_init_thread(SHMEM_THREAD_MULTIPLE) together; each
 * must return 0 with the same provided level (the library is initialized
 * once, src/core/init.c), and the job must then work (a put to the next PE,
 * a barrier). Then the same threads call shmem_finalize together: the
 * library is finalized once, and every call returns.
 *
 *   init_race     (run by tests/launch/init_race.sh, many times in a row)
 */
#include <pthread.h>
#include <stdio.h>

#include <shmem.h>

#include "tests/common/check.h"

#define THREADS 8

static pthread_barrier_t go;  /* lines the threads up before the call */
static int provided[THREADS]; /* what each thread was given */
static int returned[THREADS]; /* shmem_init_thread's return value */
static int from_left;         /* symmetric: the left neighbour's PE */
static int failed_total;      /* symmetric: failed checks, on PE 0 */

static void *init_thread(void *arg)
{
    int t = (int)(long)arg;

    pthread_barrier_wait(&go);
    returned[t] = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided[t]);
    return NULL;
}

static void *finalize_thread(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&go);
    shmem_finalize();
    return NULL;
}

/* Runs fn on THREADS threads released at the same moment; 0 on success. */
static int run_together(void *(*fn)(void *))
{
    pthread_t th[THREADS];

    if (pthread_barrier_init(&go, NULL, THREADS))
        return -1;
    for (long t = 0; t < THREADS; t++)
        if (pthread_create(&th[t], NULL, fn, (void *)t))
            return -1;
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&go);
    return 0;
}

int main(void)
{
    int me, n, level = -1, failed, status;

    for (int t = 0; t < THREADS; t++)
        provided[t] = returned[t] = -1;
    if (run_together(init_thread)) {
        fprintf(stderr, "FAIL: cannot start %d threads\n", THREADS);
        return 1;
    }
    me = shmem_my_pe();
    n = shmem_n_pes();
    check_set_pe(me, NULL);
    shmem_query_thread(&level);
    for (int t = 0; t < THREADS; t++) {
        CHECK_MSG(returned[t] == 0, "thread %d: shmem_init_thread returned %d",
                  t, returned[t]);
        CHECK_MSG(provided[t] == level,
                  "thread %d was given thread level %d, shmem_query_thread "
                  "says %d",
                  t, provided[t], level);
    }
    CHECK_MSG(level == SHMEM_THREAD_MULTIPLE, "thread level %d", level);

    shmem_int_p(&from_left, me, (me + 1) % n);
    shmem_barrier_all();
    CHECK_MSG(from_left == (me + n - 1) % n, "got %d from the left, not %d",
              from_left, (me + n - 1) % n);

    shmem_int_atomic_add(&failed_total, check_failures(), 0);
    shmem_barrier_all();
    failed = shmem_int_atomic_fetch(&failed_total, 0);
    if (run_together(finalize_thread)) {
        fprintf(stderr, "FAIL: cannot start %d threads\n", THREADS);
        return 1;
    }
    status = failed ? 1 : 0;
    if (me == 0)
        status = check_summary("init_race", failed, n);
    return status;
}
