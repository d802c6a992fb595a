/*
 * Misuse of the API, one kind per mode; tests/badinput/badinput.cases runs
 * each under tests/badinput/expect_fail.sh, which wants a non-zero status,
 * a message saying what was wrong, and a job that ends within seconds.
 *
 * Usage: bad_input MODE   (PE 0 misbehaves unless the mode says otherwise)
 *   put_pe get_pe p_pe nbi_pe amo_pe fadd_pe cswap_pe signal_pe
 *       a target PE out of range (n_pes + 3, or -1 for get_pe)
 *   put_addr get_addr amo_addr signal_addr put_overrun
 *       a remote address outside the symmetric segments
 *   free_private free_inside      shmem_free of a non-symmetric pointer
 *   before_init after_finalize    calls outside the library's lifetime
 *   malloc_huge                   absurd sizes: NULL, no crash (must PASS)
 *   finalize_some                 only PE 0 calls shmem_finalize
 *   finalize_skip0                every PE but 0 calls shmem_finalize
 *   none                          init and finalize only (for bad variables)
 */
#include <shmem.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long global_target[8];

typedef struct {
    long *heap;
    uint64_t *sig;
    int npes;
} ctx_t;

static int bad_pe(const char *mode, ctx_t *c)
{
    long v[8] = { 0 };
    int pe = c->npes + 3;

    if (!strcmp(mode, "put_pe"))
        shmem_long_put(c->heap, v, 8, pe);
    else if (!strcmp(mode, "get_pe"))
        shmem_long_get(v, c->heap, 8, -1);
    else if (!strcmp(mode, "p_pe"))
        shmem_int_p((int *)c->heap, 1, pe);
    else if (!strcmp(mode, "nbi_pe"))
        shmem_putmem_nbi(c->heap, v, sizeof v, pe);
    else if (!strcmp(mode, "amo_pe"))
        shmem_long_atomic_add(c->heap, 1, pe);
    else if (!strcmp(mode, "fadd_pe"))
        (void)shmem_long_atomic_fetch_add(c->heap, 1, pe);
    else if (!strcmp(mode, "cswap_pe"))
        (void)shmem_int_atomic_compare_swap((int *)c->heap, 0, 1, pe);
    else if (!strcmp(mode, "signal_pe"))
        shmem_putmem_signal(c->heap, v, sizeof v, c->sig, 1, SHMEM_SIGNAL_SET, pe);
    else
        return 0;
    return 1;
}

static int bad_addr(const char *mode, ctx_t *c)
{
    long v[8] = { 0 };
    long *priv = malloc(sizeof(long) * 8);
    uint64_t priv_sig = 0;

    if (!priv)
        return 0;
    if (!strcmp(mode, "put_addr"))
        shmem_long_put(priv, v, 8, 1 % c->npes);
    else if (!strcmp(mode, "get_addr"))
        shmem_long_get(v, priv, 8, 1 % c->npes);
    else if (!strcmp(mode, "amo_addr"))
        (void)shmem_long_atomic_fetch_inc(v, 1 % c->npes);
    else if (!strcmp(mode, "signal_addr"))
        shmem_putmem_signal(c->heap, v, sizeof v, &priv_sig, 1,
                            SHMEM_SIGNAL_SET, 1 % c->npes);
    else if (!strcmp(mode, "put_overrun")) {
        /* starts inside a global, ends far beyond the data segment */
        size_t n = (size_t)1 << 36;
        shmem_putmem(global_target, v, n, 1 % c->npes);
    } else {
        free(priv);
        return 0;
    }
    free(priv);
    return 1;
}

static int bad_free(const char *mode, ctx_t *c)
{
    if (!strcmp(mode, "free_private")) {
        long *p = malloc(64);
        shmem_free(p);
    } else if (!strcmp(mode, "free_inside")) {
        shmem_free((char *)c->heap + 8);
    } else {
        return 0;
    }
    return 1;
}

/* Absurd sizes are errors the program can handle: NULL, and on. */
static int malloc_huge(void)
{
    static const size_t sizes[] = { SIZE_MAX, SIZE_MAX / 2, (size_t)1 << 50,
                                    (size_t)1 << 40 };
    int bad = 0;

    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        void *p = shmem_malloc(sizes[i]);
        if (p) {
            fprintf(stderr, "bad_input: shmem_malloc(%zu) returned %p\n", sizes[i], p);
            bad = 1;
            shmem_free(p);
        }
        p = shmem_align(4096, sizes[i]);
        if (p) {
            fprintf(stderr, "bad_input: shmem_align(4096, %zu) returned %p\n", sizes[i], p);
            bad = 1;
            shmem_free(p);
        }
    }
    void *p = shmem_calloc(SIZE_MAX / 4, 8); /* count * size overflows */
    if (p) {
        fprintf(stderr, "bad_input: shmem_calloc with an overflowing product returned %p\n", p);
        bad = 1;
        shmem_free(p);
    }
    /* the heap still works afterwards */
    long *q = shmem_malloc(1024);
    if (!q) {
        fprintf(stderr, "bad_input: shmem_malloc(1024) failed after the absurd sizes\n");
        bad = 1;
    } else {
        shmem_long_p(q, 42, (shmem_my_pe() + 1) % shmem_n_pes());
        shmem_barrier_all();
        if (*q != 42) {
            fprintf(stderr, "bad_input: heap broken after the absurd sizes\n");
            bad = 1;
        }
        shmem_free(q);
    }
    if (!bad && shmem_my_pe() == 0)
        printf("bad_input: absurd sizes returned NULL and the heap still works\n");
    return bad;
}

static int lifetime(const char *mode)
{
    long v = 0;

    if (!strcmp(mode, "before_init")) {
        shmem_long_put(global_target, &v, 1, 0);
        printf("bad_input: shmem_long_put before shmem_init returned\n");
        return 1;
    }
    shmem_init();
    shmem_barrier_all();
    shmem_finalize();
    shmem_long_put(global_target, &v, 1, 0);
    printf("bad_input: shmem_long_put after shmem_finalize returned\n");
    return 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "none";
    ctx_t c;

    if (!strcmp(mode, "before_init") || !strcmp(mode, "after_finalize"))
        return lifetime(mode);
    shmem_init();
    c.npes = shmem_n_pes();
    c.heap = shmem_calloc(8, sizeof(long));
    c.sig = shmem_calloc(1, sizeof(uint64_t));
    shmem_barrier_all();
    int me = shmem_my_pe();
    if (!strcmp(mode, "malloc_huge")) {
        int bad = malloc_huge();
        shmem_finalize();
        return bad;
    }
    if (!strcmp(mode, "finalize_some") || !strcmp(mode, "finalize_skip0")) {
        int skip = !strcmp(mode, "finalize_some") ? me != 0 : me == 0;
        if (skip) {
            printf("bad_input: PE %d returns without shmem_finalize\n", me);
            return 0;
        }
        shmem_finalize();
        return 0;
    }
    if (me == 0 && (bad_pe(mode, &c) || bad_addr(mode, &c) || bad_free(mode, &c))) {
        printf("bad_input: PE 0 returned from the bad call (%s)\n", mode);
        fflush(stdout);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
