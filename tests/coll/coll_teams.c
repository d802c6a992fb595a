/*
 * Teams: predefined teams, strided splits (positive, negative and zero
 * strides), 2-D splits, nested teams, translation, configuration, contexts
 * on teams, slot reuse over many create/destroy cycles, and the error paths
 * of SHMEM_TEAM_INVALID.
 */
#include <string.h>

#include "tests/common/check_pes.h"

static long dst[64];
static int ival, ires;

/* Team PE i must be world PE expect(i); checks translation both ways and a
 * sum reduction of the world numbers over the team. */
static void check_team(shmem_team_t t, int me, int size,
                       int (*expect)(int, int), int arg)
{
    long sum = 0;

    CHECK(shmem_team_n_pes(t) == size);
    CHECK(shmem_team_translate_pe(t, shmem_team_my_pe(t), SHMEM_TEAM_WORLD) ==
          me);
    for (int i = 0; i < size; i++) {
        CHECK(shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD) ==
              expect(i, arg));
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, expect(i, arg), t) ==
              i);
        sum += expect(i, arg);
    }
    CHECK(shmem_team_translate_pe(t, size, SHMEM_TEAM_WORLD) == -1);
    CHECK(shmem_team_translate_pe(t, -1, SHMEM_TEAM_WORLD) == -1);
    ival = me;
    CHECK(shmem_int_sum_reduce(t, &ires, &ival, 1) == 0);
    CHECK(ires == sum);
}

static int strided(int i, int st)
{
    return i * st;
}
static int reversed(int i, int n)
{
    return n - 1 - i;
}

static void check_strided(int me, int n)
{
    for (int st = 1; st <= 3; st++) {
        int size = (n + st - 1) / st;
        shmem_team_t t;

        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, st, size, NULL, 0,
                                       &t) == 0);
        if (me % st == 0) {
            CHECK(t != SHMEM_TEAM_INVALID);
            CHECK(shmem_team_my_pe(t) == me / st);
            check_team(t, me, size, strided, st);
            shmem_team_destroy(t);
        } else {
            CHECK(t == SHMEM_TEAM_INVALID);
        }
    }
    /* Negative stride: the world in reverse order. */
    shmem_team_t r;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0,
                                   &r) == 0);
    CHECK(shmem_team_my_pe(r) == n - 1 - me);
    check_team(r, me, n, reversed, n);
    shmem_team_destroy(r);
    /* Stride 0 with size 1: just the last PE. */
    shmem_team_t one;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, 0, 1, NULL, 0,
                                   &one) == 0);
    CHECK((one != SHMEM_TEAM_INVALID) == (me == n - 1));
    if (one != SHMEM_TEAM_INVALID) {
        CHECK(shmem_team_my_pe(one) == 0 && shmem_team_n_pes(one) == 1);
        shmem_team_destroy(one);
    }
}

static void check_invalid_splits(int n)
{
    shmem_team_t t = SHMEM_TEAM_WORLD;

    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n + 1, NULL, 0,
                                   &t) != 0);
    CHECK(t == SHMEM_TEAM_INVALID);
    t = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 0, NULL, 0, &t) !=
          0);
    CHECK(t == SHMEM_TEAM_INVALID);
    t = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) !=
          0);
    CHECK(t == SHMEM_TEAM_INVALID);
    shmem_team_t x = SHMEM_TEAM_WORLD, y = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_INVALID, 2, NULL, 0, &x, NULL, 0,
                              &y) != 0);
    CHECK(x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID);
    CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1);
    CHECK(shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD) ==
          -1);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID) ==
          -1);
    shmem_team_config_t cfg;
    CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS,
                                &cfg) != 0);
    shmem_ctx_t ctx;
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx) != 0);
    CHECK(ctx == SHMEM_CTX_INVALID);
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0);
    CHECK(t == SHMEM_TEAM_INVALID);
    CHECK(shmem_int_sum_reduce(SHMEM_TEAM_INVALID, &ires, &ival, 1) != 0);
    CHECK(shmem_team_sync(SHMEM_TEAM_INVALID) != 0);
    shmem_team_destroy(SHMEM_TEAM_INVALID); /* a no-op */
}

static void check_2d(int me, int n)
{
    int xr[4] = {1, 2, 3, n + 1};

    for (int k = 0; k < 4; k++) {
        int xrange = xr[k], xeff = xrange > n ? n : xrange;
        shmem_team_t x, y;
        shmem_team_config_t cfg = {.num_contexts = 2};

        CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, &cfg,
                                  SHMEM_TEAM_NUM_CONTEXTS, &x, NULL, 0,
                                  &y) == 0);
        CHECK(shmem_team_my_pe(x) == me % xeff);
        CHECK(shmem_team_my_pe(y) == me / xeff);
        int row = me / xeff, col = me % xeff;
        int xsize = (row + 1) * xeff <= n ? xeff : n - row * xeff;
        int ysize = (n - col + xeff - 1) / xeff;
        CHECK(shmem_team_n_pes(x) == xsize);
        CHECK(shmem_team_n_pes(y) == ysize);
        CHECK(shmem_team_translate_pe(x, 0, SHMEM_TEAM_WORLD) == row * xeff);
        CHECK(shmem_team_translate_pe(y, 0, SHMEM_TEAM_WORLD) == col);
        shmem_team_config_t got = {.num_contexts = -1};
        CHECK(shmem_team_get_config(x, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0);
        CHECK(got.num_contexts == 2);
        /* Sum over x of the world numbers: a row of the grid. */
        long expect = 0;
        for (int i = 0; i < xsize; i++)
            expect += row * xeff + i;
        ival = me;
        CHECK(shmem_int_sum_reduce(x, &ires, &ival, 1) == 0);
        CHECK(ires == expect);
        expect = 0;
        for (int j = 0; j < ysize; j++)
            expect += col + j * xeff;
        CHECK(shmem_int_sum_reduce(y, &ires, &ival, 1) == 0);
        CHECK(ires == expect);
        shmem_team_destroy(x);
        shmem_team_destroy(y);
    }
}

static int nested4(int i, int unused)
{
    (void)unused;
    return 4 * i;
}

/* The even PEs, then the even members of that team (multiples of 4), then a
 * context on the nested team addressing PEs by team number. */
static void check_nested(int me, int n)
{
    shmem_team_t ev, q;

    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0,
                                   &ev) == 0);
    if (ev != SHMEM_TEAM_INVALID) {
        int en = shmem_team_n_pes(ev);
        CHECK(shmem_team_split_strided(ev, 0, 2, (en + 1) / 2, NULL, 0, &q) ==
              0);
        CHECK((q != SHMEM_TEAM_INVALID) == (me % 4 == 0));
        if (q != SHMEM_TEAM_INVALID) {
            int qn = shmem_team_n_pes(q), qme = shmem_team_my_pe(q);
            check_team(q, me, qn, nested4, 0);
            CHECK(shmem_team_translate_pe(q, qme, ev) == me / 2);
            shmem_ctx_t ctx;
            shmem_team_t back;
            if (shmem_team_create_ctx(q, 0, &ctx) == 0) {
                CHECK(shmem_ctx_get_team(ctx, &back) == 0 && back == q);
                shmem_ctx_long_p(ctx, &dst[0], 100 + qme, (qme + 1) % qn);
                shmem_ctx_quiet(ctx);
                shmem_team_sync(q);
                CHECK(dst[0] == 100 + (qme + qn - 1) % qn);
                shmem_team_sync(q);
                shmem_ctx_destroy(ctx);
            } else {
                CHECK(!"shmem_team_create_ctx failed");
            }
            shmem_team_destroy(q);
        }
        shmem_team_destroy(ev);
    }
    shmem_team_t back;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &back) == 0);
    CHECK(back == SHMEM_TEAM_WORLD);
}

/* More create/destroy cycles than there are team slots. */
static void check_reuse(int me, int n)
{
    for (int i = 0; i < 100; i++) {
        shmem_team_t t;
        int st = 1 + i % 2;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, st,
                                       (n + st - 1) / st, NULL, 0, &t) == 0);
        if (t != SHMEM_TEAM_INVALID) {
            ival = 1;
            CHECK(shmem_int_sum_reduce(t, &ires, &ival, 1) == 0);
            CHECK(ires == shmem_team_n_pes(t));
            shmem_team_destroy(t);
        } else {
            CHECK(me % st != 0);
        }
    }
}

static void check_predefined(int me, int n)
{
    CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me);
    CHECK(shmem_team_n_pes(SHMEM_TEAM_WORLD) == n);
    int sn = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    int sme = shmem_team_my_pe(SHMEM_TEAM_SHARED);
    CHECK(sn >= 1 && sn <= n && sme >= 0 && sme < sn);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_SHARED, sme, SHMEM_TEAM_WORLD) ==
          me);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, SHMEM_TEAM_SHARED) ==
          sme);
    ival = 1;
    CHECK(shmem_int_sum_reduce(SHMEM_TEAM_SHARED, &ires, &ival, 1) == 0);
    CHECK(ires == sn);
    shmem_team_config_t cfg = {.num_contexts = 7};
    CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS,
                                &cfg) == 0);
    CHECK(cfg.num_contexts == 0);
}

int main(void)
{
    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    int me = shmem_my_pe(), n = shmem_n_pes();

    check_predefined(me, n);
    check_strided(me, n);
    check_invalid_splits(n);
    check_2d(me, n);
    check_nested(me, n);
    check_reuse(me, n);
    return check_pes_end("coll_teams");
}
