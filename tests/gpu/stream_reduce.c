/*
 * Reductions on device buffers, for every datatype tag and every operator
 * the specification defines on it (shmi_reduce_valid): the blocking team
 * form, which runs on the GPU path when dest and source are in the device
 * heap (shmi_coll_reduce_device: the back end's kernel; the host's
 * arithmetic with SHMEM_DEVICE_REDUCE=host or where the back end has no
 * kernel), and the stream-ordered form (shmemx_TYPE_OP_reduce_on_stream),
 * out of place and in place, on the world team and on a team of the even
 * PEs. The expected result is computed on the host from every PE's
 * contribution. A few typed public routines are called as a program would.
 */
#include "config.h"

#include <complex.h>
#include <stdint.h>
#include <string.h>

#include <shmem.h>
#include <shmemx.h>

#include "core/core_api.h"
#include "gpu/gpu_mock.h"
#include "services/dtype.h"
#include "services/reduce_ops.h"
#include "tests/gpu/gpu_test.h"

#define NELEMS 1537 /* odd: no kernel may assume whole blocks */

/* Element i contributed by PE pe, as dtype dt, small enough that no sum or
 * product of a few PEs overflows the narrowest type's exact range. */
static void elem(shmi_dtype_t dt, int pe, size_t i, void *out)
{
    long v = (long)((i * 7 + (size_t)pe * 3) % 5) + 1 + (long)(i % 3 == 0);
    size_t sz = shmi_dtype_size(dt);

    switch (shmi_dtype_kind(dt)) {
    case SHMI_DK_FLOAT:
        if (dt == SHMI_DT_FLOAT) {
            float f = (float)v;
            memcpy(out, &f, sz);
        } else if (dt == SHMI_DT_DOUBLE) {
            double d = (double)v;
            memcpy(out, &d, sz);
        } else {
            long double l = (long double)v;
            memset(out, 0, sz);
            memcpy(out, &l, sizeof(l) < sz ? sizeof(l) : sz);
        }
        break;
    case SHMI_DK_COMPLEX:
        if (dt == SHMI_DT_COMPLEXF) {
            float _Complex c = (float)v + (float)(pe + 1) * I;
            memcpy(out, &c, sz);
        } else {
            double _Complex c = (double)v + (double)(pe + 1) * I;
            memcpy(out, &c, sz);
        }
        break;
    default: {
        /* Negative values for signed types on odd PEs: min/max see sign. */
        int64_t x = shmi_dtype_kind(dt) == SHMI_DK_SIGNED && (pe & 1) ? -v : v;
        memcpy(out, &x, sz); /* little-endian: the low bytes */
    }
    }
}

static void fill(shmi_dtype_t dt, int pe, unsigned char *h, size_t n)
{
    size_t sz = shmi_dtype_size(dt);

    for (size_t i = 0; i < n; i++)
        elem(dt, pe, i, h + i * sz);
}

/* The reduction over the team PEs pes[0..np-1], on the host. */
static void expect(shmi_op_t op, shmi_dtype_t dt, const int *pes, int np,
                   unsigned char *acc, unsigned char *tmp, size_t n)
{
    fill(dt, pes[0], acc, n);
    for (int k = 1; k < np; k++) {
        fill(dt, pes[k], tmp, n);
        shmi_reduce_apply(op, dt, acc, tmp, n);
    }
}

/* 1 when the n elements agree; long double by value (its 6 padding bytes
 * are whatever an assignment leaves). */
static int same(shmi_dtype_t dt, const unsigned char *a, const unsigned char *b,
                size_t n)
{
    if (dt != SHMI_DT_LONGDOUBLE)
        return memcmp(a, b, n * shmi_dtype_size(dt)) == 0;
    for (size_t i = 0; i < n; i++) {
        long double x, y;

        memcpy(&x, a + i * sizeof(x), sizeof(x));
        memcpy(&y, b + i * sizeof(y), sizeof(y));
        if (x != y)
            return 0;
    }
    return 1;
}

static const char *op_name[] = {"and", "or",  "xor", "min",
                                "max", "sum", "prod"};

int main(void)
{
    int me, n, world[64], even[64], neven = 0;
    unsigned char *src, *dst, *h, *want, *tmp;
    shmem_team_t team_even;
    size_t maxb = NELEMS * 32;
    unsigned long kernels;
    const char *ek = getenv("GT_EXPECT_KERNELS");
    int expect_kernels = ek ? atoi(ek) : -1;
    void *s;

    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    src = shmemx_malloc_device(maxb);
    if (!src)
        return gt_skip_no_device_heap();
    dst = shmemx_malloc_device(maxb);
    h = gt_xmalloc(maxb);
    want = gt_xmalloc(maxb);
    tmp = gt_xmalloc(maxb);
    CHECK(shmemx_stream_create(&s) == 0);
    for (int p = 0; p < n; p++) {
        world[p] = p;
        if (p % 2 == 0)
            even[neven++] = p;
    }
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, neven, NULL, 0,
                             &team_even);

    for (int dt = 0; dt < SHMI_DT_COUNT; dt++) {
        size_t sz = shmi_dtype_size((shmi_dtype_t)dt), nb = NELEMS * sz;

        for (int op = 0; op < SHMI_OP_COUNT; op++) {
            if (!shmi_reduce_valid((shmi_op_t)op, (shmi_dtype_t)dt))
                continue;
            /* mode 0: blocking, world; 1: stream, world; 2: stream, in
             * place, world; 3: stream, even PEs. */
            for (int mode = 0; mode < 4; mode++) {
                shmem_team_t team = mode == 3 ? team_even : SHMEM_TEAM_WORLD;
                unsigned char *out = mode == 2 ? src : dst;
                int ret;

                /* Non-members of the even team meet the barriers too. */
                if (mode == 3 && team == SHMEM_TEAM_INVALID) {
                    shmem_barrier_all();
                    shmem_barrier_all();
                    continue;
                }
                fill((shmi_dtype_t)dt, me, h, NELEMS);
                CHECK(shmemx_memcpy_on_stream(src, h, nb, s) == 0);
                CHECK(shmemx_stream_synchronize(s) == 0);
                shmem_barrier_all();
                kernels = shmi_gpu_mock_reduce_count();
                if (mode == 0)
                    ret = shmi_team_reduce("stream_reduce", team, out, src,
                                           NELEMS, (shmi_dtype_t)dt,
                                           (shmi_op_t)op);
                else
                    ret = shmi_stream_reduce("stream_reduce", team, out, src,
                                             NELEMS, (shmi_dtype_t)dt,
                                             (shmi_op_t)op, s);
                CHECK(ret == 0);
                CHECK(shmemx_memcpy_on_stream(h, out, nb, s) == 0);
                CHECK(shmemx_stream_synchronize(s) == 0);
                /* GT_EXPECT_KERNELS=1: the mock's kernel combined the
                 * data (the GPU path); =0: it was never called. */
                if (expect_kernels >= 0 && (mode != 3 || neven > 1))
                    CHECK_MSG((shmi_gpu_mock_reduce_count() > kernels) ==
                                  expect_kernels,
                              "%s %s mode %d: %s the device kernel",
                              shmi_dtype_table[dt].name, op_name[op], mode,
                              expect_kernels ? "did not use" : "used");
                expect((shmi_op_t)op, (shmi_dtype_t)dt,
                       mode == 3 ? even : world, mode == 3 ? neven : n, want,
                       tmp, NELEMS);
                CHECK_MSG(same((shmi_dtype_t)dt, h, want, NELEMS),
                          "%s %s mode %d: wrong result",
                          shmi_dtype_table[dt].name, op_name[op], mode);
                shmem_barrier_all();
            }
        }
    }

    /* The typed public routines, as a program calls them. */
    {
        int *si = (int *)src, *di = (int *)dst, hi[64];
        double *sd = (double *)src, *dd = (double *)dst, hd[64];

        for (int i = 0; i < 64; i++)
            hi[i] = me + i;
        CHECK(shmemx_memcpy_on_stream(si, hi, sizeof(hi), s) == 0);
        CHECK(shmemx_int_sum_reduce_on_stream(SHMEM_TEAM_WORLD, di, si, 64,
                                              s) == 0);
        CHECK(shmemx_memcpy_on_stream(hi, di, sizeof(hi), s) == 0);
        CHECK(shmemx_stream_synchronize(s) == 0);
        for (int i = 0; i < 64; i++)
            CHECK(hi[i] == n * i + n * (n - 1) / 2);
        shmem_barrier_all();
        for (int i = 0; i < 64; i++)
            hd[i] = (double)(me * 64 + i);
        CHECK(shmemx_memcpy_on_stream(sd, hd, sizeof(hd), s) == 0);
        CHECK(shmemx_stream_synchronize(s) == 0);
        CHECK(shmem_double_max_reduce(SHMEM_TEAM_WORLD, dd, sd, 64) == 0);
        CHECK(shmemx_memcpy_on_stream(hd, dd, sizeof(hd), s) == 0);
        CHECK(shmemx_stream_synchronize(s) == 0);
        for (int i = 0; i < 64; i++)
            CHECK(hd[i] == (double)((n - 1) * 64 + i));
        CHECK(shmemx_int_sum_reduce_on_stream(SHMEM_TEAM_INVALID, di, si, 64,
                                              s) == -1);
    }

    if (team_even != SHMEM_TEAM_INVALID)
        shmem_team_destroy(team_even);
    CHECK(shmemx_stream_destroy(s) == 0);
    free(tmp);
    free(want);
    free(h);
    shmem_free(dst);
    shmem_free(src);
    return check_pes_end("stream_reduce");
}
