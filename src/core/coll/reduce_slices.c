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
 * since exactly one PE computes it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/coll/coll.h"
#include "core/error.h"

/* Bytes read per get (bounded so the scratch stays in cache). */
#define SHMI_SLICE_CHUNK ((size_t)64 * 1024)

static void shmi_slice_chunk(struct shmem_impl_team *t, char *dest,
                             const char *src, size_t lo, size_t cnt,
                             shmi_dtype_t dt, shmi_op_t op, char *acc,
                             char *tmp)
{
    size_t esz = shmi_dtype_size(dt), bytes = cnt * esz, at = lo * esz;
    int n = t->n_pes, me = t->my_pe;

    memcpy(acc, src + at, bytes);
    for (int i = 1; i < n; i++) {
        int p = (me + i) % n;

        shmi_get("shmem_reduce", SHMEM_CTX_DEFAULT, tmp, src + at, bytes,
                 shmi_team_world_pe(t, p));
        shmi_reduce_apply(op, dt, acc, tmp, cnt);
    }
    for (int i = 1; i < n; i++) {
        int p = (me + i) % n;

        shmi_put_nbi("shmem_reduce", SHMEM_CTX_DEFAULT, dest + at, acc, bytes,
                     shmi_team_world_pe(t, p));
    }
    /* acc is reused for the next chunk: the puts must have left it. */
    shmi_coll_quiet();
    memcpy(dest + at, acc, bytes);
}

void shmi_coll_reduce_slices(struct shmem_impl_team *t, void *dest,
                             const void *src, size_t nelems, shmi_dtype_t dt,
                             shmi_op_t op)
{
    size_t esz = shmi_dtype_size(dt);
    size_t per = SHMI_SLICE_CHUNK / esz;
    size_t base = nelems / (size_t)t->n_pes, extra = nelems % (size_t)t->n_pes;
    size_t me = (size_t)t->my_pe;
    size_t lo = me * base + (me < extra ? me : extra);
    size_t len = base + (me < extra ? 1 : 0);
    char *acc = malloc(2 * SHMI_SLICE_CHUNK);

    if (acc == NULL)
        SHMI_FATAL("out of memory for a reduction buffer");
    shmi_coll_barrier(t);
    for (size_t at = 0; at < len; at += per) {
        size_t cnt = len - at < per ? len - at : per;

        shmi_slice_chunk(t, dest, src, lo + at, cnt, dt, op, acc,
                         acc + SHMI_SLICE_CHUNK);
    }
    shmi_coll_barrier(t);
    free(acc);
}
