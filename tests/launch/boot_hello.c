/*
 * Bootstrap test program: every PE checks what the launcher told it and the
 * data every other PE published through the exchange, then optionally
 * fails in a chosen way (for the fault tests).
 *
 *   boot_hello [-n EXPECTED_SIZE] [-r RANK -f exit:N|kill|abort:N|hang]
 *
 * The chosen rank fails after the exchange while the others sleep, as PEs
 * blocked in a collective would; the launcher must end them.
 */
#include "config.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "boot/boot.h"
#include "tests/common/check.h"

typedef struct card {
    int rank, size, local_rank, local_size, node_id;
    char jobid[64];
    uint64_t magic;
} card_t;

static uint64_t magic_of(int rank)
{
    return 0x9e3779b97f4a7c15ULL * (uint64_t)(rank + 1);
}

static void check_self(const shmi_boot_info_t *in, int expect)
{
    CHECK_MSG(in->size >= 1, "size %d", in->size);
    CHECK_MSG(expect <= 0 || in->size == expect, "size %d, expected %d",
              in->size, expect);
    CHECK_MSG(in->rank >= 0 && in->rank < in->size, "rank %d", in->rank);
    CHECK_MSG(in->local_size >= 1 && in->local_size <= in->size,
              "local size %d", in->local_size);
    CHECK_MSG(in->local_rank >= 0 && in->local_rank < in->local_size &&
                  in->local_pes[in->local_rank] == in->rank,
              "local rank %d", in->local_rank);
    for (int i = 1; i < in->local_size; i++)
        CHECK_MSG(in->local_pes[i - 1] < in->local_pes[i],
                  "local_pes not sorted");
    CHECK_MSG(in->node_of_pe[in->rank] == in->node_id, "node id");
    CHECK_MSG(in->n_nodes >= 1 && in->node_id < in->n_nodes, "node %d of %d",
              in->node_id, in->n_nodes);
    CHECK_MSG(in->singleton ==
                  (in->size == 1 && !strcmp(in->launcher, "singleton")),
              "singleton flag %d", in->singleton);
    CHECK_MSG(in->jobid[0] != '\0', "empty job id");
}

static void check_peer(const shmi_boot_info_t *in, int pe, const card_t *c)
{
    int local = 0;

    for (int i = 0; i < in->local_size; i++)
        local |= in->local_pes[i] == pe;
    CHECK_MSG(c->rank == pe && c->size == in->size,
              "pe %d card rank %d size %d", pe, c->rank, c->size);
    CHECK_MSG(c->magic == magic_of(pe), "pe %d magic", pe);
    CHECK_MSG(strcmp(c->jobid, in->jobid) == 0, "pe %d job id %s != %s", pe,
              c->jobid, in->jobid);
    CHECK_MSG(c->node_id == in->node_of_pe[pe], "pe %d node %d != %d", pe,
              c->node_id, in->node_of_pe[pe]);
    CHECK_MSG(local == (c->node_id == in->node_id), "pe %d locality", pe);
    if (local)
        CHECK_MSG(in->local_pes[c->local_rank] == pe &&
                      c->local_size == in->local_size,
                  "pe %d local rank %d", pe, c->local_rank);
}

static int exchange(const shmi_boot_info_t *in)
{
    card_t mine = {in->rank,    in->size, in->local_rank,    in->local_size,
                   in->node_id, "",       magic_of(in->rank)};

    memcpy(mine.jobid, in->jobid, sizeof(mine.jobid));
    if (shmi_boot_put("card", &mine, sizeof(mine)) || shmi_boot_fence())
        return -1;
    for (int pe = 0; pe < in->size; pe++) {
        card_t c;

        if (shmi_boot_get(pe, "card", &c, sizeof(c)))
            return -1;
        check_peer(in, pe, &c);
    }
    return 0;
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
    if (strncmp(how, "abort:", 6) == 0)
        shmi_boot_abort(atoi(how + 6), "boot_hello asked to abort");
    if (strcmp(how, "hang") == 0)
        pause();
    fprintf(stderr, "boot_hello: unknown failure %s\n", how);
    exit(2);
}

int main(int argc, char **argv)
{
    shmi_boot_info_t in;
    int expect = 0, fail_rank = -1, opt;
    const char *how = NULL;

    while ((opt = getopt(argc, argv, "n:r:f:")) != -1) {
        switch (opt) {
        case 'n': expect = atoi(optarg); break;
        case 'r': fail_rank = atoi(optarg); break;
        case 'f': how = optarg; break;
        default: return 2;
        }
    }
    if (shmi_boot_init(&in)) {
        fprintf(stderr, "boot_hello: shmi_boot_init failed\n");
        return 1;
    }
    check_set_pe(in.rank, NULL);
    check_self(&in, expect);
    if (exchange(&in))
        CHECK_MSG(0, "exchange failed");
    printf("hello from PE %d of %d (local %d of %d, node %d of %d, launcher "
           "%s, job %s, pid %ld)%s\n",
           in.rank, in.size, in.local_rank, in.local_size, in.node_id,
           in.n_nodes, in.launcher, in.jobid, (long)getpid(),
           check_failures() ? " FAILED" : "");
    fflush(stdout);
    if (how && in.rank == fail_rank)
        fail_now(how);
    if (how) /* the others wait as if in a collective the failed PE misses */
        sleep(60);
    if (shmi_boot_fence())
        CHECK_MSG(0, "second fence failed");
    shmi_boot_finalize();
    return check_failures() ? 1 : 0;
}
