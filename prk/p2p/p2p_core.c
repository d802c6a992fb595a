/*
 * Synch_p2p kernel: the parts both versions share (see p2p_core.h).
 */
#include "p2p/p2p_core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/prk_comm.h"

int p2p_setup(p2p_t *p, int argc, char **argv, int npes, int me,
              char msg[PRK_MSG_MAX])
{
    memset(p, 0, sizeof(*p));
    p->npes = npes;
    p->me = me;
    if (argc != 4) {
        snprintf(msg, PRK_MSG_MAX, "usage: p2p <iterations> <m> <n>");
        return -1;
    }
    if (prk_parse_long(argv[1], &p->iterations) != 0 || p->iterations < 1) {
        snprintf(msg, PRK_MSG_MAX, "iterations must be a positive integer: %s",
                 argv[1]);
        return -1;
    }
    if (prk_parse_long(argv[2], &p->m) != 0 ||
        prk_parse_long(argv[3], &p->n) != 0 || p->m < 1 || p->n < 1 ||
        p->m > (1L << 30) || p->n > (1L << 30)) {
        snprintf(msg, PRK_MSG_MAX,
                 "grid dimensions must be integers in [1, 2^30]: %s %s",
                 argv[2], argv[3]);
        return -1;
    }
    if (p->m <= npes) {
        snprintf(msg, PRK_MSG_MAX,
                 "first grid dimension %ld must exceed the number of PEs %d",
                 p->m, npes);
        return -1;
    }
    p->w = prk_block(p->m, npes, me, &p->start);
    p2p_set_layout(p, 0, 1);
    return 0;
}

void p2p_set_layout(p2p_t *p, long lead, long align)
{
    long len = lead + prk_block_max(p->m, p->npes) + 1;

    p->lead = lead;
    p->ld = (len + align - 1) / align * align;
}

size_t p2p_array_count(const p2p_t *p)
{
    return (size_t)p->ld * (size_t)p->n;
}

void p2p_init(p2p_t *p)
{
    memset(p->a, 0, p2p_array_count(p) * sizeof(double));
    for (long li = 0; li <= p->w; li++)
        *p2p_at(p, li, 0) = (double)(p->start + li - 1);
    if (p->start == 0) {
        for (long j = 0; j < p->n; j++)
            *p2p_at(p, 1, j) = (double)j;
    }
}

void p2p_print_params(const p2p_t *p)
{
    if (p->me != 0)
        return;
    printf("Number of ranks                = %d\n", p->npes);
    printf("Grid sizes                     = %ld, %ld\n", p->m, p->n);
    printf("Number of iterations           = %ld\n", p->iterations);
    fflush(stdout);
}

/*
 * A row is a running sum: cur[li] = cur[li-1] + d[li] with
 * d[li] = prev[li] - prev[li-1]. Evaluated point after point, every point
 * waits for the previous addition (the reference order even waits for two).
 * Here the row goes in blocks of 8 points: the partial sums within a
 * block do not depend on the block before, so the processor overlaps them,
 * and only two additions per block (the carry) wait for the previous one.
 * Every value is an integer held exactly in a double, so any order of the
 * additions gives the reference's values to the last bit.
 */
void p2p_row(p2p_t *p, long j)
{
    double *restrict cur = p2p_at(p, 0, j);
    const double *restrict prev = p2p_at(p, 0, j - 1);
    long li = p->start == 0 ? 2 : 1;
    double carry = cur[li - 1];

    for (; li + 7 <= p->w; li += 8) {
        const double *q = prev + li - 1;
        double d0 = q[1] - q[0], d1 = q[2] - q[1], d2 = q[3] - q[2];
        double d3 = q[4] - q[3], d4 = q[5] - q[4], d5 = q[6] - q[5];
        double d6 = q[7] - q[6], d7 = q[8] - q[7];
        double s01 = d0 + d1, s45 = d4 + d5;
        double s03 = s01 + (d2 + d3), s47 = s45 + (d6 + d7);
        double c4 = carry + s03;

        cur[li] = carry + d0;
        cur[li + 1] = carry + s01;
        cur[li + 2] = (carry + s01) + d2;
        cur[li + 3] = c4;
        cur[li + 4] = c4 + d4;
        cur[li + 5] = c4 + s45;
        cur[li + 6] = (c4 + s45) + d6;
        carry = c4 + s47;
        cur[li + 7] = carry;
    }
    for (; li <= p->w; li++)
        cur[li] = cur[li - 1] + (prev[li] - prev[li - 1]);
}

int p2p_finish(const p2p_t *p, double local_elapsed)
{
    double avgtime = prk_avgtime(local_elapsed, p->iterations);
    int last = p->me == p->npes - 1, bad = 0;
    double ref = (double)(p->iterations + 1) * (double)(p->m + p->n - 2);
    double corner = last ? *p2p_at(p, p->w, p->n - 1) : 0.0;

    if (last && fabs(corner - ref) / ref >= 1e-8) {
        printf("ERROR: checksum %lf does not match verification value %lf\n",
               corner, ref);
        fflush(stdout); /* out before the reduction lets anyone exit */
        bad = 1;
    }
    if (prk_comm_max_int(bad))
        return 1;
    if (last) {
        printf("Solution validates\n");
        printf("Rate (MFlops/s): %lf Avg time (s): %lf\n",
               1e-6 * 2.0 * (double)(p->m - 1) * (double)(p->n - 1) / avgtime,
               avgtime);
        fflush(stdout);
    }
    return 0;
}
