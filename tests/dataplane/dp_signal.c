/*
 * Put-with-signal: the data is visible when the signal is (SET and ADD,
 * blocking, nbi and ctx forms, 8 B to 1 MiB), shmem_signal_fetch,
 * shmem_signal_add/set and shmem_signal_wait_until; then a put-with-signal
 * ping-pong between PE 0 and PE 1 whose one-way latency is printed
 * (informative; tests check correctness only).
 */
#include <stdint.h>
#include <string.h>

#include "dp_test.h"

#define ROUNDS 200
#define MAXN   (1u << 20)

static int me, npes, right, left;
static uint64_t sig_static;

/* Round r: each PE sends n bytes of pattern r to its right neighbour with
 * signal r (SET) and checks what its left neighbour sent. */
static void signal_rounds(uint64_t *sig, unsigned char *buf, size_t n, int nbi)
{
    unsigned char *src = malloc(n);

    for (uint64_t r = 1; r <= 20; r++) {
        memset(src, (int)(r + me), n);
        if (nbi)
            shmem_putmem_signal_nbi(buf, src, n, sig, r, SHMEM_SIGNAL_SET,
                                    right);
        else
            shmem_putmem_signal(buf, src, n, sig, r, SHMEM_SIGNAL_SET, right);
        CHECK(shmem_signal_wait_until(sig, SHMEM_CMP_EQ, r) == r);
        CHECK(buf[0] == (unsigned char)(r + left) &&
              buf[n - 1] == (unsigned char)(r + left) &&
              buf[n / 2] == (unsigned char)(r + left));
        if (nbi)
            shmem_quiet();
        /* nobody may overwrite buf before its owner has checked it */
        shmem_barrier_all();
    }
    free(src);
}

static void signal_add(uint64_t *sig)
{
    long src[4] = {1, 2, 3, 4};
    static long dst[4 * 64];

    *sig = 0;
    shmem_barrier_all();
    /* every PE adds (me + 1) to PE 0's signal, with 4 longs at its slot */
    shmem_long_put_signal(&dst[4 * me], src, 4, sig, (uint64_t)me + 1,
                          SHMEM_SIGNAL_ADD, 0);
    if (me == 0) {
        uint64_t want = (uint64_t)npes * (npes + 1) / 2;
        CHECK(shmem_signal_wait_until(sig, SHMEM_CMP_GE, want) == want);
        for (int p = 0; p < npes; p++)
            CHECK(dst[4 * p + 3] == 4);
        CHECK(shmem_signal_fetch(sig) == want);
    }
    shmem_barrier_all();
    /* signal_set / signal_add without data, and a static signal word */
    shmem_signal_set(&sig_static, 100, right);
    shmem_barrier_all();
    CHECK(shmem_signal_fetch(&sig_static) == 100);
    shmem_barrier_all();
    shmem_ctx_signal_add(SHMEM_CTX_DEFAULT, &sig_static, 5, right);
    shmem_signal_add(&sig_static, 1, left);
    shmem_barrier_all();
    CHECK(shmem_signal_fetch(&sig_static) == 106);
    shmem_barrier_all();
}

/* One-way latency of an 8-byte put-with-signal, PE 0 <-> PE 1. */
static void signal_pingpong(uint64_t *sig, long *data)
{
    long v;
    double t0 = 0;

    *sig = 0;
    shmem_barrier_all();
    if (me > 1) {
        shmem_barrier_all();
        return;
    }
    for (int i = 1; i <= ROUNDS + 10000; i++) {
        if (i == ROUNDS + 1)
            t0 = dp_now_us();
        v = i;
        if (me == 0) {
            shmem_long_put_signal(data, &v, 1, sig, (uint64_t)i,
                                  SHMEM_SIGNAL_SET, 1);
            shmem_signal_wait_until(sig, SHMEM_CMP_EQ, (uint64_t)i);
        } else {
            shmem_signal_wait_until(sig, SHMEM_CMP_EQ, (uint64_t)i);
            if (*data != i)
                CHECK(*data == i);
            shmem_long_put_signal(data, &v, 1, sig, (uint64_t)i,
                                  SHMEM_SIGNAL_SET, 0);
        }
    }
    if (me == 0)
        printf("put_signal ping-pong: %.3f us one-way (8 B, 10000 round "
               "trips)\n",
               (dp_now_us() - t0) / 10000 / 2);
    shmem_barrier_all();
}

/* The same ping-pong with fetch-add on the peer's counter: one fetching
 * atomic per one-way trip (informative). */
static void amo_pingpong(long *ctr)
{
    double t0 = 0;
    const int n = 10000;

    *ctr = 0;
    shmem_barrier_all();
    if (me > 1) {
        shmem_barrier_all();
        return;
    }
    for (int i = 1; i <= ROUNDS + n; i++) {
        if (i == ROUNDS + 1)
            t0 = dp_now_us();
        if (me == 0) {
            CHECK(shmem_long_atomic_fetch_add(ctr, 1, 1) == i - 1);
            shmem_long_wait_until(ctr, SHMEM_CMP_EQ, i);
        } else {
            shmem_long_wait_until(ctr, SHMEM_CMP_EQ, i);
            CHECK(shmem_long_atomic_fetch_add(ctr, 1, 0) == i - 1);
        }
    }
    if (me == 0)
        printf("fetch_add ping-pong: %.3f us one-way (%d round trips)\n",
               (dp_now_us() - t0) / n / 2, n);
    shmem_barrier_all();
}

int main(void)
{
    static const size_t sizes[] = {8, 100, 4096, MAXN};
    uint64_t *sig;
    unsigned char *buf;

    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    sig = shmem_calloc(1, sizeof(uint64_t));
    buf = shmem_malloc(MAXN);
    for (size_t s = 0; s < 4; s++) {
        *sig = 0;
        shmem_barrier_all();
        signal_rounds(sig, buf, sizes[s], (int)(s & 1));
    }
    signal_add(sig);
    if (npes >= 2) {
        signal_pingpong(sig, (long *)buf);
        amo_pingpong((long *)buf);
    }
    shmem_free(buf);
    shmem_free(sig);
    return check_pes_end("dp_signal");
}
