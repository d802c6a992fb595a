/*
 * Data exchanges that write straight into every member's dest: fcollect,
 * collect, alltoall and alltoalls.
 *
 * Each PE pushes its share to every other member with a put-with-signal on
 * the slot's "direct" flag (in ring order from its right neighbour, so that
 * no member is the first target of everybody), copies its own share locally
 * and then waits for n-1 arrivals. n-1 messages per PE, each carrying the
 * final data once: for the block sizes these routines move, the bytes on the
 * wire are the cost, and no intermediate copy or scratch is needed. The
 * dest arrays are symmetric by the specification; src is only read locally.
 * Either may be in the device heap (the puts and shmi_coll_copy handle it).
 */
#include "config.h"

#include <string.h>

#include "core/coll/coll.h"
#include "core/ctx.h"

static uint64_t *shmi_direct_flag(struct shmem_impl_team *t)
{
    int par = shmi_coll_begin(t, SHMI_SIG_DIRECT);

    return &shmi_coll_slot(t->slot)->sig[par][SHMI_SIG_DIRECT][0];
}

/* Everyone sends nbytes from src to dest + at on every other member. */
static void shmi_gather_push(struct shmem_impl_team *t, char *dest, size_t at,
                             const void *src, size_t nbytes)
{
    uint64_t *flag = shmi_direct_flag(t);
    int n = t->n_pes;

    for (int i = 1; i < n; i++) {
        int j = (t->my_pe + i) % n;

        shmi_coll_put_signal(dest + at, src, nbytes, flag,
                             shmi_team_world_pe(t, j));
    }
    shmi_coll_copy(dest + at, src, nbytes);
    shmi_coll_flag_take(flag, (uint64_t)n - 1);
}

void shmi_coll_fcollect(struct shmem_impl_team *t, void *dest, const void *src,
                        size_t nbytes)
{
    shmi_gather_push(t, dest, (size_t)t->my_pe * nbytes, src, nbytes);
}

void shmi_coll_collect(struct shmem_impl_team *t, void *dest, const void *src,
                       size_t nbytes)
{
    uint64_t mine = nbytes, at = 0;

    /* My offset is the sum of the sizes of the PEs before me. */
    shmi_coll_scan(t, &at, &mine, 1, SHMI_DT_UINT64, SHMI_OP_SUM, 1);
    shmi_gather_push(t, dest, (size_t)at, src, nbytes);
}

void shmi_coll_alltoall(struct shmem_impl_team *t, void *dest, const void *src,
                        size_t nbytes)
{
    uint64_t *flag = shmi_direct_flag(t);
    const char *s = src;
    char *d = dest;
    int n = t->n_pes, me = t->my_pe;

    for (int i = 1; i < n; i++) {
        int j = (me + i) % n;

        shmi_coll_put_signal(d + (size_t)me * nbytes, s + (size_t)j * nbytes,
                             nbytes, flag, shmi_team_world_pe(t, j));
    }
    shmi_coll_copy(d + (size_t)me * nbytes, s + (size_t)me * nbytes, nbytes);
    shmi_coll_flag_take(flag, (uint64_t)n - 1);
}

/* This PE's own block of an alltoalls, element by element (through the
 * device back end when either array is device memory). */
static void shmi_alltoalls_own(char *d, const char *s, ptrdiff_t dst,
                               ptrdiff_t sst, size_t nelems, size_t elem_size)
{
    ptrdiff_t dstep = dst * (ptrdiff_t)elem_size;
    ptrdiff_t sstep = sst * (ptrdiff_t)elem_size;
    /* An array lies in one segment: its first element tells where. */
    int dev = nelems > 0 && shmi_coll_device(d, s, elem_size);

    for (size_t k = 0; k < nelems; k++)
        shmi_coll_copy_piece(dev, d + (ptrdiff_t)k * dstep,
                             s + (ptrdiff_t)k * sstep, elem_size);
}

/* The elements of one block to world PE wpe: nelems of elem_size, dst and
 * sst elements apart. The entry point checked the whole span (coll_api.c),
 * which lies in one segment, so the first element's offset gives every
 * other's. */
static void shmi_coll_iput(char *d, const char *s, ptrdiff_t dst, ptrdiff_t sst,
                           size_t nelems, size_t elem_size, int wpe)
{
    ptrdiff_t dstep = dst * (ptrdiff_t)elem_size;
    ptrdiff_t sstep = sst * (ptrdiff_t)elem_size;
    size_t off;
    int seg = shmi_coll_at(d, elem_size, &off);

    for (size_t k = 0; k < nelems; k++)
        shmi_eng_put("shmem_alltoalls", shmi_coll_ctx(), wpe, seg,
                     off + (size_t)((ptrdiff_t)k * dstep),
                     s + (ptrdiff_t)k * sstep, elem_size, 0);
}

void shmi_coll_alltoalls(struct shmem_impl_team *t, void *dest, const void *src,
                         ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                         size_t elem_size)
{
    uint64_t *flag = shmi_direct_flag(t);
    const char *s = src;
    char *d = dest;
    int n = t->n_pes, me = t->my_pe;
    ptrdiff_t dblock = (ptrdiff_t)nelems * dst * (ptrdiff_t)elem_size;
    ptrdiff_t sblock = (ptrdiff_t)nelems * sst * (ptrdiff_t)elem_size;

    for (int i = 1; i < n && nelems > 0; i++)
        shmi_coll_iput(d + me * dblock, s + (me + i) % n * sblock, dst, sst,
                       nelems, elem_size, shmi_team_world_pe(t, (me + i) % n));
    /* The fence puts every block before the arrival that announces it. */
    shmi_coll_fence();
    for (int i = 1; i < n; i++)
        shmi_coll_flag_add(flag, shmi_team_world_pe(t, (me + i) % n));
    shmi_alltoalls_own(d + me * dblock, s + me * sblock, dst, sst, nelems,
                       elem_size);
    shmi_coll_flag_take(flag, (uint64_t)n - 1);
}
