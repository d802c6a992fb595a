/*
 * One PE dies at a chosen point of a run while the others go on; the job
 * must end (tests/isolation/dead_pe.sh checks how fast and how cleanly).
 *
 *   dead_pe -r PE|all -p POINT -f HOW [-d MS] [-c fork|exec]
 *
 * POINT, where PE dies and where the others are meanwhile:
 *   start        before shmem_init, MS ms after start; others in shmem_init
 *   init         from a thread, MS ms into its shmem_init; others in it too
 *   barrier      MS ms after shmem_init; others in shmem_barrier_all
 *   reduce       the same; others in shmem_long_sum_reduce
 *   wait         the same; others in shmem_long_wait_until
 *   signal_wait  the same; others in shmem_signal_wait_until
 *   none         nobody dies: every PE runs shmem_init, a barrier and
 *                shmem_finalize, and exits with status 0
 * HOW: kill (SIGKILL), segv (a real invalid access), exit (exit(0) without
 * shmem_finalize), hang (sleeps for ever instead of dying, so that the
 * others stay in their wait: for killing the launcher under them).
 * "-r all" makes every PE the one that dies.
 * -c: every PE first starts a child that exits at once (before shmem_init,
 * and with "none" after it too): fork (exit(0) in the forked copy) or exec
 * (this program run again with -x, which exits 0 at once). The PE waits for
 * it; neither must disturb the job.
 * Every PE prints "PE r pid N" first, so the test can look for what is left;
 * the dying PE prints "failing at SECONDS" (wall clock) just before dying.
 * A PE that gets out of its wait prints FAIL and exits 1: the job was meant
 * to be ended under it.
 */
#include <pthread.h>
#include <shmem.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *how = "kill";
static long delay_ms = 300;
static volatile int in_init;

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void fail_now(const char *where)
{
    static int *volatile nowhere; /* NULL, and the compiler cannot know */
    struct timespec t;

    clock_gettime(CLOCK_REALTIME, &t);
    fprintf(stderr, "failing at %ld.%06ld (%s, %s)\n", (long)t.tv_sec,
            t.tv_nsec / 1000, where, how);
    fflush(NULL);
    if (strcmp(how, "exit") == 0)
        exit(0);
    if (strcmp(how, "segv") == 0)
        *nowhere = 1;
    while (strcmp(how, "hang") == 0)
        sleep_ms(1000);
    raise(SIGKILL);
    abort();
}

static void *fail_in_init(void *arg)
{
    (void)arg;
    sleep_ms(delay_ms);
    fail_now(in_init ? "inside shmem_init" : "just after shmem_init");
    return NULL;
}

/* A child that exits 0 at once; its status is printed, never fatal here:
 * the test looks at what the job did. */
static void spawn_child(const char *mode)
{
    int status = -1;
    pid_t pid = fork();

    if (pid < 0) {
        perror("dead_pe: fork");
        exit(2);
    }
    if (pid == 0) {
        if (strcmp(mode, "exec") == 0) {
            execl("/proc/self/exe", "dead_pe", "-x", (char *)NULL);
            _exit(127);
        }
        exit(0);
    }
    waitpid(pid, &status, 0);
    printf("child %d (%s) ended, status %d\n", (int)pid, mode,
           WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    fflush(stdout);
}

/* The rank before shmem_init: every PMIx launcher sets PMIX_RANK. */
static int rank_from_env(void)
{
    const char *r = getenv("PMIX_RANK");

    if (r == NULL)
        r = getenv("SLURM_PROCID");
    return r ? atoi(r) : -1;
}

static void others_wait(const char *point)
{
    static long flag, src, dst;
    static uint64_t sig;

    if (strcmp(point, "barrier") == 0)
        shmem_barrier_all();
    else if (strcmp(point, "reduce") == 0)
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &dst, &src, 1);
    else if (strcmp(point, "wait") == 0)
        shmem_long_wait_until(&flag, SHMEM_CMP_NE, 0);
    else if (strcmp(point, "signal_wait") == 0)
        shmem_signal_wait_until(&sig, SHMEM_CMP_NE, 0);
    else {
        fprintf(stderr, "dead_pe: unknown point %s\n", point);
        exit(2);
    }
    printf("FAIL: PE %d got out of %s although a PE died\n", shmem_my_pe(),
           point);
    exit(1);
}

int main(int argc, char **argv)
{
    const char *point = "barrier", *child = NULL;
    int victim = 1, opt, me;
    pthread_t th;

    while ((opt = getopt(argc, argv, "r:p:f:d:c:x")) != -1) {
        switch (opt) {
        case 'r': victim = strcmp(optarg, "all") ? atoi(optarg) : -2; break;
        case 'c': child = optarg; break;
        case 'x': return 0; /* the exec'd child */
        case 'p': point = optarg; break;
        case 'f': how = optarg; break;
        case 'd': delay_ms = atol(optarg); break;
        default:
            fprintf(stderr,
                    "usage: dead_pe -r PE|all -p POINT -f kill|segv|exit|hang "
                    "[-d MS] [-c fork|exec]\n");
            return 2;
        }
    }
    if (strcmp(how, "kill") && strcmp(how, "segv") && strcmp(how, "exit") &&
        strcmp(how, "hang")) {
        fprintf(stderr, "dead_pe: unknown failure %s\n", how);
        return 2;
    }
    if (child && strcmp(child, "fork") && strcmp(child, "exec")) {
        fprintf(stderr, "dead_pe: unknown child %s\n", child);
        return 2;
    }
    me = rank_from_env();
    if (victim == -2)
        victim = me;
    printf("PE %d pid %d\n", me, (int)getpid());
    if (me == 0 && getenv("SLURM_JOB_ID"))
        printf("slurm step %s.%s\n", getenv("SLURM_JOB_ID"),
               getenv("SLURM_STEP_ID") ? getenv("SLURM_STEP_ID") : "0");
    fflush(stdout);
    if (child)
        spawn_child(child);
    if (me == victim && strcmp(point, "start") == 0) {
        sleep_ms(delay_ms);
        fail_now("before shmem_init");
    }
    if (me == victim && strcmp(point, "init") == 0) {
        in_init = 1;
        if (pthread_create(&th, NULL, fail_in_init, NULL) != 0) {
            fprintf(stderr, "dead_pe: pthread_create failed\n");
            return 2;
        }
    }
    shmem_init();
    in_init = 0;
    if (me == victim && strcmp(point, "init") == 0)
        for (;;) /* shmem_init was quick: the thread ends this PE here */
            sleep_ms(1000);
    if (me != shmem_my_pe()) {
        printf("FAIL: PE %d has PMIX_RANK %d\n", shmem_my_pe(), me);
        shmem_global_exit(1);
    }
    if (strcmp(point, "none") == 0) {
        shmem_barrier_all();
        if (child)
            spawn_child(child);
        shmem_finalize();
        return 0;
    }
    if (strcmp(point, "start") == 0 || strcmp(point, "init") == 0)
        others_wait("barrier");
    if (me == victim) {
        sleep_ms(delay_ms);
        fail_now(point);
    }
    others_wait(point);
    return 1;
}
