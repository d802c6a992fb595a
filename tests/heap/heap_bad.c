/*
 * Misuse that must end the job with a clear fatal error (never a crash or a
 * hang); driven by tests/heap/expect_fatal.sh. Argument:
 *   free      shmem_free of memory from malloc (not symmetric)
 *   double    shmem_free twice of the same block
 *   mismatch  shmem_malloc with different sizes on different PEs
 *             (detected with SHMEM_DEBUG=1)
 *   none      only shmem_init (for start-up errors such as a heap too large)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "none";

    shmem_init();
    if (strcmp(what, "free") == 0) {
        void *p = malloc(64);
        shmem_free(p);
    } else if (strcmp(what, "double") == 0) {
        void *p = shmem_malloc(64);
        shmem_free(p);
        shmem_free(p);
    } else if (strcmp(what, "mismatch") == 0) {
        void *p = shmem_malloc(shmem_my_pe() == 0 ? 100 : 200);
        shmem_free(p);
    }
    shmem_finalize();
    printf("heap_bad %s: no error was detected\n", what);
    return 0;
}
