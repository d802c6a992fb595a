/*
 * Atomic memory operations (core_api.h: shmi_amo, shmi_amo_nbi).
 *
 * Atomic coherence (docs/design.md, decision 6). All atomics that reach one
 * word must be applied by one engine, or updates can be lost. The rule,
 * which the route table holds (route.h: cpu_amo):
 *
 *  - a word mapped here is updated with CPU atomic instructions, unless
 *    shmi_dp_cpu_atomics is 0 (shmi_path_engine, path_start.c): that is the case
 *    when the fabric in use does not declare SHMT_CAP_ATOMICS_CPU
 *    (transports/transport.h), and then every atomic, to any PE including
 *    this one, goes through the fabric;
 *  - a word that is not mapped here goes through the route's transport. A fabric that
 *    declares CPU atomics applies them in the target process with CPU
 *    atomic instructions, so CPU atomics from on-node peers and fabric
 *    atomics from elsewhere compose.
 *
 * tests/dataplane/dp_amo_stress.c (cases dp_stress_mixed_*) checks that no
 * update is lost when PEs hit the same words through both paths at once.
 */
#include "config.h"

#include "core/dataplane.h"
#include "core/engine/engine.h"

/* What each op needs: operand, compare and fetched pointers. */
enum { SHMI_AMO_NEED_OPND = 1, SHMI_AMO_NEED_CMP = 2, SHMI_AMO_NEED_FETCH = 4 };

static const unsigned char shmi_amo_needs[SHMI_AMO_COUNT] = {
    [SHMI_AMO_FETCH] = SHMI_AMO_NEED_FETCH,
    [SHMI_AMO_SET] = SHMI_AMO_NEED_OPND,
    [SHMI_AMO_CSWAP] =
        SHMI_AMO_NEED_OPND | SHMI_AMO_NEED_CMP | SHMI_AMO_NEED_FETCH,
    [SHMI_AMO_SWAP] = SHMI_AMO_NEED_OPND | SHMI_AMO_NEED_FETCH,
    [SHMI_AMO_FETCH_INC] = SHMI_AMO_NEED_FETCH,
    [SHMI_AMO_INC] = 0,
    [SHMI_AMO_FETCH_ADD] = SHMI_AMO_NEED_OPND | SHMI_AMO_NEED_FETCH,
    [SHMI_AMO_ADD] = SHMI_AMO_NEED_OPND,
    [SHMI_AMO_FETCH_AND] = SHMI_AMO_NEED_OPND | SHMI_AMO_NEED_FETCH,
    [SHMI_AMO_AND] = SHMI_AMO_NEED_OPND,
    [SHMI_AMO_FETCH_OR] = SHMI_AMO_NEED_OPND | SHMI_AMO_NEED_FETCH,
    [SHMI_AMO_OR] = SHMI_AMO_NEED_OPND,
    [SHMI_AMO_FETCH_XOR] = SHMI_AMO_NEED_OPND | SHMI_AMO_NEED_FETCH,
    [SHMI_AMO_XOR] = SHMI_AMO_NEED_OPND,
};

_Noreturn static void shmi_amo_bad(const char *routine, shmi_amo_op_t op,
                                   shmi_dtype_t dt, const void *dest, int pe)
{
    if ((unsigned)op >= SHMI_AMO_COUNT || (unsigned)dt >= SHMI_DT_COUNT)
        SHMI_FATAL("%s: internal error: atomic op %d on datatype %d", routine,
                   (int)op, (int)dt);
    if (shmi_dtype_size(dt) > 8 || shmi_dtype_kind(dt) == SHMI_DK_COMPLEX)
        SHMI_FATAL("%s: no atomic operation on %s (%zu bytes)", routine,
                   shmi_dtype_table[dt].name, shmi_dtype_size(dt));
    if ((uintptr_t)dest % shmi_dtype_size(dt))
        SHMI_FATAL("%s: target address %p (PE %d) is not aligned to %zu "
                   "bytes, as an atomic on %s requires",
                   routine, dest, pe, shmi_dtype_size(dt),
                   shmi_dtype_table[dt].name);
    SHMI_FATAL("%s: NULL value or result pointer (PE %d)", routine, pe);
}

static inline int shmi_amo_args_ok(shmi_amo_op_t op, shmi_dtype_t dt,
                                   const void *dest, const void *operand,
                                   const void *compare, const void *fetched)
{
    size_t size;
    unsigned need;

    if ((unsigned)op >= SHMI_AMO_COUNT || (unsigned)dt >= SHMI_DT_COUNT)
        return 0;
    size = shmi_dtype_size(dt);
    need = shmi_amo_needs[op];
    return size <= 8 && (size & (size - 1)) == 0 &&
           shmi_dtype_kind(dt) != SHMI_DK_COMPLEX &&
           ((uintptr_t)dest & (size - 1)) == 0 &&
           (!(need & SHMI_AMO_NEED_OPND) || operand) &&
           (!(need & SHMI_AMO_NEED_CMP) || compare) &&
           (!(need & SHMI_AMO_NEED_FETCH) || fetched);
}

static inline __attribute__((always_inline)) void
shmi_amo_do(const char *routine, shmem_ctx_t ctx, shmi_amo_op_t op,
            shmi_dtype_t dt, void *dest, const void *operand,
            const void *compare, void *fetched, int pe, int nbi)
{
    size_t off;
    int seg;

    pe = shmi_dp_target(routine, ctx, pe);
    if (SHMI_UNLIKELY(
            !shmi_amo_args_ok(op, dt, dest, operand, compare, fetched)))
        shmi_amo_bad(routine, op, dt, dest, pe);
    seg = shmi_dp_seg(routine, dest, shmi_dtype_size(dt), pe, &off);
    shmi_eng_amo(routine, ctx, pe, seg, off, op, dt, operand, compare, fetched,
                 nbi);
}

SHMI_DP_ENTRY void shmi_amo(const char *routine, shmem_ctx_t ctx,
                            shmi_amo_op_t op, shmi_dtype_t dt, void *dest,
                            const void *operand, const void *compare,
                            void *fetched, int pe)
{
    shmi_amo_do(routine, ctx, op, dt, dest, operand, compare, fetched, pe, 0);
}

void shmi_amo_nbi(const char *routine, shmem_ctx_t ctx, shmi_amo_op_t op,
                  shmi_dtype_t dt, void *dest, const void *operand,
                  const void *compare, void *fetched, int pe)
{
    shmi_amo_do(routine, ctx, op, dt, dest, operand, compare, fetched, pe, 1);
}
