/*
 * prk_comm.h on OpenSHMEM 1.5+ team reductions (the Weft versions of the
 * kernels). The reductions need symmetric source and destination words:
 * they are carved once from the symmetric heap at start-up.
 */
#include <shmem.h>

#include "prk_comm.h"

/* Symmetric scratch for the reductions: [0] source, [1] result. */
static int *prk_ired;
static double *prk_dred;

int prk_comm_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    shmem_init();
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
    shmem_int_max_reduce(SHMEM_TEAM_WORLD, &prk_ired[1], &prk_ired[0], 1);
    return prk_ired[1];
}

double prk_comm_max_double(double value)
{
    prk_dred[0] = value;
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &prk_dred[1], &prk_dred[0], 1);
    return prk_dred[1];
}

double prk_comm_sum_double(double value)
{
    prk_dred[0] = value;
    shmem_double_sum_reduce(SHMEM_TEAM_WORLD, &prk_dred[1], &prk_dred[0], 1);
    return prk_dred[1];
}

const char *prk_comm_model(void)
{
    return "OpenSHMEM";
}
