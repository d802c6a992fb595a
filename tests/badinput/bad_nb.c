/*
 * Misuse of the nonblocking collectives (docs/nonblocking-collectives.md,
 * "Bad input"), one kind per mode, every PE alike; badinput.cases runs each
 * under expect_fail.sh, which wants a non-zero status, the message naming
 * the routine and the argument, and a job that ends within seconds.
 *
 * Usage: bad_nb MODE
 *   null_req     shmemx_req_wait(SHMEMX_REQ_NULL)
 *   wait_twice   a request waited twice
 *   test_after   a request tested after the wait that completed it
 *   garbage      shmemx_req_test of a value no post returned
 *   req_ptr      a post with request NULL
 *   overlap      a reduction whose dest overlaps the dest of one in flight
 */
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static long src[64], dst[64];

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    shmemx_req_h r = SHMEMX_REQ_NULL, r2;

    shmem_init();
    if (!strcmp(mode, "null_req")) {
        shmemx_req_wait(r);
    } else if (!strcmp(mode, "wait_twice")) {
        shmemx_sync_nb(SHMEM_TEAM_WORLD, &r);
        shmemx_req_wait(r);
        shmemx_req_wait(r);
    } else if (!strcmp(mode, "test_after")) {
        shmemx_sync_nb(SHMEM_TEAM_WORLD, &r);
        shmemx_req_wait(r);
        shmemx_req_test(r);
    } else if (!strcmp(mode, "garbage")) {
        shmemx_req_test((shmemx_req_h)(uintptr_t)0x7777777);
    } else if (!strcmp(mode, "req_ptr")) {
        shmemx_long_sum_reduce_nb(SHMEM_TEAM_WORLD, dst, src, 64, NULL);
    } else if (!strcmp(mode, "overlap")) {
        shmemx_long_sum_reduce_nb(SHMEM_TEAM_WORLD, dst, src, 64, &r);
        shmemx_long_max_reduce_nb(SHMEM_TEAM_WORLD, dst + 8, src, 8, &r2);
        shmemx_req_wait(r2);
    } else {
        fprintf(stderr, "bad_nb: unknown mode '%s'\n", mode);
        return 2;
    }
    printf("bad_nb: PE %d returned from the bad call (%s)\n", shmem_my_pe(),
           mode);
    shmem_finalize();
    return 0;
}
