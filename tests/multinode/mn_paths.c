/*
 * Path choice across nodes (docs/design.md, decision 4): a PE on this node is
 * reached by load/store, a PE on another node through libfabric, with no
 * setting from the user. Node identity comes from the hostnames of the
 * simulated nodes, so Weft's view of locality is checked against the
 * operating system's:
 *   - shmem_ptr(heap word, pe) is non-NULL exactly for PEs on this host,
 *     and so is shmem_ptr(global, pe) unless SHMEM_DATA_REMAP=0;
 *   - SHMEM_TEAM_SHARED holds exactly the PEs of this host;
 *   - every PE is accessible, and data written over either path reads
 *     back right (through shmem_get, and through the pointer on node).
 * Usage: mn_paths [-N nodes]   (-N: the number of hosts the job must span)
 */
#include <stdint.h>

#include "mn_test.h"

#define SLOTS 64

static long global_word = -1;

/* What PE `from` writes into slot `from` of PE `to`. */
static long pattern(int from, int to, int k)
{
    return ((long)from << 32) ^ ((long)to << 16) ^ (k * 7919L);
}

static void check_pointers(const char *hosts, long *heap_word, int *n_same)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    const char *remap = getenv("SHMEM_DATA_REMAP");
    int data_shared = !(remap && (remap[0] == '0' || remap[0] == 'n' ||
                                  remap[0] == 'f' || !strcmp(remap, "off")));

    *n_same = 0;
    for (int pe = 0; pe < npes; pe++) {
        int same = mn_same_host(hosts, me, pe);
        void *hp = shmem_ptr(heap_word, pe), *dp = shmem_ptr(&global_word, pe);

        *n_same += same;
        CHECK(shmem_pe_accessible(pe));
        CHECK(shmem_addr_accessible(heap_word, pe));
        if (same != (hp != NULL))
            fprintf(stderr, "PE %d (%s): shmem_ptr(heap, PE %d on %s) = %p\n",
                    me, mn_host, pe, hosts + (size_t)pe * MN_HOST_LEN, hp);
        CHECK(same == (hp != NULL));
        if (pe == me)
            CHECK(hp == heap_word && dp == &global_word);
        if (dp && !same)
            fprintf(stderr, "PE %d: shmem_ptr(global, PE %d) = %p off node\n",
                    me, pe, dp);
        CHECK(!(dp && !same));
        if (data_shared)
            CHECK(same == (dp != NULL));
    }
}

static void check_team_shared(const char *hosts, int n_same)
{
    int me = shmem_my_pe(), npes = shmem_n_pes(), members = 0;
    int n = shmem_team_n_pes(SHMEM_TEAM_SHARED);

    CHECK(n == n_same);
    for (int i = 0; i < n; i++) {
        int w = shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD);

        CHECK(w >= 0 && w < npes && mn_same_host(hosts, me, w));
    }
    for (int pe = 0; pe < npes; pe++) {
        int t =
            shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED);

        CHECK((t >= 0) == mn_same_host(hosts, me, pe));
        members += t >= 0;
    }
    CHECK(members == n_same);
}

/* Each PE puts a pattern into its slot on every PE, then reads every
 * PE's slots back with shmem_get, and with plain loads where it may. */
static void check_data(long *slots)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long mine[SLOTS], back[SLOTS];

    for (int pe = 0; pe < npes; pe++) {
        for (int k = 0; k < SLOTS; k++)
            mine[k] = pattern(me, pe, k);
        shmem_long_put(slots + (size_t)me * SLOTS, mine, SLOTS, pe);
    }
    shmem_long_p(&global_word, pattern(me, me, 0), me);
    shmem_barrier_all();
    for (int k = 0; k < npes * SLOTS; k++)
        CHECK(slots[k] == pattern(k / SLOTS, me, k % SLOTS));
    for (int pe = 0; pe < npes; pe++) {
        const long *p = shmem_ptr(slots, pe);

        shmem_long_get(back, slots + (size_t)me * SLOTS, SLOTS, pe);
        for (int k = 0; k < SLOTS; k++)
            CHECK(back[k] == pattern(me, pe, k));
        CHECK(shmem_long_g(&global_word, pe) == pattern(pe, pe, 0));
        if (p)
            for (int k = 0; k < SLOTS; k++)
                CHECK(p[(size_t)me * SLOTS + k] == pattern(me, pe, k));
    }
}

int main(int argc, char **argv)
{
    int want_nodes = 0, nodes, n_same;
    char *hosts;
    long *heap_word, *slots;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-N") && i + 1 < argc) {
            want_nodes = (int)mn_arg("-N", argv[++i], 1);
        } else {
            fprintf(stderr, "usage: mn_paths [-N nodes]\n");
            return 2;
        }
    }
    shmem_init();
    hosts = shmem_calloc((size_t)shmem_n_pes(), MN_HOST_LEN);
    heap_word = shmem_calloc(1, sizeof(long));
    slots = shmem_calloc((size_t)shmem_n_pes() * SLOTS, sizeof(long));
    if (!hosts || !heap_word || !slots) {
        fprintf(stderr, "shmem_calloc failed\n");
        shmem_global_exit(1);
    }
    nodes = mn_gather_hosts(hosts);
    if (want_nodes && nodes != want_nodes)
        fprintf(stderr, "PE %d: the job spans %d hosts, not %d\n",
                shmem_my_pe(), nodes, want_nodes);
    CHECK(!want_nodes || nodes == want_nodes);
    check_pointers(hosts, heap_word, &n_same);
    check_team_shared(hosts, n_same);
    check_data(slots);
    printf("PE %d on %s: %d PEs by load/store, %d through the fabric\n",
           shmem_my_pe(), mn_host, n_same - 1, shmem_n_pes() - n_same);
    return check_pes_end("mn_paths");
}
