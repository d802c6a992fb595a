/*
 * Atomic coherence across nodes (docs/design.md, decision 6). Every PE updates
 * the same words of one target PE: the PEs on the target's node by
 * load/store (CPU atomics on the mapped heap), the others through
 * libfabric, whose software atomics (tcp;ofi_rxm) are applied in the
 * target process. No update may be lost or applied twice:
 *   add       atomic_add / atomic_inc (half on a second context): exact total
 *   fadd      fetch_add / fetch_inc: every value 0..total-1 fetched once
 *   cas       increment by compare_swap: every old value claimed once
 *   mixed     add, fetch_add and compare_swap on one word: exact total
 *   int       32-bit fetch_add / add: exact total
 *   ptr       on-node PEs __atomic_fetch_add through shmem_ptr, off-node
 *             PEs shmem_atomic_add: exact total
 *   swap      every PE swaps in unique values: what was swapped out, plus
 *             the final value, is exactly what was swapped in, plus 0
 * The target is PE 0, then the last PE (another node under block
 * placement). Usage: coherence [-i iterations] [-N nodes]
 */
#include <stdint.h>

#include "mn_test.h"

enum { W_ADD, W_FADD, W_CAS, W_MIXED, W_PTR, W_SWAP, W_COUNT };

struct words {
    long w[W_COUNT];
    int w_int;
};

/* Results of one phase, gathered on the checking PE (PE 0). */
struct records {
    long *fadd, *cas, *swap; /* npes * iters each, symmetric */
};

static long iters = 400;

static long cas_increment(shmem_ctx_t ctx, long *word, int target)
{
    long old = shmem_ctx_long_atomic_fetch(ctx, word, target), seen;
    unsigned round = 0;

    while ((seen = shmem_ctx_long_atomic_compare_swap(ctx, word, old, old + 1,
                                                      target)) != old) {
        old = seen;
        mn_backoff(&round);
    }
    return old;
}

static void update_once(struct words *s, long i, int target, shmem_ctx_t ctx,
                        long *mine)
{
    long *pw = shmem_ptr(&s->w[W_PTR], target);
    long me = shmem_my_pe();

    if (i & 1)
        shmem_ctx_long_atomic_add(ctx, &s->w[W_ADD], 1, target);
    else
        shmem_long_atomic_inc(&s->w[W_ADD], target);
    mine[0] = (i & 1)
                  ? shmem_long_atomic_fetch_add(&s->w[W_FADD], 1, target)
                  : shmem_ctx_long_atomic_fetch_inc(ctx, &s->w[W_FADD], target);
    mine[1] =
        cas_increment(i & 1 ? ctx : SHMEM_CTX_DEFAULT, &s->w[W_CAS], target);
    switch (i % 3) {
    case 0: shmem_long_atomic_add(&s->w[W_MIXED], 1, target); break;
    case 1: (void)shmem_long_atomic_fetch_add(&s->w[W_MIXED], 1, target); break;
    default: (void)cas_increment(SHMEM_CTX_DEFAULT, &s->w[W_MIXED], target);
    }
    if (i & 1)
        shmem_int_atomic_add(&s->w_int, 1, target);
    else
        CHECK(shmem_int_atomic_fetch_add(&s->w_int, 1, target) >= 0);
    if (pw)
        __atomic_fetch_add(pw, 1, __ATOMIC_SEQ_CST);
    else
        shmem_long_atomic_add(&s->w[W_PTR], 1, target);
    mine[2] =
        shmem_long_atomic_swap(&s->w[W_SWAP], ((me + 1) << 32) | i, target);
}

/* Every value 0..n-1 appears exactly once in v. */
static int is_permutation(const long *v, long n, const char *what)
{
    char *seen = calloc((size_t)n, 1);
    long bad = 0;

    if (!seen)
        return 0;
    for (long k = 0; k < n; k++) {
        if (v[k] < 0 || v[k] >= n || seen[v[k]]++) {
            if (bad++ < 5)
                fprintf(stderr,
                        "%s: value %ld (record %ld) out of range or "
                        "seen twice\n",
                        what, v[k], k);
        }
    }
    free(seen);
    return bad == 0;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;

    return (x > y) - (x < y);
}

/* Swapped-out values plus the final one = swapped-in values plus 0. */
static int swap_consistent(long *out, long total, long final)
{
    long npes = shmem_n_pes(), k = 0;
    long *want = malloc((size_t)(total + 1) * sizeof(long));
    long *got = malloc((size_t)(total + 1) * sizeof(long));
    int ok = want && got;

    for (long pe = 0; ok && pe < npes; pe++)
        for (long i = 0; i < iters; i++)
            want[k++] = ((pe + 1) << 32) | i;
    if (ok) {
        want[total] = 0;
        memcpy(got, out, (size_t)total * sizeof(long));
        got[total] = final;
        qsort(want, (size_t)total + 1, sizeof(long), cmp_long);
        qsort(got, (size_t)total + 1, sizeof(long), cmp_long);
        ok = memcmp(want, got, (size_t)(total + 1) * sizeof(long)) == 0;
    }
    free(want);
    free(got);
    return ok;
}

static void check_phase(struct words *s, struct records *r, int target)
{
    long total = iters * shmem_n_pes(), w[W_COUNT];
    int w_int;

    shmem_long_get(w, s->w, W_COUNT, target);
    w_int = shmem_int_g(&s->w_int, target);
    printf("target PE %d: add %ld fadd %ld cas %ld mixed %ld int %d ptr %ld "
           "(each must be %ld)\n",
           target, w[W_ADD], w[W_FADD], w[W_CAS], w[W_MIXED], w_int, w[W_PTR],
           total);
    CHECK(w[W_ADD] == total);
    CHECK(w[W_FADD] == total);
    CHECK(w[W_CAS] == total);
    CHECK(w[W_MIXED] == total);
    CHECK(w_int == total);
    CHECK(w[W_PTR] == total);
    CHECK(is_permutation(r->fadd, total, "fetch_add"));
    CHECK(is_permutation(r->cas, total, "compare_swap"));
    CHECK(swap_consistent(r->swap, total, w[W_SWAP]));
}

static void phase(struct words *s, struct records *r, int target,
                  shmem_ctx_t ctx, long *buf)
{
    int me = shmem_my_pe();
    double t0;

    memset(s, 0, sizeof(*s));
    shmem_barrier_all();
    t0 = mn_now_s();
    for (long i = 0; i < iters; i++) {
        long mine[3];

        update_once(s, i, target, ctx, mine);
        buf[i] = mine[0];
        buf[iters + i] = mine[1];
        buf[2 * iters + i] = mine[2];
    }
    shmem_ctx_quiet(ctx);
    shmem_long_put(r->fadd + me * iters, buf, (size_t)iters, 0);
    shmem_long_put(r->cas + me * iters, buf + iters, (size_t)iters, 0);
    shmem_long_put(r->swap + me * iters, buf + 2 * iters, (size_t)iters, 0);
    shmem_barrier_all();
    if (me == 0) {
        check_phase(s, r, target);
        printf("target PE %d: %ld iterations x %d PEs in %.2f s\n", target,
               iters, shmem_n_pes(), mn_now_s() - t0);
    }
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    int want_nodes = 0, npes, nodes;
    struct words *s;
    struct records r;
    shmem_ctx_t ctx;
    char *hosts;
    long *buf;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-i") && i + 1 < argc) {
            iters = mn_arg("-i", argv[++i], 1);
        } else if (!strcmp(argv[i], "-N") && i + 1 < argc) {
            want_nodes = (int)mn_arg("-N", argv[++i], 1);
        } else {
            fprintf(stderr, "usage: coherence [-i iterations] [-N nodes]\n");
            return 2;
        }
    }
    shmem_init();
    npes = shmem_n_pes();
    s = shmem_calloc(1, sizeof(*s));
    hosts = shmem_calloc((size_t)npes, MN_HOST_LEN);
    r.fadd = shmem_calloc((size_t)(npes * iters), sizeof(long));
    r.cas = shmem_calloc((size_t)(npes * iters), sizeof(long));
    r.swap = shmem_calloc((size_t)(npes * iters), sizeof(long));
    buf = malloc((size_t)iters * 3 * sizeof(long));
    if (!s || !hosts || !r.fadd || !r.cas || !r.swap || !buf) {
        fprintf(stderr, "PE %d: out of memory (try a smaller -i)\n",
                shmem_my_pe());
        shmem_global_exit(1);
    }
    nodes = mn_gather_hosts(hosts);
    CHECK(!want_nodes || nodes == want_nodes);
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
        CHECK(!"shmem_ctx_create failed");
        ctx = SHMEM_CTX_DEFAULT;
    }
    phase(s, &r, 0, ctx, buf);
    if (npes > 1)
        phase(s, &r, npes - 1, ctx, buf);
    if (ctx != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(ctx);
    free(buf);
    return check_pes_end("coherence");
}
