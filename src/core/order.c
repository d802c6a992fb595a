/*
 * Ordering and completion: shmem_fence, shmem_quiet, their ctx forms and
 * shmem_pe_quiet / shmem_ctx_pe_quiet.
 *
 * The checks of the context and of the library's lifetime; the engine
 * does the work (src/core/engine/eng_order.c): a release fence or a full
 * fence on the load/store path, each transport's fence or quiet on the
 * context's endpoints, a quiet for fence where some PEs are reached by
 * load/store and others through the fabric (shmi_dp_mixed).
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
#include "core/engine/engine.h"
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

/* The default context is neither SHMEM_CTX_INVALID nor destroyable, so the
 * forms without a context check the library's lifetime only. */
void shmi_fence(void)
{
    shmi_require_init("shmem_fence");
    shmi_eng_fence("shmem_fence", SHMEM_CTX_DEFAULT);
}

void shmi_ctx_fence(shmem_ctx_t ctx)
{
    if (shmi_order_ctx_none("shmem_ctx_fence", ctx))
        return;
    shmi_eng_fence("shmem_ctx_fence", ctx);
}

void shmi_quiet(void)
{
    shmi_require_init("shmem_quiet");
    shmi_eng_quiet("shmem_quiet", SHMEM_CTX_DEFAULT, -1);
}

void shmi_ctx_quiet(shmem_ctx_t ctx)
{
    if (shmi_order_ctx_none("shmem_ctx_quiet", ctx))
        return;
    shmi_eng_quiet("shmem_ctx_quiet", ctx, -1);
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
    shmi_eng_quiet(routine, ctx, npes == 1 ? pe : -1);
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
