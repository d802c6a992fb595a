/*
 * Barriers and syncs: shmem_barrier_all, shmem_sync_all, shmem_team_sync
 * and the deprecated active-set shmem_barrier / shmem_sync with a reused
 * pSync. Each round writes data before the barrier and checks it after,
 * so a barrier that lets a PE through early is caught.
 */
#include <string.h>

#include "tests/common/check_pes.h"

#define ROUNDS 200

static long counter;
static long slots[64];
static long psync[SHMEM_BARRIER_SYNC_SIZE];
static long psync2[SHMEM_BARRIER_SYNC_SIZE];

/* Every PE adds 1 to PE 0's counter, then barrier: PE 0 must see them all. */
static void check_barrier_all(int me, int n)
{
    for (int r = 0; r < ROUNDS; r++) {
        shmem_long_atomic_add(&counter, 1, 0);
        shmem_barrier_all();
        if (me == 0)
            CHECK(counter == (long)n * (r + 1));
        shmem_barrier_all();
    }
    /* Puts to the right neighbour complete at the barrier. */
    for (int r = 0; r < ROUNDS; r++) {
        shmem_long_p(&slots[me % 64], r, (me + 1) % n);
        shmem_barrier_all();
        CHECK(slots[(me + n - 1) % n % 64] == r);
        shmem_barrier_all();
    }
}

static void check_sync_all(int me, int n)
{
    for (int r = 0; r < ROUNDS; r++) {
        shmem_long_p(&slots[me % 64], 1000 + r, (me + 1) % n);
        shmem_quiet();
        shmem_sync_all();
        CHECK(slots[(me + n - 1) % n % 64] == 1000 + r);
        shmem_sync_all();
    }
}

/* Team sync on the even PEs and on the PEs of stride 3. */
static void check_team_sync(int me, int n)
{
    int strides[2] = {2, 3};

    for (int k = 0; k < 2; k++) {
        int st = strides[k], size = (n + st - 1) / st;
        shmem_team_t t;

        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, st, size, NULL, 0,
                                       &t) == 0);
        if (t != SHMEM_TEAM_INVALID) {
            int tme = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);
            int right =
                shmem_team_translate_pe(t, (tme + 1) % tn, SHMEM_TEAM_WORLD);
            for (int r = 0; r < ROUNDS; r++) {
                shmem_long_p(&slots[me % 64], 2000 + r, right);
                shmem_quiet();
                CHECK(shmem_team_sync(t) == 0);
                int left = shmem_team_translate_pe(t, (tme + tn - 1) % tn,
                                                   SHMEM_TEAM_WORLD);
                CHECK(slots[left % 64] == 2000 + r);
                CHECK(shmem_team_sync(t) == 0);
            }
            shmem_team_destroy(t);
        } else {
            CHECK(me % st != 0);
        }
        shmem_barrier_all();
    }
    CHECK(shmem_team_sync(SHMEM_TEAM_INVALID) != 0);
}

/* Active sets: all PEs, the even PEs (logPE_stride 1), reusing pSync. */
static void check_active_set(int me, int n)
{
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psync[i] = psync2[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    for (int r = 0; r < ROUNDS; r++) {
        shmem_long_atomic_add(&counter, 1, 0);
        shmem_barrier(0, 0, n, psync);
        if (me == 0)
            CHECK(counter == (long)n * (ROUNDS + r + 1));
        shmem_barrier(0, 0, n, psync);
    }
    if (me % 2 == 0) {
        int size = (n + 1) / 2;
        for (int r = 0; r < ROUNDS; r++) {
            int right = (me + 2) % (2 * size);
            shmem_long_p(&slots[me % 64], 3000 + r, right);
            shmem_barrier(0, 1, size, psync2);
            int left = (me + 2 * size - 2) % (2 * size);
            CHECK(slots[left % 64] == 3000 + r);
            shmem_quiet();
            shmem_sync(0, 1, size, psync2);
        }
    }
    shmem_barrier_all();
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++) {
        CHECK(psync[i] == SHMEM_SYNC_VALUE);
        CHECK(psync2[i] == SHMEM_SYNC_VALUE);
    }
}

int main(void)
{
    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    int me = shmem_my_pe(), n = shmem_n_pes();

    check_barrier_all(me, n);
    check_sync_all(me, n);
    check_team_sync(me, n);
    check_active_set(me, n);
    return check_pes_end("coll_barrier");
}
