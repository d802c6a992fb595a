/*
 * Misuse of the device heap must end the job with a clear message (run
 * through tests/heap/expect_fatal.sh):
 *   device_bad free     shmem_free of an address inside a device block
 *   device_bad double   shmem_free of a device block twice
 *   device_bad none     nothing (for start-up errors such as SHMEM_DEVICE_ID)
 */
#include <stdio.h>
#include <string.h>

#include <shmem.h>
#include <shmemx.h>

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "none";
    char *p;

    shmem_init();
    p = shmemx_malloc_device(4096);
    if (!p) {
        printf("no device heap: skipped\n");
        fflush(stdout);
        shmem_finalize();
        return 77;
    }
    if (strcmp(what, "free") == 0) {
        shmem_free(p + 64);
    } else if (strcmp(what, "double") == 0) {
        shmem_free(p);
        shmem_free(p);
    }
    shmem_finalize();
    return 0;
}
