/*
 * hello: every PE says which one it is.
 *
 *   oshcc -o hello hello.c
 *   oshrun -n 4 ./hello
 *
 * Each PE (processing element: one process of the job) prints one line.
 * The lines of different PEs come in any order.
 */
#include <stdio.h>

#include <shmem.h>

int main(void)
{
    char name[SHMEM_MAX_NAME_LEN];
    int major, minor;

    shmem_init(); /* every PE starts the library before any other call */

    int me = shmem_my_pe();  /* 0 .. npes-1 */
    int npes = shmem_n_pes();

    shmem_info_get_name(name);
    shmem_info_get_version(&major, &minor);
    printf("Hello from PE %d of %d (%s, OpenSHMEM %d.%d)\n", me, npes, name,
           major, minor);

    shmem_finalize(); /* collective: every PE calls it before leaving */
    return 0;
}
