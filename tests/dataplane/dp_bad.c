/*
 * Bad input to data-plane routines must end the job with a message naming
 * the routine and the bad value (run through tests/heap/expect_fatal.sh):
 *   dp_bad pe | addr | ctx | amo_align | sig_op | cmp | noinit |
 *          noinit_ctx_quiet
 * (noinit_ctx_quiet: shmem_ctx_quiet(SHMEM_CTX_INVALID), which is no
 * operation in a job, is still a call before shmem_init.)
 */
#include <stdint.h>
#include <string.h>

#include <shmem.h>

static long target[4];

int main(int argc, char **argv)
{
    long local[4] = {0};
    const char *what = argc > 1 ? argv[1] : "";
    uint64_t *sig;

    if (!strcmp(what, "noinit"))
        shmem_long_p(target, 1, 0);
    if (!strcmp(what, "noinit_ctx_quiet"))
        shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_init();
    sig = shmem_calloc(1, sizeof(uint64_t));
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        if (!strcmp(what, "pe"))
            shmem_long_put(target, local, 4, shmem_n_pes() + 3);
        else if (!strcmp(what, "addr"))
            shmem_long_put(local, target, 4, 0); /* dest on the stack */
        else if (!strcmp(what, "ctx"))
            shmem_ctx_long_p(SHMEM_CTX_INVALID, target, 1, 0);
        else if (!strcmp(what, "amo_align"))
            shmem_long_atomic_inc((long *)((char *)target + 1), 0);
        else if (!strcmp(what, "sig_op"))
            shmem_long_put_signal(target, local, 1, sig, 1, 12345, 0);
        else if (!strcmp(what, "cmp"))
            shmem_long_wait_until(target, 4242, 0);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
