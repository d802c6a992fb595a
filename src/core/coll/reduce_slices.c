/*
 * The sliced reduction for large arrays (SHMEM_COLL_LARGE bytes and up, or
 * SHMEM_REDUCE_ALGORITHM=slices): a reduce-scatter followed by an allgather,
 * done directly on the symmetric source and dest arrays.
 *
 * After a sync (every source is ready), team PE k reads slice k of every
 * member's source, reduces it, and writes the result into slice k of every
 * member's dest; a quiet and a second sync end it. Each PE moves 2 (n-1)/n
 * of the array, the bandwidth optimum, and no element passes through more
 * than one PE. Slice k of a source is read only by PE k, which reads a
 * chunk everywhere before it writes that chunk anywhere, so dest may be the
 * source (in place). Every member receives the same bits for each slice,
 * since exactly one PE computes it. The arrays may be in the device heap:
 * the gets and puts handle it, and this PE's own part is copied through the
 * device back end.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/coll/coll.h"
#include "services/error.h"

/* Bytes of scratch for one chunk's gets from all peers (bounded so that it
 * stays in cache), and the most read from one peer at a time. */
#define SHMI_SLICE_SCRATCH ((size_t)512 * 1024)
#define SHMI_SLICE_CHUNK   ((size_t)64 * 1024)

typedef struct shmi_slice {
    struct shmem_impl_team *t;
    char *dest;
    const char *src;
    shmi_dtype_t dt;
    shmi_op_t op;
    char *acc; /* chunk bytes: the reduced chunk */
    char *tmp; /* (n-1) chunks: what the peers hold */
    int dev;   /* dest or src is device memory */
} shmi_slice_t;

/*
 * One chunk of this PE's slice: every peer's part is fetched at once
 * (non-blocking gets, one wait), reduced, then written to every peer with
 * non-blocking puts. Their completion is waited for by the next chunk's
 * wait (a quiet covers both), so the puts of chunk j overlap the gets of
 * chunk j+1; acc alternates between two halves for that reason.
 */
static void shmi_slice_chunk(const shmi_slice_t *c, char *acc, size_t lo,
                             size_t cnt, size_t stride)
{
    size_t esz = shmi_dtype_size(c->dt), bytes = cnt * esz, at = lo * esz;
    int n = c->t->n_pes, me = c->t->my_pe;

    size_t soff, doff;
    int sseg = shmi_coll_at(c->src + at, bytes, &soff),
        dseg = shmi_coll_at(c->dest + at, bytes, &doff);

    for (int i = 1; i < n; i++)
        shmi_eng_get("shmem_reduce", shmi_coll_ctx(),
                     shmi_team_world_pe(c->t, (me + i) % n), sseg, soff,
                     c->tmp + (size_t)(i - 1) * stride, bytes, 1);
    shmi_coll_copy_piece(c->dev, acc, c->src + at, bytes);
    shmi_coll_quiet();
    for (int i = 1; i < n; i++)
        shmi_reduce_apply(c->op, c->dt, acc, c->tmp + (size_t)(i - 1) * stride,
                          cnt);
    for (int i = 1; i < n; i++)
        shmi_eng_put("shmem_reduce", shmi_coll_ctx(),
                     shmi_team_world_pe(c->t, (me + i) % n), dseg, doff, acc,
                     bytes, 1);
    shmi_coll_copy_piece(c->dev, c->dest + at, acc, bytes);
}

void shmi_coll_reduce_slices(struct shmem_impl_team *t, void *dest,
                             const void *src, size_t nelems, shmi_dtype_t dt,
                             shmi_op_t op)
{
    size_t esz = shmi_dtype_size(dt), npeers = (size_t)t->n_pes - 1;
    size_t stride = SHMI_SLICE_SCRATCH / npeers;
    size_t per, base = nelems / (size_t)t->n_pes;
    size_t extra = nelems % (size_t)t->n_pes, me = (size_t)t->my_pe;
    size_t lo = me * base + (me < extra ? me : extra);
    size_t len = base + (me < extra ? 1 : 0);
    shmi_slice_t c = {t, dest, src, dt, op, NULL, NULL, 0};
    int half = 0;

    if (stride > SHMI_SLICE_CHUNK)
        stride = SHMI_SLICE_CHUNK;
    stride = stride / 64 * 64;
    if (stride < 64)
        stride = 64; /* 64 bytes hold a whole element of every type */
    per = stride / esz;
    c.acc = malloc(2 * stride + npeers * stride);
    if (c.acc == NULL)
        SHMI_FATAL("out of memory for a reduction buffer");
    c.tmp = c.acc + 2 * stride;
    c.dev = shmi_coll_device(dest, src, nelems * esz);
    shmi_coll_barrier(t);
    for (size_t at = 0; at < len; at += per, half ^= 1) {
        size_t cnt = len - at < per ? len - at : per;

        shmi_slice_chunk(&c, c.acc + (size_t)half * stride, lo + at, cnt,
                         stride);
    }
    /* The last puts must have left acc, and reached every dest. */
    shmi_coll_quiet();
    shmi_coll_barrier(t);
    free(c.acc);
}
