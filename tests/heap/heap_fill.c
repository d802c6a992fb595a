/*
 * Fills a symmetric block of the size given (argv[1], bytes, k/m suffix)
 * on every PE, then checks a neighbour's last word: the job touches every
 * page it asked for (tests/heap/shm_full.sh).
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    char *end = NULL;
    size_t n = argc > 1 ? strtoull(argv[1], &end, 0) : 0;
    unsigned char *buf;
    unsigned char last;
    int me, npes;

    if (end && *end == 'k')
        n <<= 10;
    if (end && *end == 'm')
        n <<= 20;
    if (n == 0) {
        fprintf(stderr, "usage: heap_fill BYTES[k|m]\n");
        return 2;
    }
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    buf = shmem_malloc(n);
    if (!buf) {
        fprintf(stderr, "heap_fill: PE %d: shmem_malloc(%zu) failed\n", me, n);
        shmem_global_exit(2);
    }
    memset(buf, 0x40 + me, n);
    shmem_barrier_all();
    last = shmem_uchar_g(buf + n - 1, (me + 1) % npes);
    shmem_barrier_all();
    shmem_finalize();
    if (last != 0x40 + (me + 1) % npes) {
        fprintf(stderr, "heap_fill: PE %d read %#x\n", me, last);
        return 1;
    }
    printf("heap_fill: PE %d filled %zu bytes\n", me, n);
    return 0;
}
