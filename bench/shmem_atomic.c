/*
 * SHMEM atomic latency, PE 0 on a word of PE 1 (OSU style), microseconds:
 *   fetch_add     shmem_uint64_atomic_fetch_add
 *   compare_swap  shmem_uint64_atomic_compare_swap
 *   add_quiet     shmem_uint64_atomic_add + shmem_quiet
 */
#include <shmem.h>
#include <stdint.h>

#include "bench_util.h"

typedef uint64_t (*amo_fn)(uint64_t *word, uint64_t i);

static uint64_t do_fetch_add(uint64_t *word, uint64_t i)
{
    return shmem_uint64_atomic_fetch_add(word, 1, 1) + i;
}

static uint64_t do_compare_swap(uint64_t *word, uint64_t i)
{
    return shmem_uint64_atomic_compare_swap(word, i, i + 1, 1);
}

static uint64_t do_add_quiet(uint64_t *word, uint64_t i)
{
    shmem_uint64_atomic_add(word, 1, 1);
    shmem_quiet();
    return i;
}

static void bench_amo(const bench_opts_t *o, const char *name, amo_fn fn,
                      uint64_t *word, int me)
{
    volatile uint64_t sink = 0;
    double t;

    bench_header(o, name, "us");
    *word = 0;
    shmem_barrier_all();
    if (me == 0) {
        uint64_t i = 0;

        for (long k = 0; k < o->warmup; k++, i++)
            sink += fn(word, i);
        t = bench_now();
        for (long k = 0; k < o->iters; k++, i++)
            sink += fn(word, i);
        t = bench_now() - t;
        bench_row(o, name, "us", 8, 1e6 * t / (double)o->iters);
    }
    shmem_barrier_all();
    (void)sink;
}

int main(int argc, char **argv)
{
    bench_opts_t o = bench_parse(argc, argv, 8);
    uint64_t *word;
    int me;

    shmem_init();
    me = shmem_my_pe();
    o.print = me == 0;
    if (shmem_n_pes() < 2) {
        if (me == 0)
            fprintf(stderr, "shmem_atomic needs at least 2 PEs\n");
        shmem_finalize();
        return 2;
    }
    word = shmem_calloc(1, sizeof(*word));
    if (!word)
        shmem_global_exit(1);
    if (bench_selected(&o, "fetch_add"))
        bench_amo(&o, "fetch_add", do_fetch_add, word, me);
    if (bench_selected(&o, "compare_swap"))
        bench_amo(&o, "compare_swap", do_compare_swap, word, me);
    if (bench_selected(&o, "add_quiet"))
        bench_amo(&o, "add_quiet", do_add_quiet, word, me);
    shmem_free(word);
    shmem_finalize();
    return 0;
}
