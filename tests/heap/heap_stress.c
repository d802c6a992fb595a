/*
 * A random sequence of collective allocations (malloc, calloc, align,
 * realloc, free), the same on every PE (shared seed), on a small heap so
 * that exhaustion happens too. After each step every live block is checked:
 * its contents survived (realloc included), a put to the next PE lands in
 * the same block there (symmetry), new memory reads as zero, and failures
 * (NULL) agree between PEs.
 * Usage: heap_stress [STEPS] (run with SHMEM_SYMMETRIC_SIZE=2m: the heap
 * fills up now and then).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/check_pes.h"

#define SLOTS 24

typedef struct block {
    unsigned char *p;
    size_t size;
    unsigned char tag; /* pattern byte this PE wrote into its own block */
} block_t;

static int me, npes;
static block_t blk[SLOTS];
static long null_count[1024]; /* per PE: allocations that returned NULL */

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* The first half of a block holds this PE's tag; the second half what the
 * previous PE put (its rank + 1). */
static void fill(block_t *b, unsigned char tag)
{
    size_t half = b->size / 2;

    b->tag = tag;
    memset(b->p, tag, half);
    shmem_barrier_all();
    if (b->size - half > 0) {
        unsigned char v = (unsigned char)(me + 1);
        unsigned char *src = malloc(b->size - half);

        memset(src, v, b->size - half);
        shmem_putmem(b->p + half, src, b->size - half, (me + 1) % npes);
        free(src);
    }
    shmem_barrier_all();
}

static void verify(const block_t *b)
{
    size_t half = b->size / 2;
    unsigned char from = (unsigned char)((me + npes - 1) % npes + 1);
    int ok = 1;

    for (size_t i = 0; i < half; i++)
        ok &= b->p[i] == b->tag;
    for (size_t i = half; i < b->size; i++)
        ok &= b->p[i] == from;
    CHECK(ok);
}

static void step(uint64_t *rng, int i)
{
    uint64_t r = rng_next(rng);
    int s = (int)(r % SLOTS);
    size_t size = 1 + (size_t)((r >> 8) % (r & 1 ? 1500000 : 5000));
    block_t *b = &blk[s];

    if (b->p && (r >> 40) % 3 == 0) {
        shmem_free(b->p);
        b->p = NULL;
        return;
    }
    if (b->p) {
        unsigned char *q = shmem_realloc(b->p, size);
        size_t keep = size < b->size ? size : b->size;

        if (!q) {
            null_count[me]++;
            verify(b); /* unchanged */
            return;
        }
        b->p = q;
        /* The kept prefix is intact; then refill for the next checks. */
        for (size_t k = 0; k < keep && k < b->size / 2; k++)
            CHECK(q[k] == b->tag);
        b->size = size;
    } else {
        switch ((r >> 20) % 3) {
        case 0: b->p = shmem_malloc(size); break;
        case 1: b->p = shmem_calloc(size, 1); break;
        default: {
            size_t al = (size_t)1 << ((r >> 24) % 16);
            b->p = shmem_align(al, size);
            CHECK(!b->p || (uintptr_t)b->p % al == 0);
        }
        }
        if (!b->p) {
            null_count[me]++;
            return;
        }
        b->size = size;
        CHECK(all_zero(b->p, size));
    }
    fill(b, (unsigned char)(0x80 | (i & 0x7f)));
    verify(b);
    if (i % 16 == 0)
        for (int k = 0; k < SLOTS; k++)
            if (blk[k].p)
                verify(&blk[k]);
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 400;
    uint64_t rng = 0x9e3779b97f4a7c15ull;

    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (int i = 0; i < steps; i++)
        step(&rng, i);
    for (int k = 0; k < SLOTS; k++)
        shmem_free(blk[k].p);
    /* The same calls failed on every PE. */
    shmem_barrier_all();
    if (me < 1024 && me > 0)
        shmem_long_p(&null_count[me], null_count[me], 0);
    shmem_barrier_all();
    if (me == 0) {
        for (int pe = 1; pe < npes && pe < 1024; pe++)
            CHECK(null_count[pe] == null_count[0]);
        printf("heap_stress: %d steps, %ld allocations returned NULL\n", steps,
               null_count[0]);
    }
    return check_pes_end("heap_stress");
}
