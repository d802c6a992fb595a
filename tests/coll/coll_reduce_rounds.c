/*
 * Small reductions back to back, with values that change on every call, so
 * that data left over from an earlier call (or a call's data read before
 * all of it landed) shows up as a wrong element:
 *   sizes from 1 element to 1 KiB and a little over (the internal chunk
 *   sizes of the small reductions, docs/design.md, decision 5), in long,
 *   int, long double and double complex (the three alignments the data
 *   take), with no barrier between calls; now and then one PE lags, so
 *   that the others run ahead into the next call;
 *   every 400 calls a team of the even PEs is made, used for 60 calls and
 *   destroyed, so its slot is handed out again (its numbering restarts);
 *   argument "threads": SHMEM_THREAD_MULTIPLE with a second thread that
 *   drives progress the whole time (shmem_test on a word nobody sets), so
 *   that data may be placed by the thread that does not read them.
 * Argument 1: calls (default 3000). Every element is checked on every PE.
 */
#include <complex.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/check_pes.h"

#define NMAX 160 /* longs: 1280 bytes, past the largest small chunk */

static long l_src[NMAX], l_dst[NMAX];
static int i_src[NMAX], i_dst[NMAX];
static long double ld_src[NMAX], ld_dst[NMAX];
static double _Complex z_src[NMAX], z_dst[NMAX];
static long never; /* no PE sets it: the helper thread's shmem_test */
static int stop;

/* Element i of PE p in call c (small integers: exact in every type). */
static long val(long c, int i, int p)
{
    return (c * 131 + i * 7) % 100003 + p;
}

/* The sum over PEs 0, s, 2s, ... (n of them) of val(c, i, p). */
static long sum(long c, int i, int n, int s)
{
    return n * ((c * 131 + i * 7) % 100003) + (long)s * n * (n - 1) / 2;
}

static void *progress_thread(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
        (void)shmem_long_test(&never, SHMEM_CMP_EQ, 1);
    return NULL;
}

/* One reduction of call c on team t (n members, PE stride s); me is this
 * PE's world number. */
static void one_call(shmem_team_t t, long c, int n, int s, int me)
{
    int cnt = 1 + (int)((c * 37) % NMAX);

    switch (c % 4) {
    case 0:
        for (int i = 0; i < cnt; i++)
            l_src[i] = val(c, i, me);
        CHECK(shmem_long_sum_reduce(t, l_dst, l_src, (size_t)cnt) == 0);
        for (int i = 0; i < cnt; i++)
            if (l_dst[i] != sum(c, i, n, s)) {
                CHECK(l_dst[i] == sum(c, i, n, s));
                break;
            }
        break;
    case 1:
        for (int i = 0; i < cnt; i++)
            i_src[i] = (int)val(c, i, me);
        CHECK(shmem_int_max_reduce(t, i_dst, i_src, (size_t)cnt) == 0);
        for (int i = 0; i < cnt; i++)
            if (i_dst[i] != (int)val(c, i, s * (n - 1))) {
                CHECK(i_dst[i] == (int)val(c, i, s * (n - 1)));
                break;
            }
        break;
    case 2:
        for (int i = 0; i < cnt; i++)
            ld_src[i] = (long double)val(c, i, me);
        CHECK(shmem_longdouble_sum_reduce(t, ld_dst, ld_src, (size_t)cnt) ==
              0);
        for (int i = 0; i < cnt; i++)
            if (ld_dst[i] != (long double)sum(c, i, n, s)) {
                CHECK(ld_dst[i] == (long double)sum(c, i, n, s));
                break;
            }
        break;
    default:
        for (int i = 0; i < cnt; i++)
            z_src[i] = (double)val(c, i, me) + (double)me * I;
        CHECK(shmem_complexd_sum_reduce(t, z_dst, z_src, (size_t)cnt) == 0);
        for (int i = 0; i < cnt; i++)
            if (creal(z_dst[i]) != (double)sum(c, i, n, s) ||
                cimag(z_dst[i]) != (double)s * n * (n - 1) / 2) {
                CHECK(creal(z_dst[i]) == (double)sum(c, i, n, s));
                CHECK(cimag(z_dst[i]) == (double)s * n * (n - 1) / 2);
                break;
            }
        break;
    }
}

/* A lag of a few microseconds on one PE now and then. */
static void maybe_lag(long c, int me, int npes)
{
    if (c % 97 == me % 97 && c % npes == me) {
        volatile long spin = 0;

        for (long k = 0; k < 20000; k++)
            spin += k;
    }
}

int main(int argc, char **argv)
{
    long calls = 3000;
    int threads = 0, provided = -1, me, npes;
    pthread_t helper;

    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "threads") == 0)
            threads = 1;
        else
            calls = strtol(argv[a], NULL, 0);
    }
    if (threads) {
        shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
        CHECK(provided == SHMEM_THREAD_MULTIPLE);
        CHECK(pthread_create(&helper, NULL, progress_thread, NULL) == 0);
    } else {
        shmem_init();
    }
    me = shmem_my_pe();
    npes = shmem_n_pes();
    check_set_pe(me, NULL);

    for (long c = 0; c < calls; c++) {
        maybe_lag(c, me, npes);
        one_call(SHMEM_TEAM_WORLD, c, npes, 1, me);
        if (c % 400 == 399 && npes > 1) {
            shmem_team_t even = SHMEM_TEAM_INVALID;
            int ne = (npes + 1) / 2;

            CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, ne, NULL, 0,
                                           &even) == 0);
            if (even != SHMEM_TEAM_INVALID) {
                for (long k = 0; k < 60; k++) {
                    maybe_lag(c + k, me, npes);
                    one_call(even, c + k, ne, 2, me);
                }
                shmem_team_destroy(even);
            }
        }
    }
    if (threads) {
        __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
        pthread_join(helper, NULL);
    }
    return check_pes_end("coll_reduce_rounds");
}
