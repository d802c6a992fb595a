/*
 * <mpp/shmem.h>: the path under which older OpenSHMEM and Cray SHMEM
 * programs (the Cray tests among them) include the library, kept by Sandia
 * OpenSHMEM and Open MPI too. It is <shmem.h>.
 */
/* By its path from here: with -I.../include/mpp, <shmem.h> would be this. */
#include "../shmem.h"
