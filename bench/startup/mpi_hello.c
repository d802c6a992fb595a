/* The MPI twin of hello.c. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int me, n;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    printf("hello from rank %d of %d\n", me, n);
    MPI_Finalize();
    return 0;
}
