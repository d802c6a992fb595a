/*
 * A 2-D Jacobi stencil whose kernel exchanges its halo with the
 * neighbour PEs itself, written once for halo_stencil.cu (CUDA, HIP) and
 * halo_stencil_host.c (the same kernel as host code on the mock back end).
 *
 * The grid has nx columns and n_pes * ny rows, periodic in the rows and
 * held fixed in the first and last column. PE p owns rows p*ny .. p*ny +
 * ny - 1 and keeps them between two ghost rows: row 0 holds the last row
 * of the PE above, row ny + 1 the first row of the PE below. Each
 * iteration the kernel
 *   1. puts its first row into the ghost row of the PE above and its last
 *      into that of the PE below (shmemd_double_put_block), then its
 *      leader fences and adds 1 to each neighbour's signal word;
 *   2. waits until both of its own signal words count this iteration;
 *   3. computes the next grid from the current one.
 * The current and next grid alternate between two buffers, so a
 * neighbour that runs ahead writes the ghost rows of the buffer this PE
 * is not reading: to be two iterations ahead it must have had this PE's
 * rows of the iteration between, sent only after this PE's compute.
 * At the end every PE puts its rows into PE 0's gather buffer, and PE 0
 * checks them against the same iterations computed serially.
 */
#ifndef HALO_STENCIL_H
#define HALO_STENCIL_H

#include <shmemx_device.h>

/* The arithmetic the kernel and the serial check share: on both sides. */
#if SHMEMD_DEVICE_CODE
#define HALO_BOTH static __host__ __device__ inline
#else
#define HALO_BOTH static inline
#endif

/* The kernel's arguments; the pointers are symmetric (device heap). */
typedef struct halo_args {
    double *grid;   /* 2 buffers of (ny + 2) * nx: the current, the next */
    double *gather; /* n_pes * ny * nx: every PE's rows (used on PE 0) */
    uint64_t *sig;  /* [0]: rows received from above, [1]: from below */
    uint32_t nx;    /* columns */
    uint32_t ny;    /* rows per PE */
    uint32_t iters; /* Jacobi iterations */
} halo_args_t;

/* The starting value of global row r, column c: fixed 1 and 0 on the
 * left and right edges, a pattern inside. */
HALO_BOTH double halo_initial(uint64_t r, uint32_t c, uint32_t nx)
{
    if (c == 0)
        return 1.0;
    if (c == nx - 1)
        return 0.0;
    return (double)((r * 31 + c * 17) % 13) / 13.0;
}

/* One cell of the next grid: the mean of its four neighbours. */
HALO_BOTH double halo_cell(const double *u, uint32_t r, uint32_t c, uint32_t nx)
{
    return 0.25 * (u[(r - 1) * nx + c] + u[(r + 1) * nx + c] +
                   u[r * nx + c - 1] + u[r * nx + c + 1]);
}

#if SHMEMD_DEVICE_CODE
SHMEMD_FN unsigned halo_thread(void)
{
    return threadIdx.x;
}

SHMEMD_FN unsigned halo_threads(void)
{
    return blockDim.x;
}
#else
SHMEMD_FN unsigned halo_thread(void)
{
    const shmemd_host_thread_t *t =
        (const shmemd_host_thread_t *)shmemx_kernel_thread_info();

    return t ? t->thread[0] : 0;
}

SHMEMD_FN unsigned halo_threads(void)
{
    const shmemd_host_thread_t *t =
        (const shmemd_host_thread_t *)shmemx_kernel_thread_info();

    return t ? t->bdim[0] : 1;
}
#endif

/* This PE's rows in both buffers; never the ghost rows, which the
 * neighbours may already be writing. */
SHMEMD_FN void halo_fill(const halo_args_t *a, int me)
{
    uint32_t nx = a->nx, plane = (a->ny + 2) * nx;

    for (uint32_t i = halo_thread(); i < a->ny * nx; i += halo_threads()) {
        uint32_t r = i / nx, c = i % nx;
        double v = halo_initial((uint64_t)me * a->ny + r, c, nx);

        a->grid[(r + 1) * nx + c] = v;
        a->grid[plane + (r + 1) * nx + c] = v;
    }
}

/* Step 1: this PE's edge rows of buffer u into the neighbours' ghost
 * rows, then a signal to each, ordered after the data by the fence. */
SHMEMD_FN void halo_send(const halo_args_t *a, double *u, int up, int down)
{
    uint32_t nx = a->nx, ny = a->ny;

    shmemd_double_put_block(u + (ny + 1) * nx, u + nx, nx, up);
    shmemd_double_put_block(u, u + ny * nx, nx, down);
    if (halo_thread() == 0) {
        shmemd_fence();
        shmemd_uint64_atomic_add(&a->sig[1], 1, up);
        shmemd_uint64_atomic_add(&a->sig[0], 1, down);
    }
}

/* Step 3, every thread of the block taking every halo_threads()-th cell;
 * the next put_block's barrier ends the step for the whole block. */
SHMEMD_FN void halo_compute(const halo_args_t *a, const double *u, double *v)
{
    uint32_t nx = a->nx, inner = nx - 2;

    for (uint32_t i = halo_thread(); i < a->ny * inner; i += halo_threads()) {
        uint32_t r = 1 + i / inner, c = 1 + i % inner;

        v[r * nx + c] = halo_cell(u, r, c, nx);
    }
}

/* The kernel: one block per PE, every thread calling it. */
SHMEMD_FN void halo_body(const halo_args_t *a)
{
    const int me = shmemd_my_pe(), n = shmemd_n_pes();
    const int up = (me + n - 1) % n, down = (me + 1) % n;
    const uint32_t plane = (a->ny + 2) * a->nx;
    double *u = a->grid;

    halo_fill(a, me);
    for (uint32_t k = 0; k < a->iters; k++) {
        u = a->grid + (k % 2) * plane;
        halo_send(a, u, up, down);
        /* Every thread waits, so that all read the ghost rows after the
         * data arrived (no block barrier is needed for that). */
        shmemd_signal_wait_until(&a->sig[0], SHMEM_CMP_GE, k + 1);
        shmemd_signal_wait_until(&a->sig[1], SHMEM_CMP_GE, k + 1);
        halo_compute(a, u, a->grid + ((k + 1) % 2) * plane);
    }
    u = a->grid + (a->iters % 2) * plane;
    shmemd_double_put_block(a->gather + (size_t)me * a->ny * a->nx, u + a->nx,
                            (size_t)a->ny * a->nx, 0);
    if (halo_thread() == 0)
        shmemd_quiet();
}

/* ---- The host program, the same for both builds ---------------------- */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole grid after iters iterations, computed serially: rows
 * padded by one ghost row each side, refreshed from the opposite edge
 * (periodic rows) before each iteration. Returns the rows, or NULL. */
static double *halo_reference(uint32_t nx, uint32_t rows, uint32_t iters)
{
    size_t plane = (size_t)(rows + 2) * nx;
    double *g = (double *)calloc(2 * plane, sizeof(double));

    if (!g)
        return NULL;
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < nx; c++)
            g[(r + 1) * nx + c] = g[plane + (r + 1) * nx + c] =
                halo_initial(r, c, nx);
    for (uint32_t k = 0; k < iters; k++) {
        double *u = g + (k % 2) * plane, *v = g + ((k + 1) % 2) * plane;

        for (uint32_t c = 0; c < nx; c++) {
            u[c] = u[rows * nx + c];
            u[(rows + 1) * nx + c] = u[nx + c];
        }
        for (uint32_t r = 1; r <= rows; r++)
            for (uint32_t c = 1; c + 1 < nx; c++)
                v[r * nx + c] = halo_cell(u, r, c, nx);
    }
    return g;
}

/* PE 0: the gathered rows against the serial grid; the number of cells
 * that differ (-1: no memory). The arithmetic is the same in the same
 * order, so the bound only allows for a compiler that fuses it. */
static long halo_check(const double *got, uint32_t nx, uint32_t rows,
                       uint32_t iters)
{
    double *ref = halo_reference(nx, rows, iters);
    const double *want;
    long bad = 0;

    if (!ref)
        return -1;
    want = ref + (iters % 2) * (size_t)(rows + 2) * nx + nx;
    for (size_t i = 0; i < (size_t)rows * nx; i++) {
        if (fabs(got[i] - want[i]) > 1e-12) {
            if (bad++ < 5)
                printf("halo_stencil: row %zu column %zu: %.17g, want "
                       "%.17g\n",
                       i / nx, i % nx, got[i], want[i]);
        }
    }
    free(ref);
    return bad;
}

/* The device buffers, zeroed (the signal words count from 0); 77 (skip)
 * without a device heap, 1 when shmemd_init fails. */
static int halo_setup(halo_args_t *a)
{
    size_t n = (size_t)shmem_n_pes();

    a->grid = (double *)shmemx_calloc_device(2 * (size_t)(a->ny + 2) * a->nx,
                                             sizeof(double));
    a->gather =
        (double *)shmemx_calloc_device(n * a->ny * a->nx, sizeof(double));
    a->sig = (uint64_t *)shmemx_calloc_device(2, sizeof(uint64_t));
    if (!a->grid || !a->gather || !a->sig)
        return 77;
    return shmemd_init() == 0 ? 0 : 1;
}

/* Launches the kernel on every PE at once and waits for it; then PE 0
 * copies the gathered rows out and checks them. 0: OK. */
static int halo_run(halo_args_t *a, const void *kernel, unsigned threads)
{
    unsigned grid[3] = {1, 1, 1}, block[3] = {threads, 1, 1};
    size_t bytes = (size_t)shmem_n_pes() * a->ny * a->nx * sizeof(double);
    void *args[] = {a};
    double *got;
    long bad = 0;

    if (shmemx_collective_launch(kernel, grid, block, args, 0, NULL) != 0 ||
        shmemx_stream_synchronize(NULL) != 0)
        return 1;
    shmem_barrier_all(); /* every PE's rows are in PE 0's gather buffer */
    if (shmem_my_pe() != 0)
        return 0;
    got = (double *)malloc(bytes);
    if (!got || shmemx_memcpy_on_stream(got, a->gather, bytes, NULL) != 0 ||
        shmemx_stream_synchronize(NULL) != 0)
        bad = -1;
    else
        bad = halo_check(got, a->nx, (uint32_t)shmem_n_pes() * a->ny, a->iters);
    free(got);
    printf("halo_stencil: %u x %u grid, %d PEs, %u iterations: %s\n", a->nx,
           shmem_n_pes() * a->ny, shmem_n_pes(), a->iters,
           bad == 0 ? "OK" : "FAIL");
    return bad == 0 ? 0 : 1;
}

/*
 *   halo_stencil [ITERS [NX [ROWS_PER_PE]]]   (defaults 100, 64, 16)
 * mock_build: whether the kernel is host code, which runs only on the
 * mock back end (and GPU code never on it): otherwise a skip (77), as
 * run-gpu-tests.sh runs every case with one back end.
 */
static int halo_main(int argc, char **argv, const void *kernel,
                     unsigned threads, int mock_build)
{
    const char *b = getenv("SHMEM_DEVICE_BACKEND");
    halo_args_t a = {NULL, NULL, NULL, 64, 16, 100};
    int ret;

    if (argc > 1)
        a.iters = (uint32_t)strtoul(argv[1], NULL, 0);
    if (argc > 2)
        a.nx = (uint32_t)strtoul(argv[2], NULL, 0);
    if (argc > 3)
        a.ny = (uint32_t)strtoul(argv[3], NULL, 0);
    if (a.nx < 3 || a.ny < 1) {
        fprintf(stderr, "usage: %s [ITERS [NX>=3 [ROWS_PER_PE>=1]]]\n",
                argv[0]);
        return 2;
    }
    shmem_init();
    if ((b && strcmp(b, "mock") == 0) != mock_build) {
        if (shmem_my_pe() == 0)
            printf("halo_stencil: kernels of %s code, "
                   "SHMEM_DEVICE_BACKEND=%s: skipped\n",
                   mock_build ? "host" : "GPU", b ? b : "none");
        shmem_finalize();
        return 77;
    }
    ret = halo_setup(&a);
    if (ret == 0)
        ret = halo_run(&a, kernel, threads);
    else if (shmem_my_pe() == 0)
        printf(ret == 77 ? "no device heap: skipped\n"
                         : "halo_stencil: shmemd_init failed\n");
    shmem_finalize();
    return ret;
}

#endif /* HALO_STENCIL_H */
