/*
 * Start-up through the public API: every PE checks the queries, then the
 * data each PE published (its PE number, written into a symmetric variable
 * of every other PE); optionally one PE fails in a chosen way.
 *
 *   shmem_hello [-n EXPECTED_NPES] [-r PE -f exit:N|kill|global_exit:N|badpe]
 *   shmem_hello -t LEVEL          start with shmem_init_thread(LEVEL); an
 *                                  invalid LEVEL must be refused (nonzero)
 *   shmem_hello -m before|after   (misuse: a query before shmem_init or
 *                                  after shmem_finalize must be fatal)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <shmem.h>

#include "tests/common/check.h"

static int target; /* symmetric */

static int want_level = SHMEM_THREAD_SINGLE;

static void check_queries(int expect)
{
    int me = shmem_my_pe(), n = shmem_n_pes(), flag = 0, major, minor, level;
    char name[SHMEM_MAX_NAME_LEN];

    CHECK_MSG(expect <= 0 || n == expect, "n_pes %d, expected %d", n, expect);
    CHECK_MSG(me >= 0 && me < n, "my_pe %d of %d", me, n);
    CHECK_MSG(_my_pe() == me && _num_pes() == n, "_my_pe/_num_pes differ");
    shmem_query_initialized(&flag);
    CHECK_MSG(flag == 1, "shmem_query_initialized gave %d", flag);
    shmem_query_thread(&level);
    CHECK_MSG(level == want_level, "thread level %d, expected %d", level,
              want_level);
    shmem_info_get_version(&major, &minor);
    CHECK_MSG(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION,
              "version %d.%d", major, minor);
    shmem_info_get_name(name);
    CHECK_MSG(strcmp(name, SHMEM_VENDOR_STRING) == 0, "name '%s'", name);
    CHECK_MSG(shmem_pe_accessible(n - 1) && !shmem_pe_accessible(n) &&
                  !shmem_pe_accessible(-1),
              "shmem_pe_accessible");
}

static void fail_now(const char *how)
{
    struct timespec t;

    /* The test measures how long the job takes to end from here. */
    clock_gettime(CLOCK_REALTIME, &t);
    fprintf(stderr, "failing at %ld.%06ld\n", (long)t.tv_sec, t.tv_nsec / 1000);
    fflush(NULL);
    if (strncmp(how, "exit:", 5) == 0)
        exit(atoi(how + 5));
    if (strcmp(how, "kill") == 0)
        raise(SIGKILL);
    if (strncmp(how, "global_exit:", 12) == 0)
        shmem_global_exit(atoi(how + 12));
    if (strcmp(how, "badpe") == 0) /* a fatal error must end every PE */
        shmem_int_p(&target, 1, shmem_n_pes());
    fprintf(stderr, "shmem_hello: unknown failure %s\n", how);
    exit(2);
}

int main(int argc, char **argv)
{
    static int seen[4096]; /* symmetric: seen[p] = p + 1 once PE p wrote */
    int expect = 0, fail_pe = -1, opt, me, n, flag = 1;
    const char *how = NULL, *misuse = "";

    int thread_level = -1, provided = -1;

    while ((opt = getopt(argc, argv, "n:r:f:m:t:")) != -1) {
        switch (opt) {
        case 't': thread_level = atoi(optarg); break;
        case 'm': misuse = optarg; break;
        case 'n': expect = atoi(optarg); break;
        case 'r': fail_pe = atoi(optarg); break;
        case 'f': how = optarg; break;
        default: return 2;
        }
    }
    shmem_query_initialized(&flag);
    CHECK_MSG(flag == 0, "initialized before shmem_init");
    if (strcmp(misuse, "before") == 0)
        printf("my_pe before init: %d\n", shmem_my_pe());
    if (thread_level >= 0) {
        int ret = shmem_init_thread(thread_level, &provided);

        if (thread_level > SHMEM_THREAD_MULTIPLE) {
            CHECK_MSG(ret != 0, "shmem_init_thread(%d) accepted", thread_level);
            printf("invalid thread level refused%s\n",
                   check_failures() ? " FAILED" : "");
            return check_failures() ? 1 : 0;
        }
        CHECK_MSG(ret == 0 && provided == thread_level,
                  "shmem_init_thread(%d): %d, provided %d", thread_level, ret,
                  provided);
        want_level = thread_level;
    }
    shmem_init();
    shmem_init(); /* a second call keeps the first */
    check_set_pe(shmem_my_pe(), NULL);
    check_queries(expect);
    me = shmem_my_pe();
    n = shmem_n_pes();
    if (n > 4096) {
        fprintf(stderr, "shmem_hello: too many PEs\n");
        shmem_global_exit(1);
    }
    for (int pe = 0; pe < n; pe++)
        shmem_int_p(&seen[me], me + 1, pe);
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++)
        CHECK_MSG(seen[pe] == pe + 1, "PE %d did not write (found %d)", pe,
                  seen[pe]);
    printf("hello from PE %d of %d (pid %ld)%s\n", me, n, (long)getpid(),
           check_failures() ? " FAILED" : "");
    fflush(stdout);
    if (how && me == fail_pe)
        fail_now(how);
    if (how) /* blocked until the launcher ends this PE */
        shmem_barrier_all();
    shmem_finalize();
    flag = 1;
    shmem_query_initialized(&flag);
    CHECK_MSG(flag == 0, "still initialized after shmem_finalize");
    if (strcmp(misuse, "after") == 0)
        printf("n_pes after finalize: %d\n", shmem_n_pes());
    return check_failures() ? 1 : 0;
}
