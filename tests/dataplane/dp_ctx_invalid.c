/*
 * SHMEM_CTX_INVALID where the specification gives it a meaning (the table
 * "SHMEM_CTX_INVALID" in docs/dataplane.md):
 *   - shmem_ctx_quiet, shmem_ctx_fence: "no operation is performed"; so
 *     also shmem_ctx_pe_quiet, which has the semantics of shmem_quiet;
 *   - shmem_ctx_destroy: no operation;
 *   - shmem_ctx_get_team: team set to SHMEM_TEAM_INVALID, nonzero return;
 *   - shmem_ctx_session_start: "performs no action and returns
 *     immediately"; shmem_ctx_session_stop likewise;
 *   - shmem_team_create_ctx on SHMEM_TEAM_INVALID: nonzero return and ctx
 *     set to SHMEM_CTX_INVALID.
 * Then the way team-based programs use it: two strided teams of the world
 * (every 2nd and every 3rd PE); a PE outside a team gets SHMEM_TEAM_INVALID,
 * hence SHMEM_CTX_INVALID from shmem_team_create_ctx, and every PE calls
 * quiet and fence on both contexts, whether it is a member or not. The
 * members pass their team PE number around a ring of the team on the
 * team's context; the values show that quiet on the valid contexts still
 * completed the puts. Run with 2 or more PEs; every PE exits 0 when all
 * checks pass.
 */
#include <string.h>

#include "dp_test.h"

static int val_2 = -1, val_3 = -1; /* written by the left member of a team */

/* Every routine with a defined result for SHMEM_CTX_INVALID, on this PE. */
static void check_routines(void)
{
    shmem_team_t team = SHMEM_TEAM_WORLD;
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    shmem_ctx_session_config_t cfg;
    int pes[1] = {0};

    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    shmem_ctx_pe_quiet(SHMEM_CTX_INVALID, pes, 1);
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    memset(&cfg, 0, sizeof(cfg));
    shmem_ctx_session_start(SHMEM_CTX_INVALID, SHMEM_CTX_SESSION_BATCH, &cfg,
                            0);
    shmem_ctx_session_stop(SHMEM_CTX_INVALID);
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &team) != 0);
    CHECK(team == SHMEM_TEAM_INVALID);
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx) != 0);
    CHECK(ctx == SHMEM_CTX_INVALID);
}

/* A ring of team t on its context c; members only. */
static void ring_put(shmem_team_t t, shmem_ctx_t c, int *val)
{
    int pe = shmem_team_my_pe(t);

    shmem_ctx_int_put(c, val, &pe, 1, (pe + 1) % shmem_team_n_pes(t));
}

/* What the left member of the ring put: its team PE number. */
static void check_ring(shmem_team_t t, int val)
{
    int n = shmem_team_n_pes(t);

    if (t != SHMEM_TEAM_INVALID)
        CHECK(val == (shmem_team_my_pe(t) + n - 1) % n);
    else
        CHECK(val == -1);
}

static void check_teams(int me, int npes)
{
    shmem_team_t team_2, team_3;
    shmem_ctx_t ctx_2 = SHMEM_CTX_DEFAULT, ctx_3 = SHMEM_CTX_DEFAULT;
    shmem_team_config_t conf = {.num_contexts = 1};

    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, &conf,
                             SHMEM_TEAM_NUM_CONTEXTS, &team_2);
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 3, (npes + 2) / 3, &conf,
                             SHMEM_TEAM_NUM_CONTEXTS, &team_3);
    CHECK((team_2 != SHMEM_TEAM_INVALID) == (me % 2 == 0));
    CHECK((team_3 != SHMEM_TEAM_INVALID) == (me % 3 == 0));
    CHECK((shmem_team_create_ctx(team_2, 0, &ctx_2) == 0) == (me % 2 == 0));
    CHECK((shmem_team_create_ctx(team_3, 0, &ctx_3) == 0) == (me % 3 == 0));
    CHECK((ctx_2 == SHMEM_CTX_INVALID) == (me % 2 != 0));
    CHECK((ctx_3 == SHMEM_CTX_INVALID) == (me % 3 != 0));
    if (ctx_2 != SHMEM_CTX_INVALID)
        ring_put(team_2, ctx_2, &val_2);
    if (ctx_3 != SHMEM_CTX_INVALID)
        ring_put(team_3, ctx_3, &val_3);
    /* every PE, member or not */
    shmem_ctx_fence(ctx_2);
    shmem_ctx_fence(ctx_3);
    shmem_ctx_quiet(ctx_2);
    shmem_ctx_quiet(ctx_3);
    shmem_team_sync(SHMEM_TEAM_WORLD);
    check_ring(team_2, val_2);
    check_ring(team_3, val_3);
    shmem_ctx_destroy(ctx_2);
    shmem_ctx_destroy(ctx_3);
    shmem_team_destroy(team_2);
    shmem_team_destroy(team_3);
}

int main(void)
{
    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    check_routines();
    check_teams(shmem_my_pe(), shmem_n_pes());
    /* the program goes on after all of it: the default context still works */
    shmem_int_p(&val_2, 7, shmem_my_pe());
    shmem_quiet();
    CHECK(val_2 == 7);
    return check_pes_end("dp_ctx_invalid");
}
