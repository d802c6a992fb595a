/*
 * Contexts with SHMEM_THREAD_MULTIPLE: several threads per PE, each with a
 * private context (puts, atomics, quiet), and all of them sharing the
 * default context and one shared context at the same time; context
 * creation with bad options fails cleanly; SHMEM_CTX_INVALID destroys as a
 * no-op.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "dp_test.h"

#define NTHREADS 4
#define NOPS     2000

static int me, npes, right;
static long *slots; /* NTHREADS * NOPS per PE, written by the left PE */
static long *counter;
static shmem_ctx_t shared_ctx;

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    shmem_ctx_t ctx;

    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
        CHECK(!"private ctx");
        return NULL;
    }
    for (int i = 0; i < NOPS; i++) {
        long v = (long)t * NOPS + i + 1;
        shmem_ctx_long_put_nbi(ctx, &slots[t * NOPS + i], &v, 1, right);
        shmem_ctx_long_atomic_inc(ctx, counter, right);
        shmem_long_atomic_inc(counter, right);                    /* default */
        shmem_ctx_long_atomic_add(shared_ctx, counter, 2, right); /* shared */
        if (i % 100 == 0)
            shmem_ctx_quiet(ctx);
    }
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
    return NULL;
}

int main(void)
{
    pthread_t th[NTHREADS];
    int provided = -1;
    shmem_ctx_t bad = SHMEM_CTX_INVALID;

    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0 ||
        provided != SHMEM_THREAD_MULTIPLE) {
        printf("SHMEM_THREAD_MULTIPLE not provided (%d)\n", provided);
        return 77;
    }
    me = shmem_my_pe();
    check_set_pe(me, NULL);
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    slots = shmem_calloc(NTHREADS * NOPS, sizeof(long));
    counter = shmem_calloc(1, sizeof(long));
    CHECK(shmem_ctx_create(0x4000, &bad) != 0 && bad == SHMEM_CTX_INVALID);
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    CHECK(shmem_ctx_create(0, &shared_ctx) == 0);
    shmem_barrier_all();
    for (int t = 0; t < NTHREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    shmem_ctx_quiet(shared_ctx);
    shmem_ctx_destroy(shared_ctx);
    shmem_quiet();
    shmem_barrier_all();
    CHECK(*counter == 4L * NTHREADS * NOPS);
    for (int i = 0; i < NTHREADS * NOPS; i++)
        if (slots[i] != i + 1) {
            CHECK(slots[i] == i + 1);
            break;
        }
    shmem_free(slots);
    shmem_free(counter);
    return check_pes_end("dp_threads");
}
