/*
 * Programs that call shmem_init and return from main without
 * shmem_finalize, as programs written for Sandia OpenSHMEM often do. Run by
 * tests/compat/finalize_at_exit.sh, which judges the status and the output.
 *
 *   no_finalize all F        every PE puts a block into its right
 *                            neighbour (non-blocking, no quiet) and returns;
 *                            a handler registered before shmem_init runs
 *                            after the finalize at exit, checks the block
 *                            that arrived and appends "ok PE" to file F
 *   no_finalize thread F     the same after shmem_init_thread(MULTIPLE)
 *   no_finalize late         PE 0 computes for a second before it returns;
 *                            the others return at once and wait for it
 *   no_finalize waiting      PE 1 returns at once; PE 0 waits in
 *                            shmem_long_wait_until for a flag that PE 2
 *                            sets after a second (PE 0 is blocked, PE 2
 *                            computes: nobody waits for PE 1), then all
 *                            return
 *   no_finalize leave N      PE N returns while the others wait for it in
 *                            shmem_barrier_all: the job must end, naming
 *                            PE N; a PE that gets past prints FAIL
 *   no_finalize leave_wait N the same, the others in shmem_long_wait_until
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <shmem.h>

#define BLOCK_SIZE (256 * 1024)

static char inbox[BLOCK_SIZE];  /* symmetric: written by the left neighbour */
static char outbox[BLOCK_SIZE]; /* what this PE sends */
static long flag;               /* symmetric: PE 2 sets PE 0's */
static const char *result_file;
static int me = -1, npes = -1;

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

static char pattern(int pe, size_t i)
{
    return (char)(pe * 31 + (int)(i % 251) + 1);
}

/* Registered before shmem_init: runs after the finalize at exit, when the
 * traffic into this PE has completed. One write per line. */
static void after_finalize(void)
{
    int left = (me + npes - 1) % npes;
    char line[64];
    int fd, len;

    for (size_t i = 0; i < BLOCK_SIZE; i++) {
        if (inbox[i] != pattern(left, i)) {
            fprintf(stderr, "FAIL: PE %d: byte %zu from PE %d is %d, not %d\n",
                    me, i, left, inbox[i], pattern(left, i));
            return;
        }
    }
    fd = open(result_file, O_WRONLY | O_APPEND);
    len = snprintf(line, sizeof(line), "ok %d\n", me);
    if (fd < 0 || write(fd, line, (size_t)len) != len)
        _exit(4);
    close(fd);
}

static int run_all(int threads)
{
    int provided;

    if (atexit(after_finalize) != 0)
        return 3;
    if (threads) {
        if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0)
            return 3;
    } else {
        shmem_init();
    }
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (size_t i = 0; i < BLOCK_SIZE; i++)
        outbox[i] = pattern(me, i);
    shmem_barrier_all();
    shmem_putmem_nbi(inbox, outbox, BLOCK_SIZE, (me + 1) % npes);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    const char *arg = argc > 2 ? argv[2] : "";

    if ((strcmp(mode, "all") == 0 || strcmp(mode, "thread") == 0) && *arg) {
        result_file = arg;
        return run_all(strcmp(mode, "thread") == 0);
    }
    if (strcmp(mode, "late") == 0) {
        shmem_init();
        if (shmem_my_pe() == 0)
            pause_ms(1000);
        printf("PE %d returns\n", shmem_my_pe());
        return 0;
    }
    if (strcmp(mode, "waiting") == 0) {
        shmem_init();
        shmem_barrier_all();
        if (shmem_n_pes() < 3)
            return 2;
        if (shmem_my_pe() == 0)
            shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
        if (shmem_my_pe() == 2) {
            pause_ms(1000);
            shmem_long_p(&flag, 1, 0);
        }
        printf("PE %d returns\n", shmem_my_pe());
        return 0;
    }
    if ((strcmp(mode, "leave") == 0 || strcmp(mode, "leave_wait") == 0) &&
        *arg) {
        shmem_init();
        shmem_barrier_all();
        if (shmem_my_pe() == atoi(arg))
            return 0;
        if (strcmp(mode, "leave") == 0)
            shmem_barrier_all(); /* ended under it */
        else
            shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
        printf("FAIL: PE %d got past its wait\n", shmem_my_pe());
        return 1;
    }
    fprintf(stderr, "usage: no_finalize all FILE | thread FILE | late | "
                    "waiting | leave N | leave_wait N\n");
    return 2;
}
