/*
 * The job that tests/security/pmix_attack.sh attacks: barriers and a sum
 * reduction, checked every round, until the script says it is done.
 *
 * Usage: sec_victim DIR
 *   PE 0 creates DIR/ready once every PE is in shmem_init's job, then the
 *   PEs run rounds until DIR/go exists (at most 120 s), and PE 0 prints
 *   "sec_victim: N PEs, R rounds, sums right" when all went well.
 */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAX_SECONDS 120

static int stop; /* set on every PE by PE 0 */
static long src, dst;

static int file_exists(const char *dir, const char *name)
{
    char path[4096];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

static void touch(const char *dir, const char *name)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    if (f)
        fclose(f);
}

/* One round: every PE learns whether to stop (PE 0 decides) and checks a
 * sum over all PEs. Returns 1 to stop, 0 to go on, -1 when the sum is
 * wrong. */
static int one_round(const char *dir, long round, time_t start)
{
    int me = shmem_my_pe(), n = shmem_n_pes(), s;
    long want = 0;

    if (me == 0) {
        s = file_exists(dir, "go") || time(NULL) - start > MAX_SECONDS;
        for (int pe = 0; pe < n; pe++)
            shmem_int_p(&stop, s, pe);
    }
    shmem_barrier_all();
    /* Read before the reduction: PE 0 cannot write the next round's value
     * until every PE has contributed to this one's. */
    s = stop;
    src = round * 1000 + me;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &dst, &src, 1);
    for (int pe = 0; pe < n; pe++)
        want += round * 1000 + pe;
    if (dst != want) {
        fprintf(stderr, "sec_victim[pe %d]: round %ld: sum %ld, not %ld\n", me,
                round, dst, want);
        return -1;
    }
    return s;
}

int main(int argc, char **argv)
{
    time_t start = time(NULL);
    long round = 0;
    int ret;

    if (argc != 2) {
        fprintf(stderr, "usage: sec_victim DIR\n");
        return 2;
    }
    shmem_init();
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        touch(argv[1], "ready");
    do {
        ret = one_round(argv[1], round++, start);
        if (ret < 0)
            shmem_global_exit(1);
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    } while (ret == 0);
    if (shmem_my_pe() == 0)
        printf("sec_victim: %d PEs, %ld rounds, sums right\n", shmem_n_pes(),
               round);
    shmem_finalize();
    return 0;
}
