/*
 * Ordering and completion: shmem_fence, shmem_quiet, their ctx forms and
 * shmem_pe_quiet / shmem_ctx_pe_quiet.
 *
 * Load/store path: every put is complete on return, so fence is a release
 * fence (keeps earlier stores before later ones) and quiet a full fence
 * (earlier stores are visible before any later load, as quiet's "visible to
 * all PEs" needs on x86, whose stores may wait in a store buffer).
 * Transports that carry operations (the context's endpoints): fence -> each
 * transport's fence; quiet -> each one's quiet. When some PEs are reached
 * by load/store and others through the fabric (shmi_dp_mixed), fence is a
 * quiet: a fabric fence orders fabric operations among themselves, not
 * against a later plain store to another PE's memory.
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

/* The work of fence on a valid context, after the checks: each transport's
 * fence, or its quiet where some PEs are reached by load/store and others
 * through it (shmi_dp_mixed, the file comment). */
static void shmi_order_fence(const char *routine, shmem_ctx_t ctx)
{
    __atomic_thread_fence(__ATOMIC_RELEASE);
    for (int i = 0; i < shmi_state.n_carriers; i++) {
        const shmt_ops_t *t = shmi_state.carrier[i];
        int ret;

        if (ctx->ep[i] == NULL)
            continue;
        shmi_dp_lock(ctx);
        ret = shmi_dp_mixed ? t->quiet(ctx->ep[i], -1) : t->fence(ctx->ep[i]);
        shmi_dp_unlock(ctx);
        if (ret)
            shmi_dp_transport_error(routine, t, -1, ret);
    }
}

/* Quiet of the transport in slot i, when the context has an endpoint on
 * it. */
static void shmi_order_quiet_slot(const char *routine, shmem_ctx_t ctx, int i,
                                  int pe)
{
    const shmt_ops_t *t = shmi_state.carrier[i];
    int ret;

    if (ctx->ep[i] == NULL)
        return;
    shmi_dp_lock(ctx);
    ret = t->quiet(ctx->ep[i], pe);
    shmi_dp_unlock(ctx);
    if (ret)
        shmi_dp_transport_error(routine, t, pe, ret);
}

void shmi_dp_carriers_quiet(const char *routine, shmem_ctx_t ctx, int pe)
{
    for (int i = 0; i < shmi_state.n_carriers; i++)
        shmi_order_quiet_slot(routine, ctx, i, pe);
}

void shmi_dp_route_quiet(const char *routine, shmem_ctx_t ctx,
                         const shmi_route_t *r, int pe)
{
    if (r->ops)
        shmi_order_quiet_slot(routine, ctx, r->ep, pe);
}

/* The work of quiet on a valid context, after the checks. */
static void shmi_order_quiet(const char *routine, shmem_ctx_t ctx, int pe)
{
    shmi_dp_carriers_quiet(routine, ctx, pe);
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
