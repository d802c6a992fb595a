/*
 * When a PE maps the heaps of the other PEs of its node (SHMEM_MAP_PEERS,
 * docs/env.md), and that every way of reaching an unmapped peer maps it
 * correctly, also from several threads at once.
 *
 *   heap_map_use first-use   after shmem_init and a barrier a PE maps few
 *                            peers (the next PE, the node's first PE and the
 *                            barrier's partners: at most 2 + 2 log2 N; the
 *                            node's first PE may map all of them); the
 *                            first put, get, atomic, put-with-signal or
 *                            shmem_ptr to the others maps them
 *   heap_map_use start       every peer is mapped once shmem_init returns
 *   heap_map_use mixed       no count (SHMEM_LOCAL_OFF_PES: some PEs reach
 *                            the others through the fabric)
 *
 * Every PE's data must arrive whatever maps it first: four threads
 * (SHMEM_THREAD_MULTIPLE) each add 1 to a counter on every PE at once, so
 * several threads race for the first mapping of each peer.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/check_pes.h"

#define THREADS 4

static long *counters; /* [npes]: counters[i] counts PE i's adds here */
static long *cells;    /* [npes]: PE i puts into cells[i] here */
static uint64_t *sigs; /* [npes]: PE i's signal here */

/* Mappings of other PEs' heaps in this process: the heap objects in
 * /proc/self/maps, less this PE's own. */
static int peer_heap_maps(void)
{
    char line[512];
    FILE *f = fopen("/proc/self/maps", "r");
    int n = 0;

    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f))
        n += strstr(line, "weft-") != NULL && strstr(line, "heap") != NULL;
    fclose(f);
    return n - 1;
}

static int log2_ceil(int n)
{
    int k = 0;

    while ((1 << k) < n)
        k++;
    return k;
}

static void *adder(void *arg)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();

    (void)arg;
    for (int i = 0; i < npes; i++)
        shmem_long_atomic_add(&counters[me], 1, (me + i) % npes);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, me, npes, before, after;
    const char *mode = argc > 1 ? argv[1] : "start";
    int first_use = strcmp(mode, "first-use") == 0;
    int counted = strcmp(mode, "mixed") != 0;
    pthread_t th[THREADS];

    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    check_set_pe(me, NULL);
    CHECK(provided == SHMEM_THREAD_MULTIPLE);
    counters = shmem_calloc((size_t)npes, sizeof(long));
    cells = shmem_calloc((size_t)npes, sizeof(long));
    sigs = shmem_calloc((size_t)npes, sizeof(uint64_t));
    shmem_barrier_all();

    before = peer_heap_maps();
    if (!counted)
        ;
    else if (first_use && shmem_team_my_pe(SHMEM_TEAM_SHARED) == 0)
        /* The node's first PE gathers the node's barrier where PEs
         * outnumber the cores (docs/design.md, decision 16): it may have
         * reached every PE of the node already. */
        CHECK_MSG(before >= 1, "%d peer heaps mapped after start-up",
                  before);
    else if (first_use)
        CHECK_MSG(before >= 1 && before <= 2 + 2 * log2_ceil(npes) &&
                      (npes < 16 || before < npes - 1),
                  "%d peer heaps mapped after start-up, %d PEs", before,
                  npes);
    else
        CHECK_MSG(before == npes - 1, "%d peer heaps mapped, %d PEs", before,
                  npes);

    /* Threads race for the first mapping of every peer. */
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, adder, NULL);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    shmem_barrier_all();
    for (int i = 0; i < npes; i++)
        CHECK_MSG(counters[i] == THREADS, "counter of PE %d: %ld", i,
                  counters[i]);

    /* A put-with-signal to the PE before this one, a put to the one two
     * after, a get from the one three after, shmem_ptr to the rest. */
    shmem_long_put_signal(&cells[me], &(long){1000 + me}, 1, &sigs[me], 1,
                          SHMEM_SIGNAL_SET, (me + npes - 1) % npes);
    shmem_long_p(&cells[me], 2000 + me, (me + 2) % npes);
    for (int i = 0; i < npes; i++) {
        long *p = shmem_ptr(counters, i);

        /* (a PE of SHMEM_LOCAL_OFF_PES maps nobody) */
        CHECK_MSG((p == NULL && !counted) || (p != NULL && p[me] == THREADS),
                  "shmem_ptr to PE %d", i);
    }
    CHECK(shmem_long_g(&counters[me], (me + 3) % npes) == THREADS);
    shmem_barrier_all();
    {
        int from = (me + 1) % npes;

        CHECK(sigs[from] == 1);
        if (npes != 3)
            CHECK_MSG(cells[from] == 1000 + from, "cell of PE %d: %ld", from,
                      cells[from]);
        from = (me + npes - 2) % npes;
        /* With 3 PEs both puts land in one cell, in either order. */
        CHECK_MSG(cells[from] == 2000 + from ||
                      (npes == 3 && cells[from] == 1000 + from),
                  "cell of PE %d: %ld", from, cells[from]);
    }
    after = peer_heap_maps();
    CHECK_MSG(!counted || after == npes - 1, "%d peer heaps mapped at the end, %d PEs",
              after, npes);
    if (me == 0)
        printf("peer heaps mapped: %d after start-up, %d at the end (%d PEs, "
               "%s)\n",
               before, after, npes, mode);
    shmem_free(sigs);
    shmem_free(cells);
    shmem_free(counters);
    return check_pes_end("heap_map_use");
}
