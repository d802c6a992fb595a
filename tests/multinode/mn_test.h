/*
 * Helpers of the multi-node tests (tests/multinode/, run by
 * scripts/multinode-check.sh through srun on simulated nodes). A failed
 * check prints the PE, its host, the place and the condition, and is
 * counted; check_pes_end() (tests/common/check_pes.h) makes every PE exit
 * non-zero when any PE failed.
 *
 * Node identity is taken from the operating system (each simulated node has
 * its own hostname), not from Weft, so that the tests can check Weft's view
 * of locality against it.
 */
#ifndef WEFT_TESTS_MN_TEST_H
#define WEFT_TESTS_MN_TEST_H

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <shmem.h>

#include "tests/common/check_pes.h"

#define MN_HOST_LEN 64

static char mn_host[MN_HOST_LEN];

/* Every PE's hostname, indexed by PE (symmetric: hosts[pe * MN_HOST_LEN]).
 * Returns the number of distinct hosts. */
static inline int mn_gather_hosts(char *hosts)
{
    int me = shmem_my_pe(), npes = shmem_n_pes(), distinct = 0;

    if (gethostname(mn_host, sizeof(mn_host) - 1) != 0)
        strcpy(mn_host, "?");
    check_set_pe(me, mn_host);
    for (int pe = 0; pe < npes; pe++)
        shmem_putmem(hosts + (size_t)me * MN_HOST_LEN, mn_host, MN_HOST_LEN,
                     pe);
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++) {
        int seen = 0;

        for (int q = 0; q < pe; q++)
            seen |= strcmp(hosts + (size_t)q * MN_HOST_LEN,
                           hosts + (size_t)pe * MN_HOST_LEN) == 0;
        distinct += !seen;
    }
    return distinct;
}

static inline int mn_same_host(const char *hosts, int a, int b)
{
    return strcmp(hosts + (size_t)a * MN_HOST_LEN,
                  hosts + (size_t)b * MN_HOST_LEN) == 0;
}

static inline double mn_now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Waiting loops give the core away: PEs outnumber cores on a test machine. */
static inline void mn_backoff(unsigned *round)
{
    struct timespec ts = {0, 1000L << (*round < 6 ? *round : 6)};

    if (++*round < 4)
        sched_yield();
    else
        nanosleep(&ts, NULL);
}

/* Parses a non-negative integer option value or exits with status 2. */
static inline long mn_arg(const char *opt, const char *s, long min)
{
    char *end;
    long v = strtol(s, &end, 10);

    if (*s == '\0' || *end != '\0' || v < min) {
        fprintf(stderr, "%s needs an integer >= %ld, not '%s'\n", opt, min, s);
        exit(2);
    }
    return v;
}

#endif /* WEFT_TESTS_MN_TEST_H */
