/*
 * Unit test of the symmetric heap allocator (src/core/heap/alloc.c), without
 * any PE: random alloc/free/resize sequences checked against a shadow model
 * of which grain belongs to which block, coalescing, alignment, exhaustion,
 * bad frees, and determinism (identical call sequences give identical
 * offsets, whatever the private memory addresses).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/heap/alloc.h"
#include "services/error.h"
#include "tests/common/check.h"

#define G SHMI_ALLOC_GRAIN

static void check_consistent(const shmi_alloc_t *a, const char *where)
{
    char msg[256];

    CHECK_MSG(shmi_alloc_check(a, msg, sizeof(msg)) == 0,
              "%s: allocator inconsistent: %s", where, msg);
}

/* A small deterministic generator (no dependence on libc's rand). */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* ---- shadow model -------------------------------------------------------- */

typedef struct live {
    size_t off, size; /* size: bytes owned per the model (rounded) */
} live_t;

typedef struct model {
    size_t region;
    int *owner; /* per grain: index+1 of the live block, 0 when free */
    live_t *live;
    size_t n_live, cap;
} model_t;

static void model_mark(model_t *m, size_t off, size_t size, int who)
{
    for (size_t g = off / G; g < (off + size) / G; g++) {
        CHECK_MSG(!(who && m->owner[g]), "overlap at grain %zu", g);
        m->owner[g] = who;
    }
}

static void model_add(model_t *m, size_t off, size_t size)
{
    if (m->n_live == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 256;
        m->live = realloc(m->live, m->cap * sizeof(*m->live));
    }
    m->live[m->n_live].off = off;
    m->live[m->n_live].size = size;
    m->n_live++;
    model_mark(m, off, size, 1);
}

static void model_remove(model_t *m, size_t i)
{
    model_mark(m, m->live[i].off, m->live[i].size, 0);
    m->live[i] = m->live[--m->n_live];
}

static size_t round_grain(size_t n)
{
    return (n + G - 1) / G * G;
}

/* One random step: alloc (with a random alignment), free or resize. */
static void random_step(shmi_alloc_t *a, model_t *m, uint64_t *rng,
                        size_t max_req)
{
    unsigned r = (unsigned)(rng_next(rng) % 100);

    if (r < 50 || m->n_live == 0) {
        size_t size = 1 + rng_next(rng) % max_req, off, bsz;
        size_t align = (r % 5 == 0) ? (size_t)1 << (rng_next(rng) % 13) : 0;
        int ret = shmi_alloc_alloc(a, size, align, &off);

        if (ret == 0) {
            CHECK(off + size <= m->region);
            CHECK(align == 0 || off % align == 0);
            CHECK(off % G == 0);
            CHECK(shmi_alloc_block_size(a, off, &bsz) == 0 && bsz >= size);
            model_add(m, off, bsz);
        } else {
            CHECK(ret == SHMI_ENOMEM);
        }
    } else if (r < 85) {
        size_t i = rng_next(rng) % m->n_live, len = 0;

        CHECK(shmi_alloc_free(a, m->live[i].off, &len) == 0);
        CHECK(len == m->live[i].size);
        model_remove(m, i);
    } else {
        size_t i = rng_next(rng) % m->n_live, rel, rel_len;
        size_t size = 1 + rng_next(rng) % max_req, off = m->live[i].off;
        int ret = shmi_alloc_resize(a, off, size, &rel, &rel_len);

        if (ret == 0) {
            size_t nsz = round_grain(size);
            CHECK(rel_len ==
                  (m->live[i].size > nsz ? m->live[i].size - nsz : 0));
            CHECK(rel_len == 0 || rel == off + nsz);
            model_remove(m, i);
            model_add(m, off, nsz);
        } else {
            CHECK(ret == SHMI_ENOMEM);
        }
    }
}

static void test_random(uint64_t seed, size_t region, size_t max_req, int steps)
{
    model_t m = {region, calloc(region / G, sizeof(int)), NULL, 0, 0};
    shmi_alloc_t *a;
    shmi_alloc_stats_t st;
    uint64_t rng = seed;

    CHECK(shmi_alloc_create(region, 1 << 16, &a) == 0);
    for (int i = 0; i < steps; i++) {
        random_step(a, &m, &rng, max_req);
        if (i % 997 == 0)
            check_consistent(a, "random");
    }
    check_consistent(a, "random end");
    shmi_alloc_get_stats(a, &st);
    {
        size_t used = 0;
        for (size_t i = 0; i < m.n_live; i++)
            used += m.live[i].size;
        CHECK(st.in_use == used && st.n_blocks == m.n_live);
    }
    while (m.n_live) {
        size_t len;
        CHECK(shmi_alloc_free(a, m.live[0].off, &len) == 0);
        model_remove(&m, 0);
    }
    /* Everything freed: complete coalescing leaves one block. */
    shmi_alloc_get_stats(a, &st);
    CHECK(st.in_use == 0 && st.n_free_blocks == 1 && st.largest_free == region);
    check_consistent(a, "random freed");
    shmi_alloc_destroy(a);
    free(m.owner);
    free(m.live);
}

static void test_coalesce(void)
{
    shmi_alloc_t *a;
    shmi_alloc_stats_t st;
    size_t o[4], len, n = 0, off;

    CHECK(shmi_alloc_create(64 * G, G, &a) == 0);
    for (int i = 0; i < 4; i++)
        CHECK(shmi_alloc_alloc(a, G, 0, &o[i]) == 0);
    CHECK(o[0] == 0 && o[1] == G && o[2] == 2 * G && o[3] == 3 * G);
    CHECK(shmi_alloc_free(a, o[0], &len) == 0);
    CHECK(shmi_alloc_free(a, o[2], &len) == 0);
    shmi_alloc_get_stats(a, &st);
    CHECK(st.n_free_blocks == 3);               /* [0], [2], [4..64) */
    CHECK(shmi_alloc_free(a, o[1], &len) == 0); /* merges both sides */
    shmi_alloc_get_stats(a, &st);
    CHECK(st.n_free_blocks == 2);
    CHECK(shmi_alloc_free(a, o[3], &len) == 0);
    shmi_alloc_get_stats(a, &st);
    CHECK(st.n_free_blocks == 1 && st.largest_free == 64 * G);
    check_consistent(a, "coalesce");

    /* Fill with grains, free every other one: half is free, but no block of
     * two grains exists; freeing the rest makes the whole region usable. */
    while (shmi_alloc_alloc(a, 1, 0, &off) == 0)
        n++;
    CHECK(n == 64);
    for (size_t i = 0; i < 64; i += 2)
        CHECK(shmi_alloc_free(a, i * G, &len) == 0);
    CHECK(shmi_alloc_alloc(a, 2 * G, 0, &off) == SHMI_ENOMEM);
    CHECK(shmi_alloc_alloc(a, G, 0, &off) == 0);
    CHECK(shmi_alloc_free(a, off, &len) == 0);
    for (size_t i = 1; i < 64; i += 2)
        CHECK(shmi_alloc_free(a, i * G, &len) == 0);
    CHECK(shmi_alloc_alloc(a, 64 * G, 0, &off) == 0 && off == 0);
    check_consistent(a, "coalesce 2");
    shmi_alloc_destroy(a);
}

static void test_alignment(void)
{
    shmi_alloc_t *a;
    size_t off, len, pad;

    CHECK(shmi_alloc_create((size_t)8 << 20, (size_t)1 << 20, &a) == 0);
    CHECK(shmi_alloc_alloc(a, 1, 0, &pad) == 0); /* misalign what follows */
    for (size_t al = 1; al <= ((size_t)1 << 20); al <<= 1) {
        CHECK(shmi_alloc_alloc(a, 3 * al + 1, al, &off) == 0);
        CHECK(off % al == 0);
        CHECK(shmi_alloc_free(a, off, &len) == 0);
        CHECK(shmi_alloc_alloc(a, 1, al, &off) == 0);
        CHECK(off % al == 0);
    }
    CHECK(shmi_alloc_alloc(a, 1, (size_t)2 << 20, &off) == SHMI_EINVAL);
    CHECK(shmi_alloc_alloc(a, 1, 96, &off) == SHMI_EINVAL);
    CHECK(shmi_alloc_alloc(a, 0, 0, &off) == SHMI_EINVAL);
    check_consistent(a, "alignment");
    shmi_alloc_destroy(a);
    CHECK(shmi_alloc_create(1 << 20, 100, &a) == SHMI_EINVAL);
}

static void test_exhaustion(void)
{
    size_t region = ((size_t)256 << 20) + ((size_t)1 << 20), off, off2, len;
    shmi_alloc_t *a;
    size_t n = 0;

    CHECK(shmi_alloc_create(region, 4096, &a) == 0);
    CHECK(shmi_alloc_alloc(a, region + 1, 0, &off) == SHMI_ENOMEM);
    CHECK(shmi_alloc_alloc(a, SIZE_MAX, 0, &off) == SHMI_ENOMEM);
    CHECK(shmi_alloc_alloc(a, SIZE_MAX - 10, 4096, &off) == SHMI_ENOMEM);
    /* The whole region is one allocation (the class rounding must not hide
     * the only block that fits). */
    CHECK(shmi_alloc_alloc(a, region, 0, &off) == 0 && off == 0);
    CHECK(shmi_alloc_alloc(a, 1, 0, &off2) == SHMI_ENOMEM);
    CHECK(shmi_alloc_free(a, off, &len) == 0 && len == region);
    CHECK(shmi_alloc_alloc(a, (size_t)256 << 20, 0, &off) == 0);
    CHECK(shmi_alloc_free(a, off, &len) == 0);
    while (shmi_alloc_alloc(a, 1000, 0, &off) == 0)
        n++;
    CHECK(n == region / 1024);
    check_consistent(a, "exhaustion");
    shmi_alloc_destroy(a);
}

static void test_bad_free_and_resize(void)
{
    shmi_alloc_t *a;
    size_t o1, o2, len, rel, rel_len;

    CHECK(shmi_alloc_create(1 << 20, 4096, &a) == 0);
    CHECK(shmi_alloc_alloc(a, 1000, 0, &o1) == 0);
    CHECK(shmi_alloc_free(a, o1 + G, &len) == SHMI_EINVAL);
    CHECK(shmi_alloc_free(a, 12345, &len) == SHMI_EINVAL);
    CHECK(shmi_alloc_free(a, o1, &len) == 0);
    CHECK(shmi_alloc_free(a, o1, &len) == SHMI_EINVAL); /* double free */

    CHECK(shmi_alloc_alloc(a, 1000, 0, &o1) == 0);
    /* Grows into the free space after it. */
    CHECK(shmi_alloc_resize(a, o1, 5000, &rel, &rel_len) == 0 && rel_len == 0);
    CHECK(shmi_alloc_block_size(a, o1, &len) == 0 && len == round_grain(5000));
    CHECK(shmi_alloc_alloc(a, 100, 0, &o2) == 0 && o2 == o1 + len);
    /* Blocked by o2 now. */
    CHECK(shmi_alloc_resize(a, o1, 6000, &rel, &rel_len) == SHMI_ENOMEM);
    CHECK(shmi_alloc_block_size(a, o1, &len) == 0 && len == round_grain(5000));
    /* Shrinks, giving back the tail; then can grow again into it. */
    CHECK(shmi_alloc_resize(a, o1, 100, &rel, &rel_len) == 0);
    CHECK(rel == o1 + 128 && rel_len == round_grain(5000) - 128);
    CHECK(shmi_alloc_resize(a, o1, 4000, &rel, &rel_len) == 0);
    CHECK(shmi_alloc_resize(a, o1 + G, 10, &rel, &rel_len) == SHMI_EINVAL);
    check_consistent(a, "resize");
    shmi_alloc_destroy(a);
}

/* Runs a fixed random sequence, recording every result; `noise` adds
 * private mallocs so that descriptors land at other addresses. */
static void record_sequence(uint64_t seed, int noise, size_t *out, int steps)
{
    shmi_alloc_t *a;
    size_t *live = calloc((size_t)steps, sizeof(size_t)), n = 0;
    void *junk[64] = {0};
    uint64_t rng = seed;

    CHECK(shmi_alloc_create((size_t)4 << 20, 4096, &a) == 0);
    for (int i = 0; i < steps; i++) {
        uint64_t r = rng_next(&rng);
        size_t off = SIZE_MAX, len;

        if (noise) {
            free(junk[i % 64]);
            junk[i % 64] = malloc(1 + (size_t)(r % 300));
        }
        if (r % 3 != 0 || n == 0) {
            size_t al = r % 7 == 0 ? (size_t)1 << (r % 12) : 0;
            if (shmi_alloc_alloc(a, 1 + (r >> 8) % 20000, al, &off) == 0)
                live[n++] = off;
        } else {
            size_t k = (size_t)(r >> 16) % n;
            off = live[k];
            CHECK(shmi_alloc_free(a, off, &len) == 0);
            live[k] = live[--n];
        }
        out[i] = off;
    }
    for (int i = 0; i < 64; i++)
        free(junk[i]);
    free(live);
    shmi_alloc_destroy(a);
}

static void test_determinism(void)
{
    enum { STEPS = 20000 };
    size_t *r1 = malloc(STEPS * sizeof(size_t));
    size_t *r2 = malloc(STEPS * sizeof(size_t));

    record_sequence(42, 0, r1, STEPS);
    record_sequence(42, 1, r2, STEPS);
    CHECK(memcmp(r1, r2, STEPS * sizeof(size_t)) == 0);
    free(r1);
    free(r2);
}

/* shmi_alloc_window: the user area starts at the first free block and the
 * region is cut at its end, so that no block can land past it. */
static void test_window(void)
{
    shmi_alloc_t *a;
    size_t o[3], lo = 1, hi = 1, len, off;
    shmi_alloc_stats_t st;

    CHECK(shmi_alloc_create(64 * G, G, &a) == 0);
    for (int i = 0; i < 3; i++)
        CHECK(shmi_alloc_alloc(a, G, 0, &o[i]) == 0);
    CHECK(shmi_alloc_free(a, o[1], &len) == 0); /* a hole at G */
    CHECK(shmi_alloc_window(a, 10 * G - 5, &lo, &hi) == 0);
    CHECK(lo == G && hi == 11 * G); /* want rounded up to the grain */
    check_consistent(a, "window");
    shmi_alloc_get_stats(a, &st);
    CHECK(st.size == 11 * G);
    /* the hole and [3G, 11G) are all that is left: 9 grains */
    CHECK(shmi_alloc_alloc(a, 8 * G, 0, &off) == 0 && off == 3 * G);
    CHECK(shmi_alloc_alloc(a, 2 * G, 0, &off) == SHMI_ENOMEM);
    CHECK(shmi_alloc_alloc(a, G, 0, &off) == 0 && off == G);
    CHECK(shmi_alloc_alloc(a, G, 0, &off) == SHMI_ENOMEM);
    check_consistent(a, "window full");
    shmi_alloc_destroy(a);

    /* more than the region holds: the window ends with it, nothing cut */
    CHECK(shmi_alloc_create(16 * G, G, &a) == 0);
    CHECK(shmi_alloc_alloc(a, G, 0, &off) == 0);
    CHECK(shmi_alloc_window(a, 100 * G, &lo, &hi) == 0);
    CHECK(lo == G && hi == 16 * G);
    check_consistent(a, "window whole");
    shmi_alloc_destroy(a);

    /* an allocated block past the end: refused, nothing changed */
    CHECK(shmi_alloc_create(16 * G, G, &a) == 0);
    CHECK(shmi_alloc_alloc(a, 8 * G, 0, &o[0]) == 0);
    CHECK(shmi_alloc_alloc(a, 8 * G, 0, &o[1]) == 0);
    CHECK(shmi_alloc_free(a, o[0], &len) == 0);
    CHECK(shmi_alloc_window(a, 2 * G, &lo, &hi) == SHMI_EINVAL);
    shmi_alloc_get_stats(a, &st);
    CHECK(st.size == 16 * G);
    check_consistent(a, "window refused");
    shmi_alloc_destroy(a);

    /* a window ending exactly where the last free block starts */
    CHECK(shmi_alloc_create(16 * G, G, &a) == 0);
    CHECK(shmi_alloc_alloc(a, 4 * G, 0, &off) == 0);
    CHECK(shmi_alloc_free(a, off, &len) == 0);
    CHECK(shmi_alloc_window(a, 0, &lo, &hi) == 0);
    CHECK(lo == 0 && hi == 0);
    CHECK(shmi_alloc_alloc(a, G, 0, &off) == SHMI_ENOMEM);
    check_consistent(a, "window empty");
    shmi_alloc_destroy(a);
}

int main(void)
{
    test_window();
    test_coalesce();
    test_alignment();
    test_exhaustion();
    test_bad_free_and_resize();
    test_determinism();
    test_random(1, (size_t)1 << 20, 4096, 100000);
    test_random(7, (size_t)16 << 20, (size_t)1 << 20, 50000);
    test_random(99, 64 * G, 300, 20000);
    return check_end("alloc_unit");
}
