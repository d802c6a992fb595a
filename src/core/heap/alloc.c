/*
 * The symmetric heap allocator (see alloc.h): TLSF-style two-level
 * segregated free lists over an address-ordered block list, with all
 * bookkeeping outside the managed region.
 *
 * Size classes: first level = position of the highest set bit, second level
 * = the next SL_BITS bits, so a class spans at most 1/16 of its sizes (at
 * most ~6% internal waste from the class rounding). Sizes below SMALL_SIZE
 * get one class per grain. A search rounds the request up to the next class
 * boundary, so that any block of the first non-empty class at or above it
 * fits: two bitmap lookups, O(1). When that fails, the classes between the
 * request's own class and the rounded one are scanned for a block that
 * happens to fit; this keeps "allocate (almost) everything" possible, which
 * users of a fixed-size symmetric heap do.
 */
#include "config.h"

#include "core/heap/alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "services/error.h"

#define GRAIN_SHIFT 6
#define SL_BITS     4
#define SL_COUNT    (1u << SL_BITS)
#define SMALL_SIZE  ((size_t)SL_COUNT << GRAIN_SHIFT) /* 1 KiB */
#define FL_COUNT    56 /* enough for any 64-bit size */

/* One block (allocated or free) of the managed region. */
typedef struct blk {
    size_t off;                /* first byte, offset in the region */
    size_t size;               /* bytes, a multiple of the grain */
    struct blk *prev, *next;   /* neighbours in address order */
    struct blk *fprev, *fnext; /* free-list links (free blocks) */
    struct blk *hnext;         /* hash chain (allocated blocks) */
    int is_free;
} blk_t;

struct shmi_alloc {
    size_t size;      /* bytes managed */
    size_t max_align; /* largest alignment honoured */
    blk_t *first;     /* block at offset 0 */

    uint64_t fl_map; /* bit f: some list of first level f is non-empty */
    uint32_t sl_map[FL_COUNT]; /* bit s: list (f, s) is non-empty */
    blk_t *heads[FL_COUNT][SL_COUNT];

    blk_t **buckets;  /* allocated blocks by offset */
    size_t n_buckets; /* a power of two */

    size_t in_use, n_blocks, n_free;
    blk_t *spare; /* recycled descriptors (linked by next) */
};

static int msb(size_t x)
{
    return 63 - __builtin_clzll((unsigned long long)x);
}

/* The class holding blocks of exactly `size` bytes. */
static void mapping_insert(size_t size, int *fl, int *sl)
{
    if (size < SMALL_SIZE) {
        *fl = 0;
        *sl = (int)(size >> GRAIN_SHIFT);
    } else {
        int m = msb(size);
        *fl = m - (SL_BITS + GRAIN_SHIFT) + 1;
        *sl = (int)((size >> (m - SL_BITS)) & (SL_COUNT - 1));
    }
}

/* The first class all of whose blocks are at least `size` bytes. */
static void mapping_search(size_t size, int *fl, int *sl)
{
    if (size >= SMALL_SIZE)
        size += ((size_t)1 << (msb(size) - SL_BITS)) - 1;
    mapping_insert(size, fl, sl);
}

static blk_t *desc_new(shmi_alloc_t *a)
{
    blk_t *b = a->spare;

    if (b) {
        a->spare = b->next;
    } else {
        b = malloc(sizeof(*b));
        /* Failing here on one PE only would break symmetry: stop the job. */
        if (!b)
            SHMI_FATAL("out of private memory for heap bookkeeping");
    }
    memset(b, 0, sizeof(*b));
    return b;
}

static void desc_release(shmi_alloc_t *a, blk_t *b)
{
    b->next = a->spare;
    a->spare = b;
}

/* ---- free lists ---------------------------------------------------------- */

static void free_insert(shmi_alloc_t *a, blk_t *b)
{
    int fl, sl;

    mapping_insert(b->size, &fl, &sl);
    b->is_free = 1;
    b->fprev = NULL;
    b->fnext = a->heads[fl][sl];
    if (b->fnext)
        b->fnext->fprev = b;
    a->heads[fl][sl] = b;
    a->fl_map |= (uint64_t)1 << fl;
    a->sl_map[fl] |= 1u << sl;
    a->n_free++;
}

static void free_remove(shmi_alloc_t *a, blk_t *b)
{
    int fl, sl;

    mapping_insert(b->size, &fl, &sl);
    if (b->fprev)
        b->fprev->fnext = b->fnext;
    else
        a->heads[fl][sl] = b->fnext;
    if (b->fnext)
        b->fnext->fprev = b->fprev;
    if (!a->heads[fl][sl]) {
        a->sl_map[fl] &= ~(1u << sl);
        if (!a->sl_map[fl])
            a->fl_map &= ~((uint64_t)1 << fl);
    }
    b->is_free = 0;
    b->fprev = b->fnext = NULL;
    a->n_free--;
}

/* Head of the first non-empty list at class (fl, sl) or above, or NULL. */
static blk_t *find_class(const shmi_alloc_t *a, int fl, int sl)
{
    uint32_t sm;
    uint64_t fm;

    if (fl >= FL_COUNT)
        return NULL;
    sm = a->sl_map[fl] & (~0u << sl);
    if (!sm) {
        fm = fl + 1 < FL_COUNT ? a->fl_map & (~(uint64_t)0 << (fl + 1)) : 0;
        if (!fm)
            return NULL;
        fl = __builtin_ctzll(fm);
        sm = a->sl_map[fl];
    }
    return a->heads[fl][__builtin_ctz(sm)];
}

static size_t align_up(size_t x, size_t align)
{
    return (x + align - 1) & ~(align - 1);
}

static int fits(const blk_t *b, size_t need, size_t align)
{
    size_t start = align_up(b->off, align);

    return start >= b->off && start - b->off <= b->size &&
           b->size - (start - b->off) >= need;
}

/* A free block that can hold need bytes at alignment align, or NULL. */
static blk_t *find_fit(const shmi_alloc_t *a, size_t need, size_t align)
{
    size_t worst = need + (align - SHMI_ALLOC_GRAIN);
    int fl, sl, lo_fl, lo_sl;
    blk_t *b;

    if (worst >= need && worst <= a->size) {
        mapping_search(worst, &fl, &sl);
        b = find_class(a, fl, sl);
        if (b)
            return b;
    } else {
        fl = FL_COUNT; /* nothing searched yet: scan every class */
        sl = 0;
    }
    /* Classes below the rounded one may still hold a block that fits. */
    mapping_insert(need, &lo_fl, &lo_sl);
    for (int f = lo_fl; f < FL_COUNT && f <= fl; f++) {
        for (int s = (f == lo_fl ? lo_sl : 0); s < (int)SL_COUNT; s++) {
            if (f == fl && s >= sl)
                return NULL;
            if (!(a->sl_map[f] & (1u << s)))
                continue;
            for (b = a->heads[f][s]; b; b = b->fnext)
                if (fits(b, need, align))
                    return b;
        }
    }
    return NULL;
}

/* ---- address-ordered list ------------------------------------------------ */

/* Splits b at b->off + at; returns the new block holding the upper part. */
static blk_t *split(shmi_alloc_t *a, blk_t *b, size_t at)
{
    blk_t *r = desc_new(a);

    r->off = b->off + at;
    r->size = b->size - at;
    b->size = at;
    r->prev = b;
    r->next = b->next;
    if (b->next)
        b->next->prev = r;
    b->next = r;
    return r;
}

/* Merges b->next into b and releases its descriptor. */
static void absorb_next(shmi_alloc_t *a, blk_t *b)
{
    blk_t *n = b->next;

    b->size += n->size;
    b->next = n->next;
    if (n->next)
        n->next->prev = b;
    desc_release(a, n);
}

/* ---- hash of allocated blocks -------------------------------------------- */

static size_t hash_slot(const shmi_alloc_t *a, size_t off)
{
    uint64_t k = (uint64_t)(off >> GRAIN_SHIFT) * 0x9E3779B97F4A7C15ull;

    return (size_t)(k >> 32) & (a->n_buckets - 1);
}

static void hash_grow(shmi_alloc_t *a)
{
    size_t old_n = a->n_buckets;
    blk_t **old = a->buckets;
    size_t n = old_n ? old_n * 2 : 64;
    blk_t **nb = calloc(n, sizeof(*nb));

    if (!nb)
        SHMI_FATAL("out of private memory for heap bookkeeping");
    a->buckets = nb;
    a->n_buckets = n;
    for (size_t i = 0; i < old_n; i++) {
        for (blk_t *b = old[i], *nx; b; b = nx) {
            size_t h = hash_slot(a, b->off);

            nx = b->hnext;
            b->hnext = nb[h];
            nb[h] = b;
        }
    }
    free(old);
}

static void hash_insert(shmi_alloc_t *a, blk_t *b)
{
    size_t h;

    if (a->n_blocks + 1 > a->n_buckets)
        hash_grow(a);
    h = hash_slot(a, b->off);
    b->hnext = a->buckets[h];
    a->buckets[h] = b;
}

static blk_t *hash_find(const shmi_alloc_t *a, size_t off)
{
    if (!a->n_buckets)
        return NULL;
    for (blk_t *b = a->buckets[hash_slot(a, off)]; b; b = b->hnext)
        if (b->off == off)
            return b;
    return NULL;
}

static void hash_remove(shmi_alloc_t *a, blk_t *b)
{
    blk_t **pp = &a->buckets[hash_slot(a, b->off)];

    while (*pp != b)
        pp = &(*pp)->hnext;
    *pp = b->hnext;
    b->hnext = NULL;
}

/* ---- public entry points ------------------------------------------------- */

int shmi_alloc_create(size_t size, size_t max_align, shmi_alloc_t **out)
{
    shmi_alloc_t *a;

    size &= ~(SHMI_ALLOC_GRAIN - 1);
    if (max_align < SHMI_ALLOC_GRAIN || (max_align & (max_align - 1)))
        return SHMI_EINVAL;
    a = calloc(1, sizeof(*a));
    if (!a)
        return SHMI_ENOMEM;
    a->size = size;
    a->max_align = max_align;
    if (size > 0) {
        a->first = desc_new(a);
        a->first->size = size;
        free_insert(a, a->first);
    }
    hash_grow(a);
    *out = a;
    return 0;
}

void shmi_alloc_destroy(shmi_alloc_t *a)
{
    blk_t *b, *n;

    if (!a)
        return;
    for (b = a->first; b; b = n) {
        n = b->next;
        free(b);
    }
    for (b = a->spare; b; b = n) {
        n = b->next;
        free(b);
    }
    free(a->buckets);
    free(a);
}

int shmi_alloc_alloc(shmi_alloc_t *a, size_t size, size_t align, size_t *off)
{
    size_t need, start;
    blk_t *b;

    if (size == 0 || (align & (align - 1)) || align > a->max_align)
        return SHMI_EINVAL;
    if (size > a->size)
        return SHMI_ENOMEM;
    if (align < SHMI_ALLOC_GRAIN)
        align = SHMI_ALLOC_GRAIN;
    need = align_up(size, SHMI_ALLOC_GRAIN);
    b = find_fit(a, need, align);
    if (!b)
        return SHMI_ENOMEM;
    free_remove(a, b);
    start = align_up(b->off, align);
    if (start > b->off) {
        /* The leading gap stays free; its left neighbour is not free. */
        blk_t *r = split(a, b, start - b->off);

        free_insert(a, b);
        b = r;
    }
    if (b->size > need)
        free_insert(a, split(a, b, need));
    hash_insert(a, b);
    a->in_use += b->size;
    a->n_blocks++;
    *off = b->off;
    return 0;
}

int shmi_alloc_free(shmi_alloc_t *a, size_t off, size_t *len)
{
    blk_t *b = hash_find(a, off);

    if (!b)
        return SHMI_EINVAL;
    hash_remove(a, b);
    *len = b->size;
    a->in_use -= b->size;
    a->n_blocks--;
    if (b->prev && b->prev->is_free) {
        b = b->prev;
        free_remove(a, b);
        absorb_next(a, b);
    }
    if (b->next && b->next->is_free) {
        free_remove(a, b->next);
        absorb_next(a, b);
    }
    free_insert(a, b);
    return 0;
}

int shmi_alloc_block_size(const shmi_alloc_t *a, size_t off, size_t *len)
{
    const blk_t *b = hash_find(a, off);

    if (!b)
        return SHMI_EINVAL;
    *len = b->size;
    return 0;
}

/* Gives back the tail of b beyond need bytes (merging it with a free right
 * neighbour). */
static void shrink(shmi_alloc_t *a, blk_t *b, size_t need)
{
    blk_t *n = b->next;
    size_t give = b->size - need;

    if (n && n->is_free) {
        free_remove(a, n);
        n->off -= give;
        n->size += give;
        b->size = need;
        free_insert(a, n);
    } else {
        free_insert(a, split(a, b, need));
    }
    a->in_use -= give;
}

/* Takes need - b->size bytes from b's free right neighbour, if it has them. */
static int grow(shmi_alloc_t *a, blk_t *b, size_t need)
{
    blk_t *n = b->next;
    size_t extra = need - b->size;

    if (!n || !n->is_free || n->size < extra)
        return SHMI_ENOMEM;
    free_remove(a, n);
    if (n->size == extra) {
        absorb_next(a, b);
    } else {
        n->off += extra;
        n->size -= extra;
        b->size = need;
        free_insert(a, n);
    }
    a->in_use += extra;
    return 0;
}

int shmi_alloc_resize(shmi_alloc_t *a, size_t off, size_t size,
                      size_t *released, size_t *released_len)
{
    blk_t *b = hash_find(a, off);
    size_t need;
    int ret;

    if (!b || size == 0)
        return SHMI_EINVAL;
    if (size > a->size)
        return SHMI_ENOMEM;
    need = align_up(size, SHMI_ALLOC_GRAIN);
    if (need > b->size) {
        ret = grow(a, b, need);
        if (ret)
            return ret;
        *released = b->off + b->size;
        *released_len = 0;
        return 0;
    }
    *released = b->off + need;
    *released_len = b->size - need;
    if (need < b->size)
        shrink(a, b, need);
    return 0;
}

int shmi_alloc_window(shmi_alloc_t *a, size_t want, size_t *lo, size_t *hi)
{
    blk_t *b = a->first, *last = NULL;
    size_t l = a->size, h;

    for (; b; b = b->next) {
        if (b->is_free && l == a->size)
            l = b->off;
        last = b;
    }
    h = want > a->size - l ? a->size : l + align_up(want, SHMI_ALLOC_GRAIN);
    if (h < a->size) {
        /* The tail [h, size) must be free to be given up. */
        if (!last || !last->is_free || last->off > h)
            return SHMI_EINVAL;
        free_remove(a, last);
        if (last->off == h) {
            if (last->prev)
                last->prev->next = NULL;
            else
                a->first = NULL;
            desc_release(a, last);
        } else {
            last->size = h - last->off;
            free_insert(a, last);
        }
        a->size = h;
    }
    *lo = l;
    *hi = h;
    return 0;
}

void shmi_alloc_get_stats(const shmi_alloc_t *a, shmi_alloc_stats_t *st)
{
    size_t largest = 0;

    if (a->fl_map) {
        int fl = msb(a->fl_map);
        int sl = 31 - __builtin_clz(a->sl_map[fl]);

        for (const blk_t *b = a->heads[fl][sl]; b; b = b->fnext)
            if (b->size > largest)
                largest = b->size;
    }
    st->size = a->size;
    st->in_use = a->in_use;
    st->n_blocks = a->n_blocks;
    st->largest_free = largest;
    st->n_free_blocks = a->n_free;
}

/* ---- consistency check --------------------------------------------------- */

static int check_lists(const shmi_alloc_t *a, char *msg, size_t msglen)
{
    size_t n = 0;

    for (int f = 0; f < FL_COUNT; f++) {
        for (int s = 0; s < (int)SL_COUNT; s++) {
            int bit = !!(a->sl_map[f] & (1u << s));

            if (bit != (a->heads[f][s] != NULL)) {
                snprintf(msg, msglen, "bitmap of class (%d,%d) wrong", f, s);
                return SHMI_EINVAL;
            }
            for (const blk_t *b = a->heads[f][s]; b; b = b->fnext, n++) {
                int bf, bs;

                mapping_insert(b->size, &bf, &bs);
                if (!b->is_free || bf != f || bs != s ||
                    (b->fnext && b->fnext->fprev != b)) {
                    snprintf(msg, msglen, "block at %zu misfiled", b->off);
                    return SHMI_EINVAL;
                }
            }
        }
        if (!!(a->fl_map & ((uint64_t)1 << f)) != (a->sl_map[f] != 0)) {
            snprintf(msg, msglen, "first-level bitmap bit %d wrong", f);
            return SHMI_EINVAL;
        }
    }
    if (n != a->n_free) {
        snprintf(msg, msglen, "%zu blocks in free lists, %zu counted", n,
                 a->n_free);
        return SHMI_EINVAL;
    }
    return 0;
}

int shmi_alloc_check(const shmi_alloc_t *a, char *msg, size_t msglen)
{
    size_t off = 0, used = 0, nused = 0, nfree = 0;

    for (const blk_t *b = a->first; b; b = b->next) {
        if (b->off != off || b->size == 0 || b->size % SHMI_ALLOC_GRAIN ||
            (b->next && b->next->prev != b)) {
            snprintf(msg, msglen, "address list broken at %zu", off);
            return SHMI_EINVAL;
        }
        if (b->is_free && b->next && b->next->is_free) {
            snprintf(msg, msglen, "adjacent free blocks at %zu", b->off);
            return SHMI_EINVAL;
        }
        if (b->is_free) {
            nfree++;
        } else {
            used += b->size;
            nused++;
            if (hash_find(a, b->off) != b) {
                snprintf(msg, msglen, "block at %zu not hashed", b->off);
                return SHMI_EINVAL;
            }
        }
        off += b->size;
    }
    if (off != a->size || used != a->in_use || nused != a->n_blocks ||
        nfree != a->n_free) {
        snprintf(msg, msglen,
                 "accounting: covered %zu of %zu, in use %zu vs %zu, "
                 "blocks %zu vs %zu, free %zu vs %zu",
                 off, a->size, used, a->in_use, nused, a->n_blocks, nfree,
                 a->n_free);
        return SHMI_EINVAL;
    }
    return check_lists(a, msg, msglen);
}
