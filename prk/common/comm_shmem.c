/*
 * prk_comm.h on OpenSHMEM 1.5+ team reductions (the Weft versions of the
 * kernels). The reductions need symmetric source and destination words:
 * they are carved once from the symmetric heap at start-up. A library of
 * OpenSHMEM 1.4 (shmem_compat.h) has no teams: there the same reductions
 * are the active-set ones over every PE, with their pWrk and pSync.
 */
#include <shmem.h>

#include "prk_comm.h"
#include "shmem_compat.h"

/* Symmetric scratch for the reductions: [0] source, [1] result. */
static int *prk_ired;
static double *prk_dred;

#ifdef PRK_SHMEM_14
/* Work and sync arrays of the active-set reductions (one element is
 * reduced: the smallest work array is enough). Calls alternate between
 * two pSync arrays, as 1.4 asks of reductions back to back. */
static int prk_iwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static double prk_dwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long prk_psync[2][SHMEM_REDUCE_SYNC_SIZE];
static int prk_psync_next;

static long *prk_psync_take(void)
{
    return prk_psync[prk_psync_next++ & 1];
}
#endif

/* prk_ired[1] = max of every PE's prk_ired[0]; the same for the doubles. */
static void prk_reduce_max_int(void)
{
#ifdef PRK_SHMEM_14
    shmem_int_max_to_all(&prk_ired[1], &prk_ired[0], 1, 0, 0, shmem_n_pes(),
                         prk_iwrk, prk_psync_take());
#else
    shmem_int_max_reduce(SHMEM_TEAM_WORLD, &prk_ired[1], &prk_ired[0], 1);
#endif
}

static void prk_reduce_max_double(void)
{
#ifdef PRK_SHMEM_14
    shmem_double_max_to_all(&prk_dred[1], &prk_dred[0], 1, 0, 0,
                            shmem_n_pes(), prk_dwrk, prk_psync_take());
#else
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &prk_dred[1], &prk_dred[0], 1);
#endif
}

static void prk_reduce_sum_double(void)
{
#ifdef PRK_SHMEM_14
    shmem_double_sum_to_all(&prk_dred[1], &prk_dred[0], 1, 0, 0,
                            shmem_n_pes(), prk_dwrk, prk_psync_take());
#else
    shmem_double_sum_reduce(SHMEM_TEAM_WORLD, &prk_dred[1], &prk_dred[0], 1);
#endif
}

int prk_comm_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    shmem_init();
#ifdef PRK_SHMEM_14
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        prk_psync[0][i] = prk_psync[1][i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
#endif
    prk_ired = shmem_malloc(2 * sizeof(int));
    prk_dred = shmem_malloc(2 * sizeof(double));
    return prk_ired == NULL || prk_dred == NULL;
}

void prk_comm_finalize(void)
{
    shmem_free(prk_dred);
    shmem_free(prk_ired);
    shmem_finalize();
}

int prk_comm_rank(void)
{
    return shmem_my_pe();
}

int prk_comm_size(void)
{
    return shmem_n_pes();
}

void prk_comm_barrier(void)
{
    shmem_barrier_all();
}

int prk_comm_max_int(int value)
{
    prk_ired[0] = value;
    prk_reduce_max_int();
    return prk_ired[1];
}

double prk_comm_max_double(double value)
{
    prk_dred[0] = value;
    prk_reduce_max_double();
    return prk_dred[1];
}

double prk_comm_sum_double(double value)
{
    prk_dred[0] = value;
    prk_reduce_sum_double();
    return prk_dred[1];
}

const char *prk_comm_model(void)
{
    return "OpenSHMEM";
}
