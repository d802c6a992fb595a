/*
 * Calls one routine of each group of the API, plus the profiling names and
 * the deprecated forms, so that linking it against libweft shows that every
 * group resolves.  It is linked, not run (running needs a launcher).
 */
#include <shmem.h>
#include <shmemx.h>
#include <pshmem.h>

static long dst[8], src[8], psync[SHMEM_SYNC_SIZE], pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static uint64_t sig;
static long lock;

int main(void)
{
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    shmem_team_t team = SHMEM_TEAM_INVALID;
    int provided, v = 0;

    shmem_init_thread(SHMEM_THREAD_SINGLE, &provided);         /* setup */
    void *p = shmemx_malloc_device(64);  /* memory */
    shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx);                   /* contexts */
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &team);
    shmem_ctx_long_put(ctx, dst, src, 1, 0);                     /* RMA typed */
    shmem_putmem_nbi(dst, src, 8, 0);                            /* RMA mem */
    shmem_iget64(dst, src, 1, 1, 1, 0);                          /* RMA sized */
    shmem_long_ibput(dst, src, 1, 1, 1, 1, 0);                   /* 1.6 */
    shmem_long_put_signal(dst, src, 1, &sig, 1, SHMEM_SIGNAL_SET, 0); /* signal */
    v += (int)shmem_signal_fetch(&sig);
    shmem_signal_add(&sig, 1, 0);
    v += (int)shmem_long_atomic_fetch_add(dst, 1, 0);            /* AMO */
    shmem_ctx_long_atomic_fetch_inc_nbi(ctx, src, dst, 0);
    v += (int)shmem_long_finc(dst, 0);                           /* deprecated AMO */
    shmem_long_wait_until(dst, SHMEM_CMP_GE, 0);                 /* p2p sync */
    v += (int)shmem_long_test_any(dst, 1, NULL, SHMEM_CMP_EQ, 0);
    shmem_long_wait(dst, 0);
    v += shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 1);  /* collectives */
    v += shmem_int_sum_exscan(SHMEM_TEAM_WORLD, (int *)dst, (int *)src, 1);
    v += shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, 8, 0);
    shmem_long_sum_to_all(dst, src, 1, 0, 0, 1, pwrk, psync);  /* active set */
    shmem_broadcast64(dst, src, 1, 0, 0, 0, 1, psync);
    shmem_barrier(0, 0, 1, psync);
    v += shmem_team_sync(team);
    shmem_ctx_pe_quiet(ctx, &provided, 1);                       /* ordering */
    shmem_set_lock(&lock);                                       /* locks */
    shmem_clear_lock(&lock);
    shmem_udcflush();                                            /* legacy */
    pshmem_long_put(dst, src, 1, 0);                             /* profiling */
    shmem_free(shmalloc(8));                                     /* deprecated */
    v += _my_pe() + _num_pes();
    shmem_team_destroy(team);
    shmem_ctx_destroy(ctx);
    shmem_free(p);
    shmem_finalize();
    return v == -1;
}
