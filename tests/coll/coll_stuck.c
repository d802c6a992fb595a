/*
 * Jobs whose PEs are alive but wait for each other, for the watchdog
 * (src/core/watchdog.h; tests/coll/watchdog.cases runs them under
 * tests/coll/watchdog.sh with a short SHMEM_WATCHDOG). Each mode but late
 * never ends by itself: the test ends it once the reports are printed.
 * Run with 2 PEs.
 *
 * Usage: coll_stuck MODE [SECONDS]
 *   coll    PE 0 calls shmem_barrier_all, PE 1 shmem_long_sum_reduce:
 *           two collective calls that never meet
 *   lock    PE 0 takes a lock and never clears it, then enters a
 *           barrier; PE 1 waits in shmem_set_lock
 *   wait    PE 1 waits in shmem_long_wait_until for a word nobody sets;
 *           PE 0 enters a barrier
 *   signal  the same with shmem_signal_wait_until
 *   devsignal  the same on a word of the device heap (shmemx_malloc_device;
 *           run with SHMEM_DEVICE_BACKEND=mock)
 *   late    PE 1 waits in shmem_long_wait_until while PE 0 computes for
 *           SECONDS (default 3) and then sets the word: a legitimate long
 *           wait, which must end normally after the watchdog's report
 */
#include <shmem.h>
#include <shmemx.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long lock;
static long word;
static uint64_t sig;
static long src[4], dst[4];

static int stuck(const char *mode, int me)
{
    if (!strcmp(mode, "coll")) {
        if (me == 0)
            shmem_barrier_all();
        else
            shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 4);
    } else if (!strcmp(mode, "lock")) {
        if (me == 0)
            shmem_set_lock(&lock);
        shmem_barrier_all();
        if (me == 1)
            shmem_set_lock(&lock);
        shmem_barrier_all();
    } else if (!strcmp(mode, "wait")) {
        if (me == 1)
            shmem_long_wait_until(&word, SHMEM_CMP_EQ, 1);
        shmem_barrier_all();
    } else if (!strcmp(mode, "signal")) {
        if (me == 1)
            shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1);
        shmem_barrier_all();
    } else if (!strcmp(mode, "devsignal")) {
        uint64_t *dsig = shmemx_malloc_device(sizeof(*dsig));

        if (dsig == NULL) {
            fprintf(stderr, "coll_stuck: no device heap (SHMEM_DEVICE_BACKEND)\n");
            return -1;
        }
        if (me == 1)
            shmem_signal_wait_until(dsig, SHMEM_CMP_EQ, 1);
        shmem_barrier_all();
    } else {
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int me, ret = 0;

    shmem_init();
    me = shmem_my_pe();
    if (shmem_n_pes() != 2) {
        if (me == 0)
            printf("coll_stuck: run with 2 PEs\n");
        shmem_finalize();
        return 2;
    }
    if (!strcmp(mode, "late")) {
        if (me == 0) {
            sleep(argc > 2 ? (unsigned)atoi(argv[2]) : 3);
            shmem_long_p(&word, 1, 1);
        } else {
            shmem_long_wait_until(&word, SHMEM_CMP_EQ, 1);
        }
        shmem_barrier_all();
        if (me == 0)
            printf("late wait ended normally: ok\n");
    } else {
        ret = stuck(mode, me);
        if (ret < 0 && me == 0)
            printf("coll_stuck: unknown mode '%s'\n", mode);
    }
    shmem_finalize();
    return ret < 0 ? 2 : ret;
}
