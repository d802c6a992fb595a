/*
 * stencil: heat flowing along a rod, split between the PEs, with halo
 * exchange by put-with-signal; checked against the same computation done by
 * one process.
 *
 *   oshcc -o stencil stencil.c
 *   oshrun -n 4 ./stencil [CELLS [STEPS]]
 *
 * The rod has CELLS cells (default 4000) whose ends are held at fixed
 * temperatures. Each step, every cell takes a weighted mean of itself and
 * its two neighbours (a 3-point Jacobi stencil). Each PE owns a slice of
 * the rod, plus one halo cell on each side that holds its neighbour's edge
 * cell.
 *
 * What it shows:
 *   - shmem_double_put_signal: one call writes the edge value into the
 *     neighbour's halo and then sets a signal word there; the signal is
 *     written only after the data is in place, so a PE that sees it may
 *     read the halo, without a barrier or shmem_quiet;
 *   - shmem_signal_wait_until: wait for a neighbour's signal;
 *   - two halo slots, used in turn by even and odd steps: a neighbour may
 *     be one step ahead and must not overwrite a halo value that this PE
 *     has not read yet. It cannot be two steps ahead: for that it would
 *     need this PE's edge of the next step, which this PE sends only after
 *     it has read its halos.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <shmem.h>

#define LEFT_END  1.0 /* fixed temperatures at the ends of the rod */
#define RIGHT_END 0.0
#define WEIGHT    0.25 /* how much of each neighbour a cell takes per step */

/* Halos and signals, symmetric: [slot], slot = step % 2. halo_left holds
 * the left neighbour's last cell, halo_right the right neighbour's first;
 * a signal holds the number of the step (from 1) whose value has arrived. */
static double halo_left[2], halo_right[2];
static uint64_t sig_left[2], sig_right[2];

/* Cells [first, first + n) of the rod belong to this PE. */
static void my_slice(long cells, int me, int npes, long *first, long *n)
{
    long base = cells / npes, extra = cells % npes;

    *n = base + (me < extra ? 1 : 0);
    *first = me * base + (me < extra ? me : extra);
}

static double initial(long cell, long cells)
{
    return 0.5 + 0.5 * sin(6.283185307179586 * (double)cell / (double)cells);
}

/* One step of cells [0, n) into next; left and right are the cells
 * beyond both ends. */
static void step(const double *u, double *next, long n, double left,
                 double right)
{
    for (long i = 0; i < n; i++) {
        double l = i == 0 ? left : u[i - 1];
        double r = i == n - 1 ? right : u[i + 1];

        next[i] = u[i] + WEIGHT * (l - 2.0 * u[i] + r);
    }
}

/* The whole rod computed by this process alone, for checking. */
static double *serial(long cells, int steps)
{
    double *u = malloc((size_t)cells * sizeof(double));
    double *next = malloc((size_t)cells * sizeof(double));

    if (u == NULL || next == NULL)
        return NULL;
    for (long i = 0; i < cells; i++)
        u[i] = initial(i, cells);
    for (int s = 0; s < steps; s++) {
        double *t;

        step(u, next, cells, LEFT_END, RIGHT_END);
        t = u, u = next, next = t;
    }
    free(next);
    return u;
}

int main(int argc, char **argv)
{
    static double max_diff, global_max_diff; /* symmetric */
    long cells = argc > 1 ? atol(argv[1]) : 4000;
    int steps = argc > 2 ? atoi(argv[2]) : 500;
    long first, n;

    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int left = me - 1, right = me + 1; /* -1 or npes: the end of the rod */

    if (cells < npes || steps < 1) {
        if (me == 0)
            fprintf(stderr, "usage: stencil [CELLS >= PEs [STEPS >= 1]]\n");
        shmem_finalize();
        return 2;
    }
    my_slice(cells, me, npes, &first, &n);
    double *u = malloc((size_t)n * sizeof(double));
    double *next = malloc((size_t)n * sizeof(double));
    if (u == NULL || next == NULL) {
        fprintf(stderr, "PE %d: out of memory\n", me);
        shmem_global_exit(1);
    }
    for (long i = 0; i < n; i++)
        u[i] = initial(first + i, cells);

    for (int s = 0; s < steps; s++) {
        int slot = s % 2;
        uint64_t arrived = (uint64_t)s + 1;
        double lvalue = LEFT_END, rvalue = RIGHT_END;

        /* Send my edge cells into my neighbours' halos, each followed by
         * its signal. The source may be reused as soon as the call
         * returns. */
        if (left >= 0)
            shmem_double_put_signal(&halo_right[slot], &u[0], 1,
                                    &sig_right[slot], arrived,
                                    SHMEM_SIGNAL_SET, left);
        if (right < npes)
            shmem_double_put_signal(&halo_left[slot], &u[n - 1], 1,
                                    &sig_left[slot], arrived,
                                    SHMEM_SIGNAL_SET, right);

        /* Wait for theirs, then compute this step. */
        if (left >= 0) {
            shmem_signal_wait_until(&sig_left[slot], SHMEM_CMP_EQ, arrived);
            lvalue = halo_left[slot];
        }
        if (right < npes) {
            shmem_signal_wait_until(&sig_right[slot], SHMEM_CMP_EQ, arrived);
            rvalue = halo_right[slot];
        }
        step(u, next, n, lvalue, rvalue);
        double *t = u;
        u = next;
        next = t;
    }

    /* Check: the same steps done by one process give the same numbers,
     * bit for bit (each cell's arithmetic is the same). */
    double *whole = serial(cells, steps);
    if (whole == NULL) {
        fprintf(stderr, "PE %d: out of memory\n", me);
        shmem_global_exit(1);
    }
    for (long i = 0; i < n; i++)
        max_diff = fmax(max_diff, fabs(u[i] - whole[first + i]));
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &global_max_diff, &max_diff, 1);
    if (me == 0)
        printf("stencil: %ld cells, %d steps on %d PE%s: largest "
               "difference from the serial result %g: %s\n",
               cells, steps, npes, npes == 1 ? "" : "s", global_max_diff,
               global_max_diff == 0.0 ? "ok" : "FAILED");

    free(whole);
    free(u);
    free(next);
    shmem_finalize();
    return global_max_diff == 0.0 ? 0 : 1;
}
