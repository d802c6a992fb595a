/*
 * prk_comm.h on MPI (the MPI twins of the kernels).
 */
#include <mpi.h>

#include "prk_comm.h"

int prk_comm_init(int *argc, char ***argv)
{
    return MPI_Init(argc, argv) != MPI_SUCCESS;
}

void prk_comm_finalize(void)
{
    MPI_Finalize();
}

int prk_comm_rank(void)
{
    int rank;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

int prk_comm_size(void)
{
    int size;

    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

void prk_comm_barrier(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

int prk_comm_max_int(int value)
{
    int result;

    MPI_Allreduce(&value, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return result;
}

double prk_comm_max_double(double value)
{
    double result;

    MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return result;
}

double prk_comm_sum_double(double value)
{
    double result;

    MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return result;
}

const char *prk_comm_model(void)
{
    return "MPI";
}
