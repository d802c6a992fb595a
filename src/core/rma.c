/*
 * RMA: put, get, their non-blocking and strided forms (core_api.h).
 *
 * Each call checks the PE and the symmetric range and translates them
 * (dataplane.h), then hands (world PE, segment, offset) to the engine
 * (src/core/engine/engine.h), which takes the load/store path when the
 * target is mapped here, else the route's transport. On the load/store
 * path every operation is complete on return, so the non-blocking forms
 * are the blocking ones.
 */
#include "config.h"

#include "core/dataplane.h"
#include "core/engine/engine.h"
#include "services/cpu_ops.h"

/*
 * Forced inline: GCC otherwise keeps shmi_rma_put/get out of line (two
 * callers each), and the extra call with a stack-passed argument made an
 * 8-byte on-node put or get 13-23% slower (bench/check_cost).
 */
static inline __attribute__((always_inline)) void
shmi_rma_put(const char *routine, shmem_ctx_t ctx, void *dest, const void *src,
             size_t nbytes, int pe, int nbi)
{
    size_t off;
    int seg;

    pe = shmi_dp_target(routine, ctx, pe);
    if (SHMI_UNLIKELY(nbytes == 0))
        return;
    shmi_dp_check_local(routine, src, nbytes, pe);
    seg = shmi_dp_seg(routine, dest, nbytes, pe, &off);
    shmi_eng_put(routine, ctx, pe, seg, off, src, nbytes, nbi);
}

static inline __attribute__((always_inline)) void
shmi_rma_get(const char *routine, shmem_ctx_t ctx, void *dest, const void *src,
             size_t nbytes, int pe, int nbi)
{
    size_t off;
    int seg;

    pe = shmi_dp_target(routine, ctx, pe);
    if (SHMI_UNLIKELY(nbytes == 0))
        return;
    shmi_dp_check_local(routine, dest, nbytes, pe);
    seg = shmi_dp_seg(routine, src, nbytes, pe, &off);
    shmi_eng_get(routine, ctx, pe, seg, off, dest, nbytes, nbi);
}

/* The common path of a put or get (shmi_dp_fast_peer): 0 when the call
 * must take the full path. */
static inline int shmi_put_fast(shmem_ctx_t ctx, void *dest, const void *src,
                                size_t nbytes, int pe)
{
    void *p = shmi_dp_fast_peer(ctx, dest, src, nbytes, pe);

    if (SHMI_UNLIKELY(p == NULL))
        return 0;
    shmi_cpu_copy(p, src, nbytes, SHMI_CPU_TO_PEER);
    return 1;
}

static inline int shmi_get_fast(shmem_ctx_t ctx, void *dest, const void *src,
                                size_t nbytes, int pe)
{
    void *p = shmi_dp_fast_peer(ctx, src, dest, nbytes, pe);

    if (SHMI_UNLIKELY(p == NULL))
        return 0;
    shmi_cpu_copy(dest, p, nbytes, SHMI_CPU_FROM_PEER);
    return 1;
}

/* The full paths, out of line: the routines below reach them by a tail
 * call, so that their common case needs no stack frame. */
static __attribute__((noinline)) void
shmi_put_full(const char *routine, shmem_ctx_t ctx, void *dest,
              const void *src, size_t nbytes, int pe)
{
    shmi_rma_put(routine, ctx, dest, src, nbytes, pe, 0);
}

static __attribute__((noinline)) void
shmi_get_full(const char *routine, shmem_ctx_t ctx, void *dest,
              const void *src, size_t nbytes, int pe)
{
    shmi_rma_get(routine, ctx, dest, src, nbytes, pe, 0);
}

SHMI_DP_ENTRY void shmi_put(const char *routine, shmem_ctx_t ctx, void *dest,
                            const void *src, size_t nbytes, int pe)
{
    if (SHMI_LIKELY(shmi_put_fast(ctx, dest, src, nbytes, pe)))
        return;
    shmi_put_full(routine, ctx, dest, src, nbytes, pe);
}

/* On the load/store path every operation is complete on return, so an nbi
 * put is a blocking one there; the fabric path differs. */
SHMI_DP_ENTRY void shmi_put_nbi(const char *routine, shmem_ctx_t ctx,
                                void *dest, const void *src, size_t nbytes,
                                int pe)
{
    if (SHMI_LIKELY(shmi_put_fast(ctx, dest, src, nbytes, pe)))
        return;
    shmi_rma_put(routine, ctx, dest, src, nbytes, pe, 1);
}

SHMI_DP_ENTRY void shmi_get(const char *routine, shmem_ctx_t ctx, void *dest,
                            const void *src, size_t nbytes, int pe)
{
    if (SHMI_LIKELY(shmi_get_fast(ctx, dest, src, nbytes, pe)))
        return;
    shmi_get_full(routine, ctx, dest, src, nbytes, pe);
}

SHMI_DP_ENTRY void shmi_get_nbi(const char *routine, shmem_ctx_t ctx,
                                void *dest, const void *src, size_t nbytes,
                                int pe)
{
    if (SHMI_LIKELY(shmi_get_fast(ctx, dest, src, nbytes, pe)))
        return;
    shmi_rma_get(routine, ctx, dest, src, nbytes, pe, 1);
}

/* The full paths of p and g: the value goes through memory there. */
static __attribute__((noinline)) void shmi_p_full(const char *routine,
                                                  shmem_ctx_t ctx, void *dest,
                                                  uint64_t bits, size_t size,
                                                  int pe)
{
    shmi_rma_put(routine, ctx, dest, &bits, size, pe, 0);
}

static __attribute__((noinline)) uint64_t
shmi_g_full(const char *routine, shmem_ctx_t ctx, const void *src, size_t size,
            int pe)
{
    uint64_t bits = 0;

    shmi_rma_get(routine, ctx, &bits, src, size, pe, 0);
    return bits;
}

SHMI_DP_ENTRY void shmi_p(const char *routine, shmem_ctx_t ctx, void *dest,
                          uint64_t bits, size_t size, int pe)
{
    if (SHMI_LIKELY(shmi_put_fast(ctx, dest, &bits, size, pe)))
        return;
    shmi_p_full(routine, ctx, dest, bits, size, pe);
}

SHMI_DP_ENTRY uint64_t shmi_g(const char *routine, shmem_ctx_t ctx,
                              const void *src, size_t size, int pe)
{
    uint64_t bits = 0;

    if (SHMI_LIKELY(shmi_get_fast(ctx, &bits, src, size, pe)))
        return bits;
    return shmi_g_full(routine, ctx, src, size, pe);
}

/*
 * Strided transfers. A strided access touches nblocks blocks of blk
 * elements (blk = 1 for iput/iget), block b starting b * stride elements
 * after the first. The symmetric side is checked as one range from its
 * lowest to its highest byte.
 */
typedef struct shmi_stride {
    ptrdiff_t dst, sst; /* block strides, in elements */
    size_t blk;         /* elements per block */
    size_t nblocks;
    size_t es; /* element size, bytes */
} shmi_stride_t;

/* The lowest byte of the span and its length; *len = SIZE_MAX when the
 * span does not fit in memory (nelems or the stride too large), which the
 * range check then refuses naming nelems (range_check.c). */
static const char *shmi_stride_span(const char *base, ptrdiff_t stride,
                                    const shmi_stride_t *s, size_t *len)
{
    ptrdiff_t last;
    size_t mag, n;

    if (s->nblocks - 1 > (size_t)PTRDIFF_MAX ||
        __builtin_mul_overflow((ptrdiff_t)(s->nblocks - 1), stride, &last))
        goto too_long;
    mag = last < 0 ? (size_t)0 - (size_t)last : (size_t)last;
    if (__builtin_add_overflow(mag, s->blk, &n) ||
        __builtin_mul_overflow(n, s->es, len) || *len > (size_t)PTRDIFF_MAX)
        goto too_long;
    return base + (last < 0 ? last * (ptrdiff_t)s->es : 0);

too_long:
    *len = SIZE_MAX;
    return base;
}

static void shmi_strided(const char *routine, shmem_ctx_t ctx, int is_put,
                         char *dest, const char *src, const shmi_stride_t *s,
                         int pe)
{
    const char *sym = is_put ? dest : src;
    ptrdiff_t sym_stride = is_put ? s->dst : s->sst;
    size_t span, off, bytes = s->blk * s->es;
    const char *lo;
    int seg;

    pe = shmi_dp_target(routine, ctx, pe);
    if (s->nblocks == 0 || s->blk == 0)
        return;
    shmi_dp_check_local(routine, is_put ? src : dest, bytes, pe);
    lo = shmi_stride_span(sym, sym_stride, s, &span);
    seg = shmi_dp_seg(routine, lo, span, pe, &off);
    /* offset of sym itself inside its segment */
    off += (size_t)(sym - lo);

    for (size_t b = 0; b < s->nblocks; b++) {
        ptrdiff_t d = (ptrdiff_t)b * s->dst * (ptrdiff_t)s->es;
        ptrdiff_t o = (ptrdiff_t)b * s->sst * (ptrdiff_t)s->es;
        ptrdiff_t at = is_put ? d : o; /* from sym, on the symmetric side */

        if (is_put)
            shmi_eng_put(routine, ctx, pe, seg, off + at, src + o, bytes, 0);
        else
            shmi_eng_get(routine, ctx, pe, seg, off + at, dest + d, bytes, 0);
    }
}

void shmi_iput(const char *routine, shmem_ctx_t ctx, void *dest,
               const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
               size_t elem_size, int pe)
{
    shmi_stride_t s = {dst, sst, 1, nelems, elem_size};

    shmi_strided(routine, ctx, 1, dest, src, &s, pe);
}

void shmi_iget(const char *routine, shmem_ctx_t ctx, void *dest,
               const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
               size_t elem_size, int pe)
{
    shmi_stride_t s = {dst, sst, 1, nelems, elem_size};

    shmi_strided(routine, ctx, 0, dest, src, &s, pe);
}

void shmi_ibput(const char *routine, shmem_ctx_t ctx, void *dest,
                const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                size_t nblocks, size_t elem_size, int pe)
{
    shmi_stride_t s = {dst, sst, bsize, nblocks, elem_size};

    shmi_strided(routine, ctx, 1, dest, src, &s, pe);
}

void shmi_ibget(const char *routine, shmem_ctx_t ctx, void *dest,
                const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                size_t nblocks, size_t elem_size, int pe)
{
    shmi_stride_t s = {dst, sst, bsize, nblocks, elem_size};

    shmi_strided(routine, ctx, 0, dest, src, &s, pe);
}
