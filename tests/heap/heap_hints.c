/*
 * shmem_malloc_with_hints with every kind of hint value: the specification
 * makes hints a request for performance, and where an implementation cannot
 * honour one the call behaves as shmem_malloc. So 0, each standard hint,
 * their complements, -1, unknown bits and arbitrary values must all give a
 * non-NULL block of symmetric memory that the program writes and reads with
 * plain stores and loads, that other PEs put into, get from and update
 * atomically, and that shmem_free takes back; size 0 gives NULL whatever
 * the hints.
 *
 * Run also with a device heap (SHMEM_DEVICE_BACKEND=mock): the mock keeps
 * device memory inaccessible to the host, so a hint that picked the device
 * heap would fault on the first store; the handler below names the hint
 * before the PE ends.
 */
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/common/check_pes.h"

static int me, npes;
static volatile long current_hint;

/* The actions in place before on_fault: the runtime's, which removes the
 * job's shared-memory names before the process dies. */
static struct sigaction old_segv, old_bus;

/* Names the hint whose block the host cannot touch (integers formatted into
 * a stack buffer, one write); then puts back the earlier action, which the
 * faulting store meets again on return. */
static void on_fault(int sig)
{
    char msg[160];
    int n = snprintf(msg, sizeof(msg),
                     "PE %d: the block of shmem_malloc_with_hints(..., %ld) "
                     "is not host memory (signal %d)\n",
                     me, (long)current_hint, sig);

    if (n > 0)
        (void)!write(2, msg, (size_t)n);
    sigaction(sig, sig == SIGSEGV ? &old_segv : &old_bus, NULL);
}

static unsigned char pattern(int pe, long hint, size_t i)
{
    return (unsigned char)(i * 7 + (size_t)pe * 31 + (unsigned long)hint + 1);
}

/* One block of size bytes with the hint: local stores and loads, a get of
 * the left neighbour's bytes, a put into the right neighbour's second half,
 * an atomic add from every PE on PE 0's first word. */
static void one_hint(long hint, size_t size)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    size_t half = size / 2;
    unsigned char *p, *got;
    long *ctr;

    current_hint = hint;
    p = shmem_malloc_with_hints(size, hint);
    CHECK(p != NULL);
    if (!p) {
        fprintf(stderr, "PE %d: shmem_malloc_with_hints(%zu, %ld) gave NULL\n",
                me, size, hint);
        return;
    }
    for (size_t i = 0; i < size; i++)
        p[i] = pattern(me, hint, i);
    for (size_t i = 0; i < size; i++)
        CHECK(p[i] == pattern(me, hint, i));
    shmem_barrier_all();

    got = malloc(half);
    shmem_getmem(got, p, half, left);
    for (size_t i = 0; i < half; i++)
        if (got[i] != pattern(left, hint, i)) {
            fprintf(stderr, "PE %d: hint %ld: get byte %zu from PE %d\n", me,
                    hint, i, left);
            CHECK(got[i] == pattern(left, hint, i));
            break;
        }
    shmem_putmem(p + half, got, half, right);
    shmem_barrier_all();
    /* What the left neighbour put: the first half of its left neighbour. */
    for (size_t i = 0; i < half; i++)
        if (p[half + i] != pattern((left + npes - 1) % npes, hint, i)) {
            fprintf(stderr, "PE %d: hint %ld: put byte %zu\n", me, hint, i);
            CHECK(0);
            break;
        }
    free(got);

    ctr = (long *)p;
    shmem_barrier_all();
    *ctr = 0;
    shmem_barrier_all();
    shmem_long_atomic_add(ctr, me + 1, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK(*ctr == (long)npes * (npes + 1) / 2);
    shmem_free(p);

    CHECK(shmem_malloc_with_hints(0, hint) == NULL);
}

int main(void)
{
    const long atomics = SHMEM_MALLOC_ATOMICS_REMOTE;
    const long sigs = SHMEM_MALLOC_SIGNAL_REMOTE;
    long hints[32];
    int n = 0;
    uint64_t x = 0x9e3779b97f4a7c15ull;

    hints[n++] = 0;
    hints[n++] = atomics;
    hints[n++] = sigs;
    hints[n++] = atomics | sigs;
    hints[n++] = ~atomics;
    hints[n++] = ~sigs;
    hints[n++] = ~(atomics | sigs);
    hints[n++] = -1;
    hints[n++] = LONG_MIN;
    hints[n++] = LONG_MAX;
    for (int b = 2; b < 63; b += 7) /* single bits no hint defines */
        hints[n++] = 1L << b;
    /* Arbitrary values, the same on every PE (the call is collective). */
    while (n < (int)(sizeof(hints) / sizeof(hints[0]))) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        hints[n++] = (long)x;
    }

    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    {
        struct sigaction sa;

        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_fault;
        sigaction(SIGSEGV, &sa, &old_segv);
        sigaction(SIGBUS, &sa, &old_bus);
    }
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (int i = 0; i < n; i++)
        one_hint(hints[i], 4096 + (size_t)i * 24);
    /* Blocks with hints and without live side by side and come back. */
    {
        void *a = shmem_malloc_with_hints(1000, -1);
        void *b = shmem_malloc(1000);
        void *c = shmem_malloc_with_hints(1000, atomics);

        CHECK(a && b && c && a != b && b != c && a != c);
        shmem_free(b);
        shmem_free(a);
        shmem_free(c);
    }
    return check_pes_end("heap_hints");
}
