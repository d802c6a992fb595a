/*
 * The bounds of symmetric addresses and the handles that must not be used
 * again; tests/badinput/range.cases runs each mode under
 * tests/badinput/expect_fail.sh, which wants a non-zero status, the message
 * (routine, bad argument) and a job that ends within seconds.
 *
 * Usage: bad_range MODE   (run with SHMEM_SYMMETRIC_SIZE=16m, 2 PEs or more)
 *   edges_ok        puts and gets on the first and last words of the heap's
 *                   user area and of the program's variables; shmem_ptr and
 *                   shmem_addr_accessible refuse the runtime's state and
 *                   the slack past the heap (must PASS)
 *   put_runtime     4 KiB put to first_block - 0x30d800 on PE 1 (the
 *                   runtime's collective state before the user area)
 *   put_past_heap   8-byte put 64 bytes past the end of the user area
 *   put_straddle    16-byte put over the end of the user area
 *   put_past_data   16-byte put over the end of the program's variables
 *   put_nelems get_nelems   shmem_long_put/get with nelems = SIZE_MAX/8 + 2
 *   iput_nelems     shmem_long_iput with nelems = SIZE_MAX/8 + 2
 *   ctx_destroy_twice       shmem_ctx_destroy twice on one context
 *   ctx_put_destroyed       shmem_ctx_long_put on a destroyed context
 *   ctx_quiet_destroyed     shmem_ctx_quiet on a destroyed context
 *   reduce_huge     shmem_long_sum_reduce(team, d, s, SIZE_MAX / 8), all PEs
 *   team_sync_destroyed     shmem_team_sync on a destroyed team, all PEs
 * PE 0 misbehaves unless the mode says all PEs; the others wait in a barrier.
 */
#include <shmem.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* End of the program's bss (the linker's symbol). */
extern char _end[];

/* The address of the byte `back` bytes before _end, computed as an integer
 * (the compiler knows nothing of _end's size). */
static long *before_end(size_t back)
{
    return (long *)((uintptr_t)_end - back);
}

static long data_first = 1; /* in .data */
static long bss_words[4];   /* in .bss */

static size_t heap_size(void)
{
    const char *s = getenv("SHMEM_SYMMETRIC_SIZE");

    if (s == NULL || strcmp(s, "16m") != 0) {
        fprintf(stderr, "bad_range: run with SHMEM_SYMMETRIC_SIZE=16m\n");
        exit(2);
    }
    return (size_t)16 << 20;
}

static int check(const char *what, long got, long want)
{
    if (got == want)
        return 0;
    fprintf(stderr, "bad_range: %s: read %ld, expected %ld\n", what, got, want);
    return 1;
}

/* Every word of the user area is symmetric, allocated or not: the first and
 * last of the heap and the first and last variables of the program. */
static int edges_ok(long *first, int peer)
{
    long *last = (long *)((char *)first + heap_size()) - 1;
    long *var_last = before_end(sizeof(long));
    long v = 0, bad = 0;

    shmem_long_p(first, 11, peer);
    shmem_long_p(last, 12, peer);
    shmem_long_p(&data_first, 13, peer);
    shmem_long_put(var_last, &bad, 1, peer); /* last word before _end */
    shmem_long_p(&bss_words[3], 14, peer);
    shmem_quiet();
    bad = check("first heap word", shmem_long_g(first, peer), 11);
    bad |= check("last heap word", shmem_long_g(last, peer), 12);
    bad |= check("first data word", shmem_long_g(&data_first, peer), 13);
    shmem_long_get(&v, &bss_words[3], 1, peer);
    bad |= check("bss word", v, 14);
    /* The runtime's state before the user area, and the slack after it,
     * are no symmetric addresses of the program's either. */
    bad |= check("shmem_addr_accessible(first heap word)",
                 shmem_addr_accessible(first, peer), 1);
    bad |= check("shmem_addr_accessible(runtime state)",
                 shmem_addr_accessible((char *)first - 0x30d800, peer), 0);
    bad |= check("shmem_addr_accessible(past the heap)",
                 shmem_addr_accessible(last + 8, peer), 0);
    bad |= check("shmem_ptr(runtime state) is NULL",
                 shmem_ptr((char *)first - 0x30d800, peer) == NULL, 1);
    bad |= check("shmem_ptr(past the heap) is NULL",
                 shmem_ptr(last + 8, peer) == NULL, 1);
    return (int)bad;
}

static int one_pe_mode(const char *mode, long *first, int peer)
{
    static long v[512];
    char *end = (char *)first + heap_size();
    shmem_ctx_t ctx;

    if (!strcmp(mode, "put_runtime"))
        shmem_long_put((long *)((char *)first - 0x30d800), v, 512, peer);
    else if (!strcmp(mode, "put_past_heap"))
        shmem_long_put((long *)(end + 64), v, 1, peer);
    else if (!strcmp(mode, "put_straddle"))
        shmem_long_put((long *)(end - 8), v, 2, peer);
    else if (!strcmp(mode, "put_past_data"))
        shmem_long_put(before_end(8), v, 2, peer);
    else if (!strcmp(mode, "put_nelems"))
        shmem_long_put(first, v, SIZE_MAX / 8 + 2, peer);
    else if (!strcmp(mode, "get_nelems"))
        shmem_long_get(v, first, SIZE_MAX / 8 + 2, peer);
    else if (!strcmp(mode, "iput_nelems"))
        shmem_long_iput(first, v, 1, 1, SIZE_MAX / 8 + 2, peer);
    else if (!strcmp(mode, "ctx_destroy_twice") ||
             !strcmp(mode, "ctx_put_destroyed") ||
             !strcmp(mode, "ctx_quiet_destroyed")) {
        if (shmem_ctx_create(0, &ctx) != 0) {
            fprintf(stderr, "bad_range: shmem_ctx_create failed\n");
            return 0;
        }
        shmem_ctx_destroy(ctx);
        if (!strcmp(mode, "ctx_destroy_twice"))
            shmem_ctx_destroy(ctx);
        else if (!strcmp(mode, "ctx_quiet_destroyed"))
            shmem_ctx_quiet(ctx);
        else
            shmem_ctx_long_put(ctx, first, v, 1, peer);
    } else
        return 0;
    return 1;
}

static int all_pe_mode(const char *mode, long *first)
{
    shmem_team_t team;

    if (!strcmp(mode, "reduce_huge")) {
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, first, first + 8, SIZE_MAX / 8);
    } else if (!strcmp(mode, "team_sync_destroyed")) {
        if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, shmem_n_pes(),
                                     NULL, 0, &team) != 0) {
            fprintf(stderr, "bad_range: shmem_team_split_strided failed\n");
            return 0;
        }
        shmem_team_destroy(team);
        shmem_team_sync(team);
    } else {
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "edges_ok";
    int me, peer, bad = 0;
    long *first;

    shmem_init();
    me = shmem_my_pe();
    peer = (me + 1) % shmem_n_pes();
    first = shmem_calloc(16, sizeof(long)); /* the first user block */
    shmem_barrier_all();
    if (!strcmp(mode, "edges_ok")) {
        bad = edges_ok(first, peer);
        if (!bad && me == 0)
            printf("bad_range: the edges of the user area are symmetric\n");
    } else if (all_pe_mode(mode, first) ||
               (me == 0 && one_pe_mode(mode, first, peer))) {
        printf("bad_range: PE %d returned from the bad call (%s)\n", me, mode);
        fflush(stdout);
    }
    shmem_barrier_all();
    shmem_finalize();
    return bad;
}
