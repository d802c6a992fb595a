/*
 * <mpp/shmemx.h>: the path under which older programs include the
 * extensions, as with Sandia OpenSHMEM and Open MPI. It is <shmemx.h>.
 */
/* By its path from here: with -I.../include/mpp, <shmemx.h> would be this. */
#include "../shmemx.h"
