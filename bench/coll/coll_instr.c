/*
 * Instructions per collective call (bench/coll/instr-count.sh runs it
 * under callgrind on 2 PEs): N calls of shmem_barrier_all or of the 8-byte
 * shmem_long_sum_reduce on SHMEM_TEAM_WORLD, in a loop function of its own
 * (op_*), which callgrind collects alone (--toggle-collect).
 *
 *   coll_instr barrier_all|long_sum_reduce [N]   (N default 2000)
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long src, dst;

static __attribute__((noinline)) void op_barrier_all(long n)
{
    for (long i = 0; i < n; i++)
        shmem_barrier_all();
}

static __attribute__((noinline)) void op_long_sum_reduce(long n)
{
    for (long i = 0; i < n; i++)
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &dst, &src, 1);
}

int main(int argc, char **argv)
{
    long n = argc > 2 ? atol(argv[2]) : 2000;
    int barrier = argc > 1 && strcmp(argv[1], "barrier_all") == 0;

    if (argc < 2 || (!barrier && strcmp(argv[1], "long_sum_reduce") != 0) ||
        n <= 0) {
        fprintf(stderr, "usage: coll_instr barrier_all|long_sum_reduce [N>0]\n");
        return 2;
    }
    shmem_init();
    src = shmem_my_pe() + 1;
    /* warm-up: first-call set-up stays out of the counted loops */
    shmem_barrier_all();
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &dst, &src, 1);
    if (barrier)
        op_barrier_all(n);
    else
        op_long_sum_reduce(n);
    if (dst != (long)shmem_n_pes() * (shmem_n_pes() + 1) / 2) {
        fprintf(stderr, "coll_instr: PE %d: sum %ld is wrong\n", shmem_my_pe(),
                dst);
        shmem_global_exit(1);
    }
    shmem_finalize();
    return 0;
}
