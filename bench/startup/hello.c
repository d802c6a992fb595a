/* The smallest OpenSHMEM program: start, say who we are, stop. */
#include <stdio.h>

#include <shmem.h>

int main(void)
{
    shmem_init();
    printf("hello from PE %d of %d\n", shmem_my_pe(), shmem_n_pes());
    shmem_finalize();
    return 0;
}
