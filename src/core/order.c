/*
 * Ordering and completion: shmem_fence, shmem_quiet, their ctx forms and
 * shmem_pe_quiet / shmem_ctx_pe_quiet.
 *
 * Load/store path: every put is complete on return, so fence is a release
 * fence (keeps earlier stores before later ones) and quiet a full fence
 * (earlier stores are visible before any later load, as quiet's "visible to
 * all PEs" needs on x86, whose stores may wait in a store buffer).
 * Fabric: fence -> the transport's fence; quiet -> its quiet. When some PEs
 * are reached by load/store and others through the fabric (shmi_dp_mixed),
 * fence on the fabric is a quiet: a fabric fence orders fabric operations
 * among themselves, not against a later plain store to another PE's memory.
 *
 * SHMEM_CTX_INVALID: the specification of shmem_fence and shmem_quiet says
 * that no operation is performed on it (a PE outside a team holds that
 * handle from shmem_team_create_ctx and still calls quiet on it), and
 * shmem_ctx_pe_quiet has the semantics of shmem_quiet; so the ctx forms
 * return there. The test sits where the error used to be raised, so a
 * valid context pays no more than before (docs/dataplane.md, the table
 * "SHMEM_CTX_INVALID").
 */
#include "config.h"

#include "core/dataplane.h"
#include "core/init.h"

/* Before shmem_init and after shmem_finalize there is nothing to order or
 * complete, but a call there is a bug in the program: say so rather than
 * return as if it had done its work (also for SHMEM_CTX_INVALID). Then
 * returns 1 when ctx is SHMEM_CTX_INVALID (no operation), 0 for a context
 * to work on; a destroyed context is fatal (ctx.h). */
static int shmi_order_ctx_none(const char *routine, shmem_ctx_t ctx)
{
    shmi_require_init(routine);
    if (SHMI_UNLIKELY(ctx == SHMEM_CTX_INVALID))
        return 1;
    if (SHMI_UNLIKELY(ctx->destroyed))
        shmi_ctx_bad_destroyed(routine, ctx);
    return 0;
}

/* The work of fence on a valid context, after the checks. */
static void shmi_order_fence(const char *routine, shmem_ctx_t ctx)
{
    const shmt_ops_t *f = shmi_state.fabric;
    int ret;

    __atomic_thread_fence(__ATOMIC_RELEASE);
    if (f == NULL || ctx->fabric_ep == NULL)
        return;
    shmi_dp_lock(ctx);
    ret =
        shmi_dp_mixed ? f->quiet(ctx->fabric_ep, -1) : f->fence(ctx->fabric_ep);
    shmi_dp_unlock(ctx);
    if (ret)
        shmi_dp_fabric_error(routine, -1, ret);
}

void shmi_dp_fabric_quiet(const char *routine, shmem_ctx_t ctx, int pe)
{
    const shmt_ops_t *f = shmi_state.fabric;
    int ret;

    if (f == NULL || ctx->fabric_ep == NULL)
        return;
    shmi_dp_lock(ctx);
    ret = f->quiet(ctx->fabric_ep, pe);
    shmi_dp_unlock(ctx);
    if (ret)
        shmi_dp_fabric_error(routine, pe, ret);
}

/* The work of quiet on a valid context, after the checks. */
static void shmi_order_quiet(const char *routine, shmem_ctx_t ctx, int pe)
{
    shmi_dp_fabric_quiet(routine, ctx, pe);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* The implicit quiet of shmem_ctx_destroy and shmem_finalize: ctx is a live
 * context of the library's own list. */
void shmi_dp_ctx_quiet(const char *routine, shmem_ctx_t ctx)
{
    shmi_order_quiet(routine, ctx, -1);
}

/* The default context is neither SHMEM_CTX_INVALID nor destroyable, so the
 * forms without a context check the library's lifetime only. */
void shmi_fence(void)
{
    shmi_require_init("shmem_fence");
    shmi_order_fence("shmem_fence", SHMEM_CTX_DEFAULT);
}

void shmi_ctx_fence(shmem_ctx_t ctx)
{
    if (shmi_order_ctx_none("shmem_ctx_fence", ctx))
        return;
    shmi_order_fence("shmem_ctx_fence", ctx);
}

void shmi_quiet(void)
{
    shmi_require_init("shmem_quiet");
    shmi_order_quiet("shmem_quiet", SHMEM_CTX_DEFAULT, -1);
}

void shmi_ctx_quiet(shmem_ctx_t ctx)
{
    if (shmi_order_ctx_none("shmem_ctx_quiet", ctx))
        return;
    shmi_order_quiet("shmem_ctx_quiet", ctx, -1);
}

/* After the checks of ctx (the caller's). */
static void shmi_order_pe_quiet(const char *routine, shmem_ctx_t ctx,
                                const int *target_pes, size_t npes)
{
    int pe = -1;

    if (npes == 0)
        return;
    if (target_pes == NULL)
        SHMI_FATAL("%s: target_pes is NULL with npes = %zu", routine, npes);
    /* Every PE is checked; one PE can be quieted alone, several are quieted
     * together (as the specification allows). */
    for (size_t i = 0; i < npes; i++)
        pe = shmi_dp_target(routine, ctx, target_pes[i]);
    shmi_order_quiet(routine, ctx, npes == 1 ? pe : -1);
}

void shmi_pe_quiet(const int *target_pes, size_t npes)
{
    shmi_require_init("shmem_pe_quiet");
    shmi_order_pe_quiet("shmem_pe_quiet", SHMEM_CTX_DEFAULT, target_pes, npes);
}

/* SHMEM_CTX_INVALID: no operation, as for shmem_ctx_quiet, whose semantics
 * the specification gives this routine; target_pes is then not looked at
 * (its PE numbers would be relative to a team that the handle lacks). */
void shmi_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    if (shmi_order_ctx_none("shmem_ctx_pe_quiet", ctx))
        return;
    shmi_order_pe_quiet("shmem_ctx_pe_quiet", ctx, target_pes, npes);
}
