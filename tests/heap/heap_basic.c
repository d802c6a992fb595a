/*
 * The collective allocation routines on several PEs: symmetry (data put at
 * p on the next PE lands at its p), reuse after free, zeroed new memory,
 * alignment, realloc keeping contents, calloc, NULL on every PE for size 0,
 * absurd sizes and exhaustion, and lazy reservation of large blocks.
 * Run with SHMEM_SYMMETRIC_SIZE=32m (the exhaustion part assumes a small
 * heap to stay quick).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/common/check_pes.h"

static int me, npes;

/* Puts a PE-specific pattern at p on the next PE and checks the one the
 * previous PE put here: proves p is the same symmetric object everywhere. */
static void check_symmetric(void *p, size_t len)
{
    int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    unsigned char *buf = malloc(len), *c = p;

    memset(buf, 0x40 + me, len);
    shmem_barrier_all();
    shmem_putmem(p, buf, len, next);
    shmem_barrier_all();
    CHECK(c[0] == 0x40 + prev && c[len - 1] == 0x40 + prev);
    free(buf);
}

static int all_zero(const void *p, size_t len)
{
    const unsigned char *c = p;

    for (size_t i = 0; i < len; i++)
        if (c[i])
            return 0;
    return 1;
}

static long resident_kib(void)
{
    long pages = 0, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");

    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &res) != 2)
            res = 0;
        fclose(f);
    }
    return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static void test_reuse_and_zero(void)
{
    char *p1 = shmem_malloc(1000), *p2;

    CHECK(p1 != NULL);
    if (!p1)
        return;
    CHECK(((uintptr_t)p1 & 63) == 0);
    CHECK(all_zero(p1, 1000));
    check_symmetric(p1, 1000);
    memset(p1, 0xab, 1000);
    shmem_free(p1);
    p2 = shmem_malloc(1000);
    CHECK(p2 == p1);           /* the freed block is reused */
    CHECK(all_zero(p2, 1000)); /* and reads as zero again */
    shmem_free(p2);
}

static void test_large_lazy(void)
{
    size_t big = (size_t)16 << 20;
    long before = resident_kib();
    char *p = shmem_malloc(big);

    CHECK(p != NULL);
    if (!p)
        return;
    /* Allocation touches no page. */
    CHECK(resident_kib() - before < 2048);
    p[0] = 1;
    p[big / 2] = 2;
    p[big - 1] = 3;
    check_symmetric(p + big - 4096, 4096);
    shmem_free(p);
    p = shmem_malloc(big);
    CHECK(p != NULL);
    if (p) {
        CHECK(p[0] == 0 && p[big / 2] == 0 && p[big - 1] == 0);
        CHECK(all_zero(p + big - 8192, 8192));
        shmem_free(p);
    }
}

static void test_align(void)
{
    for (size_t al = 1; al <= ((size_t)1 << 20); al <<= 1) {
        char *p = shmem_align(al, 100);

        CHECK(p != NULL && (uintptr_t)p % al == 0);
        if (p && al >= 4096)
            check_symmetric(p, 100);
        shmem_free(p);
    }
    CHECK(shmem_align(3, 100) == NULL);
    CHECK(shmem_align(0, 100) == NULL);
    CHECK(shmem_align(64, 0) == NULL);
}

static void test_realloc(void)
{
    unsigned char *p = shmem_malloc(100), *q, *blocker, *r;

    CHECK(p != NULL);
    if (!p)
        return;
    for (int i = 0; i < 100; i++)
        p[i] = (unsigned char)(i + me);
    q = shmem_realloc(p, 200);
    CHECK(q != NULL);
    if (!q)
        return;
    for (int i = 0; i < 100; i++)
        CHECK(q[i] == (unsigned char)(i + me));
    /* A block right after forces the next growth to move. */
    blocker = shmem_malloc(64);
    r = shmem_realloc(q, (size_t)4 << 20);
    CHECK(r != NULL && r != q);
    if (r) {
        int ok = 1;
        for (int i = 0; i < 100; i++)
            ok &= r[i] == (unsigned char)(i + me);
        CHECK(ok);
        check_symmetric(r + ((size_t)4 << 20) - 64, 64);
        q = shmem_realloc(r, 50); /* shrink in place */
        CHECK(q == r);
        for (int i = 0; i < 50; i++)
            CHECK(q[i] == (unsigned char)(i + me));
        /* The block that cannot be had leaves the old one unchanged. */
        CHECK(shmem_realloc(q, (size_t)1 << 40) == NULL);
        CHECK(q[10] == (unsigned char)(10 + me));
        CHECK(shmem_realloc(q, 0) == NULL); /* frees */
    }
    shmem_free(blocker);
    p = shmem_realloc(NULL, 300); /* as shmem_malloc */
    CHECK(p != NULL && all_zero(p, 300));
    shmem_free(p);
}

static void test_calloc(void)
{
    long *p = shmem_malloc(8000);

    if (p) {
        for (int i = 0; i < 1000; i++)
            p[i] = -1;
    }
    shmem_free(p);
    p = shmem_calloc(1000, sizeof(long));
    CHECK(p != NULL && all_zero(p, 1000 * sizeof(long)));
    if (p)
        check_symmetric(p, 8000);
    shmem_free(p);
    CHECK(shmem_calloc(0, 8) == NULL);
    CHECK(shmem_calloc(8, 0) == NULL);
    CHECK(shmem_calloc(SIZE_MAX / 2, 4) == NULL);
}

/* NULL on every PE alike: the counts of successful allocations agree. */
static void test_null_and_exhaustion(void)
{
    static long counts[256];
    enum { MAX = 4096 };
    void **blocks = calloc(MAX, sizeof(void *));
    long n = 0;

    CHECK(shmem_malloc(0) == NULL);
    CHECK(shmem_malloc(SIZE_MAX) == NULL);
    CHECK(shmem_malloc((size_t)1 << 50) == NULL);
    CHECK(shmem_malloc_with_hints(0, SHMEM_MALLOC_ATOMICS_REMOTE) == NULL);
    while (n < MAX && (blocks[n] = shmem_malloc((size_t)1 << 20)) != NULL)
        n++;
    CHECK(n >= 32 && n < MAX); /* at least SHMEM_SYMMETRIC_SIZE=32m */
    if (n < 32)
        fprintf(stderr, "PE %d: only %ld blocks of 1 MiB\n", me, n);
    shmem_long_p(&counts[me % 256], n, 0);
    shmem_barrier_all();
    if (me == 0)
        for (int pe = 1; pe < npes && pe < 256; pe++)
            CHECK(counts[pe] == counts[0]);
    while (n > 0)
        shmem_free(blocks[--n]);
    free(blocks);
    /* Everything came back: one block of the whole size fits again. */
    blocks = shmem_malloc((size_t)32 << 20);
    CHECK(blocks != NULL);
    shmem_free(blocks);
}

static void test_hints(void)
{
    long *p = shmem_malloc_with_hints(4096, SHMEM_MALLOC_ATOMICS_REMOTE |
                                                SHMEM_MALLOC_SIGNAL_REMOTE);

    CHECK(p != NULL);
    if (!p)
        return;
    shmem_long_atomic_add(p, me + 1, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK(*p == (long)npes * (npes + 1) / 2);
    shmem_free(p);
}

int main(void)
{
    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    test_reuse_and_zero();
    test_large_lazy();
    test_align();
    test_realloc();
    test_calloc();
    test_null_and_exhaustion();
    test_hints();
    return check_pes_end("heap_basic");
}
